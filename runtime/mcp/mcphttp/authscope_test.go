package mcphttp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/internal/httpwire"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// scopedServer serves three tools, two of them behind scopes, counting the
// runs of each, with a bearer token per scope set: "reader" (notes.read),
// "writer" (notes.read notes.write).
type scopedServer struct {
	ts   *httptest.Server
	runs sync.Map // tool name → *atomic.Int32
}

func newScopedServer(t *testing.T, hide bool) *scopedServer {
	t.Helper()
	s := &scopedServer{}
	srv := mcpserver.New(mcp.Implementation{Name: "scoped", Version: "1"}, nil)
	tool := func(name string, scopes ...string) mcpserver.Tool {
		n := new(atomic.Int32)
		s.runs.Store(name, n)
		return mcpserver.Tool{Name: name, Scopes: scopes, Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			n.Add(1)
			return json.RawMessage(`{"ok":true}`), nil
		}}
	}
	srv.AddTools(tool("read_note", "notes.read"), tool("add_note", "notes.write"), tool("about"))
	verify := func(_ context.Context, token string, _ *http.Request) (*TokenInfo, error) {
		switch token {
		case "reader":
			return &TokenInfo{Subject: "u", Scopes: []string{"notes.read"}}, nil
		case "writer":
			return &TokenInfo{Subject: "u", Scopes: []string{"notes.read", "notes.write"}}, nil
		}
		return nil, ErrInvalidToken
	}
	h := NewHandler(srv, &Options{Auth: &Auth{Verify: verify, ResourceMetadataURL: testMetadataURL, HideTools: hide}})
	s.ts = httptest.NewServer(h)
	t.Cleanup(func() { s.ts.Close(); h.Close() })
	return s
}

func (s *scopedServer) ran(name string) int32 {
	n, _ := s.runs.Load(name)
	return n.(*atomic.Int32).Load()
}

