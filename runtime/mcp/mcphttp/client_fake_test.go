package mcphttp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttpclient"
)

// These helpers build fake MCP servers out of plain http.Handlers, so the
// client tests can check the exact requests the transports send and answer
// them in ways the real server never would (dropped streams, bare error
// statuses, foreign endpoints).

// clientSeen is one HTTP request a fake server received.
type clientSeen struct {
	Method string // HTTP method
	Path   string // path and query
	Header http.Header
	Msg    clientTestMsg // the JSON-RPC message of a POST
}

// clientTestMsg is a JSON-RPC message, decoded loosely.
type clientTestMsg struct {
	ID     json.RawMessage            `json:"id"`
	Method string                     `json:"method"`
	Params map[string]json.RawMessage `json:"params"`
	Raw    []byte                     `json:"-"`
}

// metaVersion returns the modern protocol version in params._meta, or "".
func (m clientTestMsg) metaVersion() string {
	var meta map[string]json.RawMessage
	json.Unmarshal(m.Params["_meta"], &meta)
	var v string
	json.Unmarshal(meta[mcp.MetaProtocolVersion], &v)
	return v
}

// param returns params[key] decoded as a string.
func (m clientTestMsg) param(key string) string {
	var s string
	json.Unmarshal(m.Params[key], &s)
	return s
}

// clientFake is an httptest server that records every request and hands it
// to handle.
type clientFake struct {
	*httptest.Server
	mu   sync.Mutex
	seen []clientSeen
}

func newClientFake(t *testing.T, handle func(w http.ResponseWriter, r *http.Request, m clientTestMsg)) *clientFake {
	t.Helper()
	f := &clientFake{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m clientTestMsg
		if r.Method == http.MethodPost {
			body, err := io.ReadAll(r.Body)
			if err != nil {
				return
			}
			m.Raw = body
			if err := json.Unmarshal(body, &m); err != nil {
				t.Errorf("fake server: the client sent %q: %v", body, err)
			}
		}
		f.mu.Lock()
		f.seen = append(f.seen, clientSeen{r.Method, r.URL.RequestURI(), r.Header.Clone(), m})
		f.mu.Unlock()
		handle(w, r, m)
	}))
	t.Cleanup(f.Close)
	return f
}

// requests returns the requests seen so far.
func (f *clientFake) requests() []clientSeen {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]clientSeen(nil), f.seen...)
}

// find returns the requests with HTTP method httpMethod and, when rpcMethod
// is not "", that JSON-RPC method.
func (f *clientFake) find(httpMethod, rpcMethod string) []clientSeen {
	var out []clientSeen
	for _, s := range f.requests() {
		if s.Method == httpMethod && (rpcMethod == "" || s.Msg.Method == rpcMethod) {
			out = append(out, s)
		}
	}
	return out
}

// clientWriteJSON answers with a JSON body.
func clientWriteJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, body)
}

// clientResult returns the response to m with result.
func clientResult(m clientTestMsg, result string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, result)
}

// clientEvents starts an event stream; the returned function writes one
// event (fields "id", "retry", "event", "data" in that order, empty ones
// left out) and flushes it.
func clientEvents(w http.ResponseWriter) func(id, retry, event, data string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl := w.(http.Flusher)
	fl.Flush()
	return func(id, retry, event, data string) {
		var b strings.Builder
		if id != "" {
			fmt.Fprintf(&b, "id: %s\n", id)
		}
		if retry != "" {
			fmt.Fprintf(&b, "retry: %s\n", retry)
		}
		if event != "" {
			fmt.Fprintf(&b, "event: %s\n", event)
		}
		fmt.Fprintf(&b, "data: %s\n\n", data)
		io.WriteString(w, b.String())
		fl.Flush()
	}
}

// clientProgress returns a progress notification for token.
func clientProgress(token json.RawMessage, n int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%s,"progress":%d,"total":3}}`, token, n)
}

// clientProgressToken returns params._meta.progressToken of m.
func clientProgressTokenOf(m clientTestMsg) json.RawMessage {
	var meta map[string]json.RawMessage
	json.Unmarshal(m.Params["_meta"], &meta)
	return meta["progressToken"]
}

const (
	clientDiscoverResult = `{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"fake","version":"1"}}}`
	clientInitResult     = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"fake-legacy","version":"1"}}`
	clientToolResult     = `{"content":[{"type":"text","text":"{\"sum\":3}"}],"structuredContent":{"sum":3}}`
)

// clientSum is the typed result the fake tools return.
type clientSum struct {
	Sum int `json:"sum"`
}

// clientConnect connects to url with opts, failing the test on an error;
// the client is closed when the test ends.
func clientConnect(ctx context.Context, t *testing.T, url string, opts *mcphttpclient.Options) *mcpclient.Client {
	t.Helper()
	c, err := mcphttpclient.Connect(ctx, url, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// cancelOnProgress calls the tool "block" and cancels the call at its first
// progress notification: the call must fail with context.Canceled.
func cancelOnProgress(t *testing.T, c *mcpclient.Client) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := c.CallToolRaw(ctx, mcp.CallToolParams{Name: "block", OnProgress: func(mcp.ProgressNotification) { cancel() }})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}
