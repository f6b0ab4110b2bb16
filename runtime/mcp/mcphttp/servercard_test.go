package mcphttp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// generatedCard is a card as rpcgen --server-card writes it, at an older
// version, with a remote that lists its revisions and one that does not.
const generatedCard = `{
  "$schema": "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json",
  "name": "io.github.example/notes",
  "version": "1.0.0",
  "description": "Notes keeps short notes.",
  "title": "Notes",
  "repository": {"url": "https://github.com/example/notes", "source": "github"},
  "remotes": [
    {"type": "streamable-http", "url": "https://notes.example.com/mcp"},
    {"type": "sse", "url": "https://notes.example.com/sse", "supportedProtocolVersions": ["2024-11-05"]}
  ]
}`

// cardServer serves srv at /mcp and its card at /mcp/server-card over a
// real HTTP server on loopback.
func cardServer(t *testing.T, srv *mcpserver.Server, card string) *httptest.Server {
	t.Helper()
	ch, err := mcphttp.ServerCardHandler(srv, []byte(card))
	if err != nil {
		t.Fatal(err)
	}
	h := mcphttp.NewHandler(srv, nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	mux.Handle("/mcp/server-card", ch)
	hs := httptest.NewServer(mux)
	t.Cleanup(func() { hs.Close(); h.Close() })
	return hs
}

func get(t *testing.T, url string, header http.Header) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header = header
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

// TestServerCard: the card a client GETs at <endpoint>/server-card says
// what the server's serverInfo says (its version, title, description), the
// same serverInfo a client connected to the endpoint gets; a remote that
// named no revisions lists those the handler serves; the headers are the
// draft's (media type, CORS, caching, ETag) and a conditional GET gets 304.
func TestServerCard(t *testing.T) {
	srv := mcpserver.New(mcp.Implementation{Name: "notes", Title: "Notes server", Version: "1.4.0", Description: "Keeps notes."}, nil)
	hs := cardServer(t, srv, generatedCard)

	resp, body := get(t, hs.URL+"/mcp/server-card", http.Header{"Accept": {mcphttp.ServerCardMediaType}})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	for k, want := range map[string]string{
		"Content-Type":                mcphttp.ServerCardMediaType,
		"Access-Control-Allow-Origin": "*",
		"Cache-Control":               "public, max-age=3600",
	} {
		if got := resp.Header.Get(k); got != want {
			t.Errorf("%s: %q, want %q", k, got, want)
		}
	}
	var card struct {
		Schema, Name, Version, Description, Title string
		Repository                                struct{ URL, Source string }
		Remotes                                   []struct {
			Type, URL                 string
			SupportedProtocolVersions []string
		}
	}
	if err := json.Unmarshal(body, &card); err != nil {
		t.Fatalf("%v: %s", err, body)
	}

	c, err := mcphttpclient.Connect(context.Background(), hs.URL+"/mcp", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	info := c.ServerInfo() // what server/discover answered
	if card.Version != info.Version || card.Title != info.Title || card.Description != info.Description {
		t.Errorf("card says version %q title %q description %q; serverInfo %q %q %q",
			card.Version, card.Title, card.Description, info.Version, info.Title, info.Description)
	}
	if card.Name != "io.github.example/notes" || card.Repository.Source != "github" {
		t.Errorf("card name %q, repository %+v: the card's own, kept", card.Name, card.Repository)
	}
	if len(card.Remotes) != 2 {
		t.Fatalf("remotes %+v", card.Remotes)
	}
	if got := card.Remotes[0].SupportedProtocolVersions; !slices.Contains(got, c.ProtocolVersion()) || !slices.Contains(got, mcp.Version20241105) {
		t.Errorf("streamable-http remote lists %v: want every revision, %s (the one spoken) among them", got, c.ProtocolVersion())
	}
	if got := card.Remotes[1].SupportedProtocolVersions; !slices.Equal(got, []string{mcp.Version20241105}) {
		t.Errorf("sse remote lists %v, its own list kept", got)
	}

	etag := resp.Header.Get("ETag")
	if etag == "" {
		t.Fatal("no ETag")
	}
	resp, body = get(t, hs.URL+"/mcp/server-card", http.Header{"If-None-Match": {`"other", ` + etag}})
	if resp.StatusCode != http.StatusNotModified || len(body) != 0 {
		t.Errorf("conditional GET: status %d, %d bytes; want 304 and none", resp.StatusCode, len(body))
	}
	resp, _ = get(t, hs.URL+"/mcp/server-card", http.Header{"If-None-Match": {`"other"`}})
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET with another ETag: status %d, want 200", resp.StatusCode)
	}
}

// TestServerCardMethods: HEAD has the headers and no body, OPTIONS the
// CORS headers, and a write is refused.
func TestServerCardMethods(t *testing.T) {
	hs := cardServer(t, mcpserver.New(mcp.Implementation{Name: "notes", Version: "1.0.0"}, nil), generatedCard)
	for _, tc := range []struct {
		method string
		status int
		header string
	}{
		{http.MethodHead, http.StatusOK, "Content-Type"},
		{http.MethodOptions, http.StatusNoContent, "Access-Control-Allow-Methods"},
		{http.MethodPost, http.StatusMethodNotAllowed, "Allow"},
		{http.MethodDelete, http.StatusMethodNotAllowed, "Allow"},
	} {
		req, _ := http.NewRequest(tc.method, hs.URL+"/mcp/server-card", strings.NewReader(""))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || resp.Header.Get(tc.header) == "" {
			t.Errorf("%s: status %d, %s %q; want %d and the header", tc.method, resp.StatusCode, tc.header, resp.Header.Get(tc.header), tc.status)
		}
		if tc.method == http.MethodHead && len(body) != 0 {
			t.Errorf("HEAD has a body of %d bytes", len(body))
		}
	}
}

// TestServerCardRefused: a card the draft's schema refuses is an error
// saying what is wrong, not a handler serving it.
func TestServerCardRefused(t *testing.T) {
	for _, tc := range []struct{ card, want string }{
		{`[]`, "cannot unmarshal"},
		{`{"$schema":"https://example.com/x.json","name":"a.b/c","version":"1","description":"d"}`, "$schema"},
		{`{"$schema":"` + mcphttp.ServerCardSchema + `","name":"notes","version":"1","description":"d"}`, "reverse-DNS"},
		{`{"$schema":"` + mcphttp.ServerCardSchema + `","name":"a.b/c","version":"1","description":""}`, "description has 0 characters"},
		{`{"$schema":"` + mcphttp.ServerCardSchema + `","name":"a.b/c","version":"1","description":"d","remotes":[{"type":"ws","url":"https://x"}]}`, `type "ws"`},
		{`{"$schema":"` + mcphttp.ServerCardSchema + `","name":"a.b/c","version":"1","description":"d","remotes":[{"type":"sse","url":"x"}]}`, "starts with neither"},
		{`{"$schema":"` + mcphttp.ServerCardSchema + `","name":"a.b/c","version":"1","description":"d","tools":[]}`, `unknown field "tools"`},
		{`{"$schema":"` + mcphttp.ServerCardSchema + `","name":"a.b/c","version":"1","description":"d"} {}`, "more than one"},
	} {
		_, err := mcphttp.ServerCardHandler(nil, []byte(tc.card))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("card %s: error %v, want one containing %q", tc.card, err, tc.want)
		}
	}
}
