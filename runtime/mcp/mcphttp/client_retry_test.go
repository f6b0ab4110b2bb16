package mcphttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// Retries the types allow, over real sockets: a server that drops the
// connection in the middle of a call (the call runs, its response never
// comes), or answers 503, the first time.

// retryServer counts the runs of a read-only tool, "lookup", and of one with
// no hints, "charge".
type retryServer struct {
	srv          *mcpserver.Server
	lookups      atomic.Int32
	charges      atomic.Int32
	mu           sync.Mutex
	dropped      map[string]bool // the calls (method or tool) dropped once
	drop, refuse map[string]bool // what to drop mid-call, and answer 503, once
}

func newRetryServer() *retryServer {
	rs := &retryServer{dropped: map[string]bool{}, drop: map[string]bool{}, refuse: map[string]bool{}}
	rs.srv = mcpserver.New(mcp.Implementation{Name: "retry", Version: "1"}, nil)
	obj := json.RawMessage(`{"type":"object"}`)
	rs.srv.AddTools(
		mcpserver.Tool{Name: "lookup", InputSchema: obj, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(true)},
			Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) {
				return json.Marshal(map[string]int32{"lookups": rs.lookups.Add(1)})
			}},
		mcpserver.Tool{Name: "charge", InputSchema: obj,
			Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) {
				return json.Marshal(map[string]int32{"charges": rs.charges.Add(1)})
			}},
	)
	return rs
}

// wrap returns h, failing the first request for each name in rs.drop (the
// handler runs it into a recorder, then the connection is closed with no
// response) and in rs.refuse (503, not run).
func (rs *retryServer) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			h.ServeHTTP(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var msg struct {
			Method string
			Params struct{ Name string }
		}
		_ = json.Unmarshal(body, &msg)
		key := msg.Method
		if msg.Params.Name != "" {
			key = msg.Params.Name
		}
		rs.mu.Lock()
		first := !rs.dropped[key]
		drop, refuse := first && rs.drop[key], first && rs.refuse[key]
		if drop || refuse {
			rs.dropped[key] = true
		}
		rs.mu.Unlock()
		switch {
		case refuse:
			http.Error(w, "busy", http.StatusServiceUnavailable)
		case drop:
			h.ServeHTTP(httptest.NewRecorder(), r) // the call runs
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				conn.Close()
			}
		default:
			h.ServeHTTP(w, r)
		}
	})
}

func TestClientRetries(t *testing.T) {
	for _, version := range []string{mcp.Version20251125, mcp.Version20260728} {
		t.Run(version, func(t *testing.T) {
			rpctest.CheckLeaks(t)
			rs := newRetryServer()
			rs.drop["lookup"], rs.drop["charge"] = true, true
			rs.refuse["tools/list"], rs.refuse["resources/read"] = true, true
			h := NewHandler(rs.srv, nil)
			t.Cleanup(func() { h.Close() })
			ts := httptest.NewServer(rs.wrap(h))
			t.Cleanup(ts.Close)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			c, err := mcphttpclient.Connect(ctx, ts.URL+"/mcp", &mcphttpclient.Options{Transport: "streamable", MCP: mcpclient.Options{
				ProtocolVersion: version,
				Retry:           runtime.RetryPolicy{MinDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond},
			}})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()

			// A read-only tool, dropped mid-call once, is tried again (the
			// client lists the tools to learn it is read-only: tools/list,
			// refused with 503 once, is tried again too).
			var got struct{ Lookups int32 }
			if err := c.CallTool(ctx, "lookup", nil, &got); err != nil {
				t.Fatalf("lookup: %v", err)
			}
			if got.Lookups != 2 || rs.lookups.Load() != 2 {
				t.Errorf("lookup ran %d times, returned run %d; want 2 and 2", rs.lookups.Load(), got.Lookups)
			}

			// A tool with no hints is not: the caller learns it may have run.
			err = c.CallTool(ctx, "charge", nil, nil)
			if !errors.Is(err, runtime.ErrConnectionLost) || !errors.Is(err, mcpclient.ErrNotIdempotent) {
				t.Errorf("charge: %v, want ErrConnectionLost and ErrNotIdempotent", err)
			}
			if n := rs.charges.Load(); n != 1 {
				t.Errorf("charge ran %d times, want 1", n)
			}

			// resources/read, refused with 503 once, is tried again: the
			// second try gets the server's answer (no such resource), an
			// error response, which is not retried.
			if _, err := c.ReadResource(ctx, "test://none"); !errors.As(err, new(*runtime.Error)) {
				t.Errorf("resources/read of an unknown resource: %v, want the server's error", err)
			}

			// WithoutRetry: one try only.
			rs.mu.Lock()
			delete(rs.dropped, "lookup")
			rs.mu.Unlock()
			err = c.CallTool(runtime.WithoutRetry(ctx), "lookup", nil, &got)
			if !errors.Is(err, runtime.ErrConnectionLost) {
				t.Errorf("lookup under WithoutRetry: %v, want ErrConnectionLost", err)
			}
			if errors.Is(err, mcpclient.ErrNotIdempotent) {
				t.Errorf("lookup under WithoutRetry blames the tool: %v", err)
			}
			if n := rs.lookups.Load(); n != 3 {
				t.Errorf("lookup ran %d times in all, want 3", n)
			}
		})
	}
}

