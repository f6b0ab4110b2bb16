package mcphttp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
	"github.com/rpcgen/rpcgen/runtime/sse"
)

// FuzzHandler sends the Handler one request of any method, headers and body
// and checks every byte it writes: a body is empty, the HTTP+SSE transport's
// "Accepted", a JSON-RPC response (or a batch of them), or an event stream
// whose every message is a JSON-RPC message. An error status always carries a
// JSON-RPC error. Streams end as soon as their first event is out (the
// writer cancels the request), so no input holds the fuzzer.
//
//	go test -run '^$' -fuzz FuzzHandler -fuzztime 10m ./runtime/mcp/mcphttp
func FuzzHandler(f *testing.F) {
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	modern := "MCP-Protocol-Version: 2026-07-28\nMcp-Method: tools/call\nMcp-Name: add\n"
	for _, s := range []struct{ method, headers, body string }{
		{"POST", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}`},
		{"POST", "", `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"}]`},
		{"POST", modern, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},` + meta + `}}`},
		{"POST", modern, `{"jsonrpc":"2.0","id":00,"method":"tools/call","params":{"name":"add",` + meta + `}}`},
		{"POST", "MCP-Protocol-Version: 2026-07-28\nMcp-Method: tools/list\n", `{"jsonrpc":"2.0","id":"a\u12","method":"tools/call","params":{` + meta + `}}`},
		{"POST", "MCP-Protocol-Version: 2026-07-28\nMcp-Method: tools/call\nMcp-Name: region\nMcp-Param-Region: =?base64?eA==?=\n",
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"region","arguments":{"region":"x"},` + meta + `}}`},
		{"POST", "MCP-Protocol-Version: 2026-07-28\nMcp-Method: tools/call\nMcp-Name: progress\n", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"progress","_meta":{"progressToken":1,"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`},
		{"POST", "MCP-Protocol-Version: 2026-07-28\nMcp-Method: subscriptions/listen\n", `{"jsonrpc":"2.0","id":4,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` + meta + `}}`},
		{"POST", "Mcp-Session-Id: nope\n", `{"jsonrpc":"2.0","id":1e5,"method":"ping"}`},
		{"POST", "Content-Type: text/plain\n", `{"jsonrpc":"2.0","id":1,"method":"ping"}`},
		{"POST", "Origin: http://evil.example\n", `{"jsonrpc":"2.0","id":1,"method":"ping"}`},
		{"POST", "Accept: text/html\n", `{}`},
		{"POST", "", `{"jsonrpc":"2.0","id":1,"method":`},
		{"GET", "Accept: text/event-stream\n", ""},
		{"GET", "Accept: text/event-stream\nMCP-Protocol-Version: 2026-07-28\n", ""},
		{"GET", "Mcp-Session-Id: x\nLast-Event-ID: 1\n", ""},
		{"DELETE", "Mcp-Session-Id: x\n", ""},
		{"OPTIONS", "", ""},
		{"PUT", "", "x"},
	} {
		f.Add(s.method, s.headers, []byte(s.body))
	}
	srv := fuzzServer()
	f.Fuzz(func(t *testing.T, method, headers string, body []byte) {
		if len(method) == 0 || len(method) > 16 || strings.ContainsAny(method, " \t\r\n/") {
			return // not a request line net/http would pass on
		}
		h := NewHandler(srv, &Options{MaxBodyBytes: 1 << 16})
		defer h.Close()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/mcp", bytes.NewReader(body))
		req.Method = method
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for line := range strings.SplitSeq(headers, "\n") {
			k, v, ok := strings.Cut(line, ":")
			if k = strings.TrimSpace(k); ok && k != "" && validHeaderName(k) {
				req.Header.Set(k, strings.TrimSpace(v))
			}
		}
		w := &fuzzWriter{ResponseRecorder: httptest.NewRecorder(), cancel: cancel}
		h.ServeHTTP(w, req)
		cancel()
		h.Close() // waits for calls that outlive the request
		status, hdr, out := w.snapshot()
		checkFuzzResponse(t, status, hdr, out)
	})
}

