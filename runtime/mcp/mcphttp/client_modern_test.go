package mcphttp_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttpclient"
)

// newModernFake returns a 2026-07-28-only server: server/discover succeeds,
// tools/call goes to tool, GET and DELETE get 405.
func newModernFake(t *testing.T, tool func(w http.ResponseWriter, r *http.Request, m clientTestMsg)) *clientFake {
	return newClientFake(t, func(w http.ResponseWriter, r *http.Request, m clientTestMsg) {
		switch {
		case r.Method != http.MethodPost:
			clientWriteJSON(w, http.StatusMethodNotAllowed, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Method Not Allowed"}}`)
		case m.Method == "server/discover":
			clientWriteJSON(w, http.StatusOK, clientResult(m, clientDiscoverResult))
		case m.Method == "tools/call":
			tool(w, r, m)
		default:
			clientWriteJSON(w, http.StatusNotFound, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"error":{"code":-32601,"message":"Method not found"}}`)
		}
	})
}

func TestClientModernHeaders(t *testing.T) {
	rpctest.CheckLeaks(t)
	f := newModernFake(t, func(w http.ResponseWriter, r *http.Request, m clientTestMsg) {
		clientWriteJSON(w, http.StatusOK, clientResult(m, clientToolResult))
	})
	ctx := context.Background()
	c := clientConnect(ctx, t, f.URL, &mcphttpclient.Options{Header: http.Header{"Authorization": {"Bearer t0ken"}}})
	if !c.Modern() || c.ProtocolVersion() != mcp.Version20260728 {
		t.Fatalf("connected with %s, want 2026-07-28", c.ProtocolVersion())
	}
	names := []string{"add", "héllo wörld", " padded", "=?base64?literal?=", "tab\there"}
	for _, name := range names {
		var sum clientSum
		if err := c.CallTool(ctx, name, map[string]int{"a": 1, "b": 2}, &sum); err != nil || sum.Sum != 3 {
			t.Fatalf("CallTool(%q) = %v, %v", name, sum, err)
		}
	}
	for _, s := range f.requests() {
		h := s.Header
		want := map[string]string{
			"Content-Type":         "application/json",
			"Accept":               "application/json, text/event-stream",
			"Mcp-Protocol-Version": s.Msg.metaVersion(),
			"Mcp-Method":           s.Msg.Method,
			"Authorization":        "Bearer t0ken",
		}
		for k, v := range want {
			if got := h.Get(k); got != v || v == "" {
				t.Errorf("%s: header %s = %q, want %q", s.Msg.Method, k, got, v)
			}
		}
		if h.Get("Mcp-Session-Id") != "" {
			t.Errorf("%s: a modern request carries Mcp-Session-Id", s.Msg.Method)
		}
		if s.Msg.Method != "tools/call" {
			if _, ok := h["Mcp-Name"]; ok {
				t.Errorf("%s carries Mcp-Name", s.Msg.Method)
			}
			continue
		}
		got := h.Get("Mcp-Name")
		if enc, ok := strings.CutPrefix(got, "=?base64?"); ok {
			b, err := base64.StdEncoding.DecodeString(strings.TrimSuffix(enc, "?="))
			if err != nil {
				t.Errorf("Mcp-Name %q: %v", got, err)
			}
			got = string(b)
			if name := s.Msg.param("name"); name == "add" {
				t.Errorf("Mcp-Name for %q is encoded", name)
			}
		}
		if name := s.Msg.param("name"); got != name {
			t.Errorf("Mcp-Name = %q, want %q", got, name)
		}
	}
	if got := len(f.find(http.MethodPost, "tools/call")); got != len(names) {
		t.Errorf("%d tools/call POSTs, want %d", got, len(names))
	}
	if c.Close(); len(f.find(http.MethodDelete, "")) != 0 {
		t.Error("Close sent DELETE with no session")
	}
}

func TestClientModernStream(t *testing.T) {
	rpctest.CheckLeaks(t)
	f := newModernFake(t, func(w http.ResponseWriter, r *http.Request, m clientTestMsg) {
		ev := clientEvents(w)
		tok := clientProgressTokenOf(m)
		for i := 1; i <= 3; i++ {
			ev("", "", "", clientProgress(tok, i))
			io.WriteString(w, ":\n\n") // keep-alive comment
		}
		ev("", "", "", `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}`)
		ev("", "", "", `{"jsonrpc":"2.0","id":999,"result":{}}`) // not ours: dropped
		ev("", "", "", clientResult(m, clientToolResult))
	})
	var logs []string
	ctx := context.Background()
	c, err := mcphttpclient.Connect(ctx, f.URL, &mcphttpclient.Options{MCP: mcpclient.Options{
		OnLog: func(l mcp.LogMessage) { logs = append(logs, string(l.Data)) },
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var got []float64
	res, err := c.CallToolRaw(ctx, mcp.CallToolParams{Name: "progress", OnProgress: func(p mcp.ProgressNotification) {
		got = append(got, p.Progress)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []float64{1, 2, 3}) || string(res.StructuredContent) != `{"sum":3}` {
		t.Errorf("progress %v, result %s", got, res.StructuredContent)
	}
	if !slices.Equal(logs, []string{`"hi"`}) {
		t.Errorf("logs %v", logs)
	}
}

func TestClientModernCancel(t *testing.T) {
	rpctest.CheckLeaks(t)
	gone := make(chan struct{})
	f := newModernFake(t, func(w http.ResponseWriter, r *http.Request, m clientTestMsg) {
		ev := clientEvents(w)
		ev("", "", "", clientProgress(clientProgressTokenOf(m), 1))
		<-r.Context().Done()
		close(gone)
	})
	c := clientConnect(context.Background(), t, f.URL, nil)
	cancelOnProgress(t, c)
	select {
	case <-gone:
	case <-time.After(10 * time.Second):
		t.Fatal("the server never saw its response stream closed")
	}
	if n := len(f.find(http.MethodPost, "notifications/cancelled")); n != 0 {
		t.Errorf("%d notifications/cancelled sent in 2026-07-28", n)
	}
}

// TestClientModernStreamEnds: a 2026-07-28 stream that ends before the
// response fails the call; it is not resumed.
func TestClientModernStreamEnds(t *testing.T) {
	rpctest.CheckLeaks(t)
	f := newModernFake(t, func(w http.ResponseWriter, r *http.Request, m clientTestMsg) {
		ev := clientEvents(w)
		ev("e1", "1", "", clientProgress(clientProgressTokenOf(m), 1))
	})
	c := clientConnect(context.Background(), t, f.URL, nil)
	err := c.CallTool(context.Background(), "cut", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "ended before the response") {
		t.Errorf("err = %v", err)
	}
	if n := len(f.find(http.MethodGet, "")); n != 0 {
		t.Errorf("%d GETs to resume a 2026-07-28 stream", n)
	}
}

// TestClientSynthesizedErrors checks what RoundTrip makes of HTTP answers
// that are not JSON-RPC, and of error statuses with JSON-RPC bodies.
func TestClientSynthesizedErrors(t *testing.T) {
	rpctest.CheckLeaks(t)
	f := newClientFake(t, func(w http.ResponseWriter, r *http.Request, m clientTestMsg) {
		if m.ID == nil {
			clientWriteJSON(w, http.StatusBadRequest, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"not now"}}`)
			return
		}
		switch m.param("name") {
		case "mismatch":
			clientWriteJSON(w, http.StatusBadRequest, `{"jsonrpc":"2.0","id":null,"error":{"code":-32020,"message":"Header mismatch"}}`)
		case "html":
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, "<html>hello</html>")
		case "notrpc":
			clientWriteJSON(w, http.StatusOK, `{"hello":"world"}`)

		default:
			http.Error(w, "no", http.StatusMethodNotAllowed)
		}
	})
	tr := mcphttpclient.NewStreamableTransport(f.URL, nil)
	defer tr.Close()
	cases := []struct {
		name string
		code int64
		msg  string
	}{
		{"plain", runtime.CodeInvalidRequest, "HTTP 405 Method Not Allowed"},
		{"mismatch", mcp.CodeHeaderMismatch, "Header mismatch"},
		{"html", runtime.CodeInvalidRequest, "HTTP 200 OK with Content-Type \"text/html\""},
		{"notrpc", runtime.CodeInvalidRequest, "HTTP 200 OK with a body that is no JSON-RPC response"},
	}
	for _, tc := range cases {
		msg := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + tc.name + `"}}`
		reply, err := tr.RoundTrip(context.Background(), 7, []byte(msg), func([]byte) { t.Error("unexpected incoming message") })
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var resp struct {
			ID    int64         `json:"id"`
			Error runtime.Error `json:"error"`
		}
		if err := json.Unmarshal(reply, &resp); err != nil || resp.ID != 7 || resp.Error.Code != tc.code || resp.Error.Message != tc.msg {
			t.Errorf("%s: reply %s (%v)", tc.name, reply, err)
		}
	}
	// A notification the server refuses is an error naming the status.
	err := tr.Send(context.Background(), []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	if err == nil || !strings.Contains(err.Error(), "HTTP 400 Bad Request: jsonrpc: not now") {
		t.Errorf("Send = %v", err)
	}
	// The handshake gives up with the status in its error.
	_, err = mcphttpclient.Connect(context.Background(), f.URL, &mcphttpclient.Options{Transport: "streamable"})
	if err == nil || !strings.Contains(err.Error(), "HTTP 405 Method Not Allowed") {
		t.Errorf("mcphttpclient.Connect = %v, want an error naming HTTP 405", err)
	}
	// In auto mode it tries HTTP+SSE too, and names both failures.
	_, err = mcphttpclient.Connect(context.Background(), f.URL, nil)
	if err == nil || !strings.Contains(err.Error(), "HTTP+SSE") || !strings.Contains(err.Error(), "Streamable HTTP") {
		t.Errorf("mcphttpclient.Connect = %v, want an error naming both transports", err)
	}
}