// Attempts 1 turns retries off for every call of the client.
func TestClientRetriesOff(t *testing.T) {
	rpctest.CheckLeaks(t)
	rs := newRetryServer()
	rs.refuse["tools/list"] = true
	h := NewHandler(rs.srv, nil)
	t.Cleanup(func() { h.Close() })
	ts := httptest.NewServer(rs.wrap(h))
	t.Cleanup(ts.Close)
	ctx := context.Background()
	c, err := mcphttpclient.Connect(ctx, ts.URL+"/mcp", &mcphttpclient.Options{Transport: "streamable", MCP: mcpclient.Options{
		ProtocolVersion: mcp.Version20251125,
		Retry:           runtime.RetryPolicy{Attempts: 1},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.ListTools(ctx); !errors.Is(err, runtime.ErrConnectionLost) {
		t.Fatalf("tools/list after a 503: %v, want ErrConnectionLost", err)
	}
	if tools, err := c.ListTools(ctx); err != nil || len(tools) != 2 {
		t.Fatalf("tools/list again: %v, %v", tools, err)
	}
}

// A tool the caller declares retry-safe (as a generated typed client does
// for the tools its directives mark idempotent or read-only) is tried again
// after a drop without listing the tools, whatever tools/list would say.
func TestClientRetriesDeclared(t *testing.T) {
	rpctest.CheckLeaks(t)
	rs := newRetryServer()
	rs.drop["charge"] = true
	rs.refuse["tools/list"] = true // would show up as a second try
	h := NewHandler(rs.srv, nil)
	t.Cleanup(func() { h.Close() })
	ts := httptest.NewServer(rs.wrap(h))
	t.Cleanup(ts.Close)
	ctx := context.Background()
	c, err := mcphttpclient.Connect(ctx, ts.URL+"/mcp", &mcphttpclient.Options{Transport: "streamable", MCP: mcpclient.Options{
		ProtocolVersion: mcp.Version20251125,
		Retry:           runtime.RetryPolicy{MinDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	mcp.DeclareRetrySafe(c, "charge")
	var got struct{ Charges int32 }
	if err := c.CallTool(ctx, "charge", nil, &got); err != nil || got.Charges != 2 {
		t.Fatalf("charge: run %d, %v; want run 2", got.Charges, err)
	}
	rs.mu.Lock()
	listed := rs.dropped["tools/list"]
	rs.mu.Unlock()
	if listed {
		t.Error("the client listed the tools")
	}
}