func (s *scopedServer) connect(t *testing.T, version, token string, a mcphttpclient.Authorizer) *mcpclient.Client {
	t.Helper()
	opts := &mcphttpclient.Options{MCP: mcpclient.Options{ProtocolVersion: version}, Authorizer: a}
	if token != "" {
		opts.Header = http.Header{"Authorization": {"Bearer " + token}}
	}
	c, err := mcphttpclient.Connect(context.Background(), s.ts.URL, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

var scopedEras = []struct{ name, version string }{{"legacy", mcp.Version20251125}, {"2026-07-28", mcp.Version20260728}}

// TestToolScopes: a token without a tool's scope gets 403 insufficient_scope
// naming it, and the tool does not run; with it, the tool runs. Over a
// legacy session and 2026-07-28 requests.
func TestToolScopes(t *testing.T) {
	rpctest.CheckLeaks(t)
	for _, era := range scopedEras {
		t.Run(era.name, func(t *testing.T) {
			s := newScopedServer(t, false)
			c := s.connect(t, era.version, "reader", nil)
			tools, err := c.ListTools(context.Background())
			if err != nil || len(tools) != 3 {
				t.Fatalf("tools/list: %d tools, %v (want all 3 without HideTools)", len(tools), err)
			}
			if _, err := c.CallToolRaw(context.Background(), mcp.CallToolParams{Name: "read_note"}); err != nil {
				t.Errorf("read_note with notes.read: %v", err)
			}
			_, err = c.CallToolRaw(context.Background(), mcp.CallToolParams{Name: "add_note"})
			if re, ok := errors.AsType[*runtime.Error](err); !ok || !strings.Contains(re.Message, "notes.write") {
				t.Errorf("add_note without notes.write: %v, want a Forbidden error naming notes.write", err)
			}
			if n := s.ran("add_note"); n != 0 {
				t.Errorf("add_note ran %d times without its scope", n)
			}
			w := s.connect(t, era.version, "writer", nil)
			if _, err := w.CallToolRaw(context.Background(), mcp.CallToolParams{Name: "add_note"}); err != nil || s.ran("add_note") != 1 {
				t.Errorf("add_note with notes.write: %v, ran %d times", err, s.ran("add_note"))
			}
		})
	}
}

// TestToolScopesChallenge checks the 403 on the wire: the challenge names the
// missing scope and the metadata document, the body is a JSON-RPC error, and
// a batch holding such a call is refused whole.
func TestToolScopesChallenge(t *testing.T) {
	s := newScopedServer(t, false)
	post := func(body string, hdr ...string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, s.ts.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer reader")
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	resp := post(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add_note","arguments":{},`+meta+`}}`,
		"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "add_note")
	want := `Bearer error="insufficient_scope", scope="notes.write", resource_metadata="` + testMetadataURL + `"`
	if resp.StatusCode != 403 || resp.Header.Get("WWW-Authenticate") != want {
		t.Errorf("got %d %q, want 403 %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), want)
	}
	body, _ := io.ReadAll(resp.Body)
	var msg struct {
		Error *runtime.Error `json:"error"`
	}
	if json.Unmarshal(body, &msg) != nil || msg.Error == nil {
		t.Errorf("body %s is no JSON-RPC error", body)
	}
	sid := initSession(t, s.ts.URL, "reader")
	resp = post(`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"about"}},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add_note"}}]`,
		"Mcp-Session-Id", sid, "MCP-Protocol-Version", "2025-03-26")
	if resp.StatusCode != 403 || s.ran("about") != 0 || s.ran("add_note") != 0 {
		t.Errorf("batch: %d, about ran %d, add_note ran %d; want 403 and neither run", resp.StatusCode, s.ran("about"), s.ran("add_note"))
	}
}

// initSession opens a 2025-03-26 session (batches are of that revision) with
// token, and returns its id.
func initSession(t *testing.T, url, token string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	sid := resp.Header.Get(httpwire.HdrSessionID)
	if resp.StatusCode != 200 || sid == "" {
		t.Fatalf("initialize: %d, session %q", resp.StatusCode, sid)
	}
	return sid
}

// TestHideTools: with Auth.HideTools a reader's tools/list leaves out the
// tool it cannot call, and in 2026-07-28 the list is private.
func TestHideTools(t *testing.T) {
	for _, era := range scopedEras {
		t.Run(era.name, func(t *testing.T) {
			s := newScopedServer(t, true)
			for token, want := range map[string][]string{"reader": {"read_note", "about"}, "writer": {"read_note", "add_note", "about"}} {
				tools, err := s.connect(t, era.version, token, nil).ListTools(context.Background())
				var names []string
				for _, tl := range tools {
					names = append(names, tl.Name)
				}
				if err != nil || !slices.Equal(names, want) {
					t.Errorf("%s: tools/list %v, %v; want %v", token, names, err, want)
				}
			}
		})
	}
}

// stubAuthorizer hands out "reader" after a 401 and "writer" after a 403
// naming notes.write, recording the challenges.
type stubAuthorizer struct {
	mu         sync.Mutex
	token      string
	challenges []string
}

func (a *stubAuthorizer) Authorize(req *http.Request) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.token != "" {
		req.Header.Set("Authorization", "Bearer "+a.token)
	}
	return nil
}

func (a *stubAuthorizer) Challenge(ctx context.Context, req *http.Request, resp *http.Response) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	www := resp.Header.Get("WWW-Authenticate")
	a.challenges = append(a.challenges, resp.Status[:3])
	switch {
	case resp.StatusCode == 401:
		a.token = "reader"
	case strings.Contains(www, `scope="notes.write"`):
		a.token = "writer"
	default:
		return errors.New("no way to answer " + www)
	}
	return nil
}

// TestAuthorizer: a client with an mcphttpclient.Authorizer connects to a server that
// wants a token (the challenge during the handshake) and steps up to the
// scope a tool names (403 during a call), each request sent again with the
// new credentials.
func TestAuthorizer(t *testing.T) {
	rpctest.CheckLeaks(t)
	for _, era := range scopedEras {
		t.Run(era.name, func(t *testing.T) {
			s := newScopedServer(t, false)
			a := &stubAuthorizer{}
			c := s.connect(t, era.version, "", a)
			if _, err := c.CallToolRaw(context.Background(), mcp.CallToolParams{Name: "add_note"}); err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(a.challenges, " "); got != "401 403" || s.ran("add_note") != 1 {
				t.Errorf("challenges %q, add_note ran %d times; want \"401 403\" and once", got, s.ran("add_note"))
			}
		})
	}
}

// TestAuthorizerGivesUp: a challenge the mcphttpclient.Authorizer cannot answer fails the
// call with its error, after at most clientMaxChallenges sends.
func TestAuthorizerGivesUp(t *testing.T) {
	s := newScopedServer(t, false)
	a := &stubAuthorizer{}
	c := s.connect(t, mcp.Version20260728, "", a)
	a.mu.Lock()
	a.token = "nobody" // revoked: every request gets 401 and a new "reader" token, then 403 on add_note
	a.mu.Unlock()
	_, err := c.CallToolRaw(context.Background(), mcp.CallToolParams{Name: "read_note"})
	if err != nil {
		t.Fatalf("read_note after a revoked token: %v (want a new token and success)", err)
	}
	a.mu.Lock()
	a.token = "writer-revoked"
	a.mu.Unlock()
	s2 := &stubNever{}
	c2 := s.connect(t, mcp.Version20260728, "reader", s2)
	_, err = c2.CallToolRaw(context.Background(), mcp.CallToolParams{Name: "add_note"})
	if err == nil || !strings.Contains(err.Error(), "no new credentials") || s2.n != 1 {
		t.Errorf("got %v after %d challenges; want the mcphttpclient.Authorizer's error after one", err, s2.n)
	}
}

type stubNever struct{ n int }

func (a *stubNever) Authorize(req *http.Request) error { return nil }
func (a *stubNever) Challenge(context.Context, *http.Request, *http.Response) error {
	a.n++
	return errors.New("no new credentials")
}