func TestClientNetworkError(t *testing.T) {
	rpctest.CheckLeaks(t)
	f := newClientFake(t, func(w http.ResponseWriter, r *http.Request, m clientTestMsg) {})
	url := f.URL
	f.Close()
	_, err := mcphttpclient.Connect(context.Background(), url, nil)
	var rpcErr *runtime.Error
	if err == nil || errors.As(err, &rpcErr) || strings.Contains(err.Error(), "HTTP+SSE") {
		t.Errorf("mcphttpclient.Connect to a closed port = %v, want a network error without SSE fallback", err)
	}
	if _, err := mcphttpclient.Connect(context.Background(), "ftp://example.com/", nil); err == nil {
		t.Error("mcphttpclient.Connect accepted an ftp URL")
	}
}

// TestClientCloseAbortsCalls: Close fails the calls in flight, in every
// transport.
func TestClientCloseAbortsCalls(t *testing.T) {
	for _, mode := range clientModes {
		t.Run(mode.name, func(t *testing.T) {
			rpctest.CheckLeaks(t)
			e := newClientE2E(t)
			opts := mode.opts
			c, err := mcphttpclient.Connect(context.Background(), e.url, &opts)
			if err != nil {
				t.Fatal(err)
			}
			started := make(chan struct{})
			done := make(chan error, 1)
			go func() {
				_, err := c.CallToolRaw(context.Background(), mcp.CallToolParams{Name: "block", Arguments: map[string]string{"label": "closed"},
					OnProgress: func(mcp.ProgressNotification) { close(started) }})
				done <- err
			}()
			<-started
			c.Close()
			select {
			case err := <-done:
				if !errors.Is(err, runtime.ErrClosed) {
					t.Errorf("call in flight at Close: %v", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Close did not end the call in flight")
			}
		})
	}
}
