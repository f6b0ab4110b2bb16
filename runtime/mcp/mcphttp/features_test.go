package mcphttp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/ask"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
	"github.com/rpcgen/rpcgen/runtime/sse"
)

// The HTTP transports carrying what is not a plain call: requests the
// server sends the client during a call (elicitation), messages unrelated
// to any request (resources/updated on the standalone and HTTP+SSE
// streams), 2026-07-28 subscriptions/listen streams, and the token subject
// as the principal of a call.

const featureURI = "test://feature"

// newFeatureServer returns a server with a tool asking the user for a name
// (elicitation) and a resource to subscribe to.
func newFeatureServer() *mcpserver.Server {
	srv := mcpserver.New(mcp.Implementation{Name: "f", Version: "1"}, nil)
	obj := json.RawMessage(`{"type":"object"}`)
	srv.AddTools(mcpserver.Tool{Name: "ask", InputSchema: obj, Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
		res, err := ask.Elicit(ctx, &mcp.ElicitParams{
			Message:         "Your name?",
			RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
		})
		if err != nil {
			return nil, err
		}
		var c struct{ Name string }
		_ = json.Unmarshal(res.Content, &c)
		return json.Marshal(map[string]string{"action": res.Action, "name": c.Name})
	}}, mcpserver.Tool{Name: "sample", InputSchema: obj, Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
		res, err := ask.Sample(ctx, &mcp.CreateMessageParams{
			Messages:  []mcp.SamplingMessage{{Role: "user", Content: mcp.TextContent("Say hi")}},
			MaxTokens: 10,
		})
		if err != nil {
			return nil, err
		}
		return json.Marshal(map[string]string{"model": res.Model, "text": res.Content.Text})
	}})
	srv.AddResources(mcpserver.Resource{URI: featureURI, Name: "feature", MIMEType: "text/plain",
		Handler: func(_ context.Context, req *mcpserver.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{URI: req.URI, MIMEType: "text/plain", Text: "v"}}, nil
		}})
	return srv
}

// newFeatureHarness serves newFeatureServer.
func newFeatureHarness(t *testing.T, opts *Options, h2 bool) (*harness, *mcpserver.Server) {
	t.Helper()
	srv := newFeatureServer()
	return newServerHarness(t, srv, opts, h2), srv
}

// newServerHarness serves srv on a real socket, over HTTP/2 (TLS) when h2,
// else HTTP/1.1.
func newServerHarness(t *testing.T, srv *mcpserver.Server, opts *Options, h2 bool) *harness {
	t.Helper()
	hn := &harness{t: t}
	hn.h = NewHandler(srv, opts)
	hn.ts = httptest.NewUnstartedServer(hn.h)
	if h2 {
		hn.ts.EnableHTTP2 = true
		hn.ts.StartTLS()
	} else {
		hn.ts.Start()
	}
	hn.client = hn.ts.Client()
	hn.url = hn.ts.URL + "/mcp"
	t.Cleanup(func() {
		hn.h.Close()
		hn.ts.Close()
	})
	return hn
}

// rpcMsg is a JSON-RPC message as a test reads it.
type rpcMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func parseMsg(t *testing.T, data string) rpcMsg {
	t.Helper()
	var m rpcMsg
	if err := json.Unmarshal([]byte(data), &m); err != nil {
		t.Fatalf("message %q: %v", data, err)
	}
	return m
}

// streamEvents reads the events of an event stream on a goroutine of its
// own; the channel is closed at the stream's end.
func streamEvents(t *testing.T, body io.ReadCloser) <-chan sse.Event {
	t.Helper()
	ch := make(chan sse.Event, 64)
	t.Cleanup(func() { body.Close() })
	go func() {
		defer close(ch)
		rd := sse.NewReader(body)
		for {
			e, err := rd.Next()
			if err != nil {
				return
			}
			ch <- e
		}
	}()
	return ch
}

// nextMsg returns the next event carrying a message, skipping priming
// events; it fails if none comes soon or the stream ends.
func nextMsg(t *testing.T, ch <-chan sse.Event, what string) (rpcMsg, sse.Event) {
	t.Helper()
	for {
		select {
		case e, ok := <-ch:
			if !ok {
				t.Fatalf("%s: the stream ended", what)
			}
			if e.Data == "" {
				continue
			}
			return parseMsg(t, e.Data), e
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: no event within 10s", what)
		}
	}
}

// wantEnd waits for the end of the stream, failing on any other message.
func wantEnd(t *testing.T, ch <-chan sse.Event, what string) {
	t.Helper()
	for {
		select {
		case e, ok := <-ch:
			if !ok {
				return
			}
			if e.Data != "" {
				t.Fatalf("%s: event %q, want the end of the stream", what, e.Data)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the stream did not end within 10s", what)
		}
	}
}

// initializeWith starts a legacy session at version declaring caps (a JSON
// object) and returns its id.
func (hn *harness) initializeWith(version, caps string, kv ...string) string {
	hn.t.Helper()
	r := hn.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+version+
		`","capabilities":`+caps+`,"clientInfo":{"name":"c","version":"1"}}}`, kv...)
	sid := r.header.Get("Mcp-Session-Id")
	if r.status != http.StatusOK || sid == "" {
		hn.t.Fatalf("initialize: %d %s", r.status, r.body)
	}
	kv = append(kv, "Mcp-Session-Id", sid)
	if r := hn.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, kv...); r.status != http.StatusAccepted {
		hn.t.Fatalf("notifications/initialized: %d %q", r.status, r.body)
	}
	return sid
}

// elicitAnswer is the client's answer to the elicitation/create request id.
func elicitAnswer(id json.RawMessage, name string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"action":"accept","content":{"name":%q}}}`, id, name)
}

// wantElicitation checks that m is an elicitation/create request of the
// "ask" tool.
func wantElicitation(t *testing.T, m rpcMsg) {
	t.Helper()
	if m.Method != "elicitation/create" || m.ID == nil || !strings.Contains(string(m.Params), "Your name?") {
		t.Fatalf("message %+v (params %s), want an elicitation/create request", m, m.Params)
	}
}

// wantAsked checks that m is the response id of the "ask" tool, with name.
func wantAsked(t *testing.T, m rpcMsg, id, name string) {
	t.Helper()
	if string(m.ID) != id || m.Error != nil || !strings.Contains(string(m.Result), `"name":"`+name+`"`) {
		t.Fatalf("response %s %s (error %+v), want id %s and name %q", m.ID, m.Result, m.Error, id, name)
	}
}
