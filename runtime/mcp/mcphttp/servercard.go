package mcphttp

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// ServerCardMediaType is the media type of a Server Card (SEP-2127).
const ServerCardMediaType = "application/mcp-server-card+json"

// ServerCardSchema is the JSON Schema URI a Server Card names in $schema.
const ServerCardSchema = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json"

// cardRemote is a remote endpoint of a Server Card; what the handler does
// not read passes through as it is.
type cardRemote struct {
	Type                      string          `json:"type"`
	URL                       string          `json:"url"`
	Headers                   json.RawMessage `json:"headers,omitempty"`
	Variables                 json.RawMessage `json:"variables,omitempty"`
	SupportedProtocolVersions []string        `json:"supportedProtocolVersions,omitempty"`
}

// serverCard is a Server Card as the handler reads and writes it.
type serverCard struct {
	Schema      string          `json:"$schema"`
	Name        string          `json:"name"`
	Version     string          `json:"version"`
	Description string          `json:"description"`
	Title       string          `json:"title,omitempty"`
	WebsiteURL  string          `json:"websiteUrl,omitempty"`
	Repository  json.RawMessage `json:"repository,omitempty"`
	Icons       json.RawMessage `json:"icons,omitempty"`
	Remotes     []cardRemote    `json:"remotes,omitempty"`
	Meta        json.RawMessage `json:"_meta,omitempty"`
}

var cardName = regexp.MustCompile(`^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`)

// ServerCardHandler returns a handler that serves card, a Server Card
// (SEP-2127), such as the one rpcgen --server-card writes. EXPERIMENTAL:
// SEP-2127 is a draft, and this follows it as it changes.
//
// The card says what the server says of itself: its version, and its title,
// description and website when they are set, are those of srv.Info(), the
// serverInfo that initialize and server/discover answer with (so is its
// name when that is in the card's reverse-DNS form); a remote that lists no
// supportedProtocolVersions gets the revisions this package serves over its
// transport. srv may be nil: the card is then served as it is.
//
// Mount it at <streamable-http-url>/server-card, the location the draft
// reserves: "/mcp/server-card" beside a Handler at "/mcp". It answers GET
// and HEAD with the card as ServerCardMediaType, Access-Control-Allow-Origin
// *, Cache-Control public, max-age=3600 and an ETag, and 304 Not Modified to
// an If-None-Match that names it; OPTIONS with the CORS headers; other
// methods with 405. It returns an error for a card that is not a JSON
// object of the draft's shape: a wrong $schema, a name not in reverse-DNS
// form, no version or description, a remote of an unknown type.
func ServerCardHandler(srv *mcpserver.Server, card []byte) (http.Handler, error) {
	var c serverCard
	dec := json.NewDecoder(bytes.NewReader(card))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("mcphttp: server card: %v", err)
	}
	if dec.More() {
		return nil, errors.New("mcphttp: server card: more than one JSON value")
	}
	if srv != nil {
		fillFromInfo(&c, srv.Info())
	}
	if err := checkCard(&c); err != nil {
		return nil, fmt.Errorf("mcphttp: server card: %v", err)
	}
	body, err := json.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("mcphttp: server card: %v", err)
	}
	sum := sha256.Sum256(body)
	return &cardHandler{body: body, etag: `"` + hex.EncodeToString(sum[:16]) + `"`}, nil
}

// fillFromInfo puts what the server says of itself in the card.
func fillFromInfo(c *serverCard, info mcp.Implementation) {
	if cardName.MatchString(info.Name) {
		c.Name = info.Name
	}
	if info.Version != "" {
		c.Version = info.Version
	}
	if info.Title != "" && utf8.RuneCountInString(info.Title) <= 100 {
		c.Title = info.Title
	}
	if info.Description != "" && utf8.RuneCountInString(info.Description) <= 100 {
		c.Description = info.Description
	}
	if info.WebsiteURL != "" {
		c.WebsiteURL = info.WebsiteURL
	}
	for i := range c.Remotes {
		if len(c.Remotes[i].SupportedProtocolVersions) == 0 {
			c.Remotes[i].SupportedProtocolVersions = servedVersions(c.Remotes[i].Type)
		}
	}
}

// servedVersions are the revisions this package serves over a transport:
// every one over Streamable HTTP, the legacy ones over HTTP+SSE.
func servedVersions(transport string) []string {
	if transport == "sse" {
		return slices.Clone(mcp.LegacyVersions)
	}
	return slices.Concat(mcp.LegacyVersions, mcp.ModernVersions)
}

func checkCard(c *serverCard) error {
	switch n := utf8.RuneCountInString(c.Description); {
	case c.Schema != ServerCardSchema:
		return fmt.Errorf("$schema is %q, want %q", c.Schema, ServerCardSchema)
	case len(c.Name) < 3 || len(c.Name) > 200 || !cardName.MatchString(c.Name):
		return fmt.Errorf("name %q is not in reverse-DNS form with one slash (io.github.you/notes)", c.Name)
	case c.Version == "" || len(c.Version) > 255:
		return errors.New("version is empty or longer than 255 bytes")
	case n == 0 || n > 100:
		return fmt.Errorf("description has %d characters, want 1 to 100", n)
	}
	for _, r := range c.Remotes {
		if r.Type != "streamable-http" && r.Type != "sse" {
			return fmt.Errorf("remote %q has type %q, want streamable-http or sse", r.URL, r.Type)
		}
		if !strings.HasPrefix(r.URL, "https://") && !strings.HasPrefix(r.URL, "http://") && !strings.HasPrefix(r.URL, "{") {
			return fmt.Errorf("remote url %q starts with neither http://, https:// nor a {variable}", r.URL)
		}
	}
	return nil
}

// cardHandler serves one encoded card.
type cardHandler struct {
	body []byte
	etag string
}

func (h *cardHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Access-Control-Allow-Origin", "*")
	hd.Set("Access-Control-Allow-Methods", "GET")
	hd.Set("Access-Control-Allow-Headers", "Content-Type, If-None-Match")
	hd.Set("Access-Control-Expose-Headers", "ETag")
	switch r.Method {
	case http.MethodOptions:
		w.WriteHeader(http.StatusNoContent)
		return
	case http.MethodGet, http.MethodHead:
	default:
		hd.Set("Allow", "GET, HEAD, OPTIONS")
		http.Error(w, "a server card is read with GET", http.StatusMethodNotAllowed)
		return
	}
	hd.Set("Cache-Control", "public, max-age=3600")
	hd.Set("ETag", h.etag)
	if etagMatches(r.Header.Values("If-None-Match"), h.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	hd.Set("Content-Type", ServerCardMediaType)
	hd.Set("Content-Length", fmt.Sprint(len(h.body)))
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write(h.body)
}

// etagMatches reports whether If-None-Match values name etag (weakly, as
// RFC 9110 compares for If-None-Match) or are "*".
func etagMatches(values []string, etag string) bool {
	for _, v := range values {
		for tag := range strings.SplitSeq(v, ",") {
			tag = strings.TrimPrefix(strings.TrimSpace(tag), "W/")
			if tag == "*" || tag == etag {
				return true
			}
		}
	}
	return false
}