// fuzzServer has a quick tool, one that sends notifications and one whose
// arguments travel in Mcp-Param-* headers.
func fuzzServer() *mcpserver.Server {
	srv := mcpserver.New(mcp.Implementation{Name: "fuzz", Version: "1"}, nil)
	obj := json.RawMessage(`{"type":"object"}`)
	srv.AddTools(
		mcpserver.Tool{Name: "add", InputSchema: obj, Handler: func(_ context.Context, args json.RawMessage) (json.RawMessage, error) {
			return json.RawMessage(`{"sum":3}`), nil
		}},
		mcpserver.Tool{Name: "progress", InputSchema: obj, Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			mcpserver.Progress(ctx, 1, 2, "half")
			mcpserver.Log(ctx, mcp.LevelError, "f", "x")
			return json.RawMessage(`{"ok":true}`), nil
		}},
		mcpserver.Tool{Name: "region", InputSchema: json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"n":{"type":"integer","x-mcp-header":"N"}}}`),
			Handler: func(_ context.Context, args json.RawMessage) (json.RawMessage, error) { return args, nil }},
	)
	return srv
}

func validHeaderName(k string) bool {
	for i := 0; i < len(k); i++ {
		c := k[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// fuzzWriter records a response and ends the request once a stream has
// sent something, so a long-lived stream ends at once. It may be written by
// a call's goroutine while ServeHTTP runs, hence the lock.
type fuzzWriter struct {
	*httptest.ResponseRecorder
	mu     sync.Mutex
	cancel context.CancelFunc
}

func (w *fuzzWriter) Header() http.Header {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.ResponseRecorder.Header()
}

func (w *fuzzWriter) WriteHeader(code int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ResponseRecorder.WriteHeader(code)
}

func (w *fuzzWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.ResponseRecorder.Write(b)
}

func (w *fuzzWriter) Flush() {
	w.mu.Lock()
	w.ResponseRecorder.Flush()
	w.mu.Unlock()
	w.cancel()
}

func (w *fuzzWriter) snapshot() (int, http.Header, []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.Code, w.ResponseRecorder.Header().Clone(), bytes.Clone(w.Body.Bytes())
}

func checkFuzzResponse(t *testing.T, status int, hdr http.Header, body []byte) {
	t.Helper()
	ct := hdr.Get("Content-Type")
	switch {
	case strings.HasPrefix(ct, "text/event-stream"):
		if status != http.StatusOK {
			t.Fatalf("an event stream with status %d", status)
		}
		rd := sse.NewReader(bytes.NewReader(body))
		for {
			ev, err := rd.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				t.Fatalf("event stream: %v\n%s", err, body)
			}
			if ev.Data == "" || ev.Type == "endpoint" {
				continue
			}
			if err := checkJSONRPC([]byte(ev.Data), false); err != nil {
				t.Fatalf("event %q: %v", ev.Data, err)
			}
		}
	case len(body) == 0:
		if status >= 400 {
			t.Fatalf("status %d without a JSON-RPC error body", status)
		}
	case status == http.StatusAccepted && string(body) == "Accepted":
	default:
		if !strings.HasPrefix(ct, "application/json") {
			t.Fatalf("status %d, Content-Type %q: %q", status, ct, body)
		}
		if err := checkJSONRPC(body, true); err != nil {
			t.Fatalf("status %d: %v\n%s", status, err, body)
		}
		if status >= 400 && !bytes.Contains(body, []byte(`"error"`)) {
			t.Fatalf("status %d with a result: %s", status, body)
		}
	}
}

// checkJSONRPC checks that b is one valid JSON-RPC 2.0 message (a response
// only, when responseOnly) or a batch of responses.
func checkJSONRPC(b []byte, responseOnly bool) error {
	if !json.Valid(b) {
		return fmt.Errorf("not valid JSON")
	}
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '[' {
		var batch []json.RawMessage
		if err := json.Unmarshal(b, &batch); err != nil || len(batch) == 0 {
			return fmt.Errorf("a batch reply that is not a non-empty array")
		}
		for _, m := range batch {
			if err := checkJSONRPCMessage(m, true); err != nil {
				return err
			}
		}
		return nil
	}
	return checkJSONRPCMessage(b, responseOnly)
}

func checkJSONRPCMessage(b []byte, responseOnly bool) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("not a JSON object")
	}
	if string(m["jsonrpc"]) != `"2.0"` {
		return fmt.Errorf(`"jsonrpc" is %s`, m["jsonrpc"])
	}
	id, hasID := m["id"]
	if hasID && !responseID(id) {
		return fmt.Errorf("id %s is neither a string, an integer nor null", id)
	}
	if _, ok := m["method"]; ok && !responseOnly {
		var method string
		if json.Unmarshal(m["method"], &method) != nil {
			return fmt.Errorf("method %s", m["method"])
		}
		return nil
	}
	res, hasRes := m["result"]
	errObj, hasErr := m["error"]
	switch {
	case !hasID:
		return fmt.Errorf("a response without an id")
	case hasRes == hasErr:
		return fmt.Errorf("a response needs exactly one of result and error")
	case hasRes && len(res) == 0:
		return fmt.Errorf("empty result")
	case hasErr:
		var e struct {
			Code    *json.Number `json:"code"`
			Message *string      `json:"message"`
		}
		if json.Unmarshal(errObj, &e) != nil || e.Code == nil || e.Message == nil || strings.ContainsAny(e.Code.String(), ".eE") {
			return fmt.Errorf("error %s needs an integer code and a string message", errObj)
		}
	}
	return nil
}

// responseID reports whether a response may carry id: a string, an integer,
// or null (for a request whose id could not be read).
func responseID(id json.RawMessage) bool {
	if string(id) == "null" || len(id) > 0 && id[0] == '"' {
		return true
	}
	var n json.Number
	return json.Unmarshal(id, &n) == nil && !strings.ContainsAny(string(id), ".eE")
}
