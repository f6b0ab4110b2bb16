package mcphttp_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// These tests run the client transports against the package's own Handler
// over real sockets, in every era and transport it serves.

// clientAddArgs and clientAddResult are the typed arguments and result a
// generated client would use for the "add" tool.
type clientAddArgs struct {
	A int `json:"a"`
	B int `json:"b"`
}

type clientAddResult struct {
	Sum int `json:"sum"`
}

// clientE2E is a Handler serving the test tools on 127.0.0.1.
type clientE2E struct {
	h   *mcphttp.Handler
	url string

	cancelled chan string  // labels of "block" calls that saw their context end
	resumes   atomic.Int32 // GETs with Last-Event-ID

	mu      sync.Mutex
	methods map[string]int // requests by Mcp-Method header
}

// count returns the number of requests with Mcp-Method method.
func (e *clientE2E) count(method string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.methods[method]
}

func newClientE2E(t *testing.T) *clientE2E {
	e := &clientE2E{cancelled: make(chan string, 16), methods: map[string]int{}}
	srv := mcpserver.New(mcp.Implementation{Name: "e2e", Version: "1.0"}, nil)
	srv.AddTools(
		mcpserver.Tool{
			Name:         "add",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}`),
			OutputSchema: json.RawMessage(`{"type":"object","properties":{"sum":{"type":"integer"}}}`),
			Handler: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
				var a clientAddArgs
				if err := json.Unmarshal(args, &a); err != nil {
					return nil, runtime.InvalidParams("%v", err)
				}
				return json.Marshal(clientAddResult{a.A + a.B})
			},
		},
		mcpserver.Tool{Name: "progress", Handler: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			for i := 1; i <= 3; i++ {
				mcpserver.Progress(ctx, float64(i), 3, "step")
			}
			return json.RawMessage(`{"sum":6}`), nil
		}},
		// poll ends its stream's connection midway (2025-11-25 polling): the
		// client resumes and must see every message once.
		mcpserver.Tool{Name: "poll", Handler: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			mcpserver.Progress(ctx, 1, 3, "before")
			mcpserver.CloseStream(ctx)
			mcpserver.Progress(ctx, 2, 3, "after")
			mcpserver.Progress(ctx, 3, 3, "after")
			return json.RawMessage(`{"sum":6}`), nil
		}},
		mcpserver.Tool{Name: "log", Handler: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			mcpserver.Log(ctx, mcp.LevelWarning, "e2e", "careful")
			return json.RawMessage(`{"sum":0}`), nil
		}},
		mcpserver.Tool{Name: "block", Handler: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			var a struct{ Label string }
			json.Unmarshal(args, &a)
			mcpserver.Progress(ctx, 1, 0, "started")
			select {
			case <-ctx.Done():
				e.cancelled <- a.Label
			case <-time.After(20 * time.Second):
			}
			return json.RawMessage(`{"sum":-1}`), nil
		}},
		// region mirrors arguments into Mcp-Param-* headers (2026-07-28).
		mcpserver.Tool{
			Name: "region",
			InputSchema: json.RawMessage(`{"type":"object","properties":{
				"region":{"type":"string","x-mcp-header":"Region"},
				"n":{"type":"integer","x-mcp-header":"N"},
				"where":{"type":"object","properties":{"zone":{"type":"string","x-mcp-header":"Zone"}}}}}`),
			Handler: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
				return json.RawMessage(`{"sum":1}`), nil
			},
		},
		// bad's annotation is invalid (a number): 2026-07-28 clients hide it.
		mcpserver.Tool{
			Name:        "bad",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"number","x-mcp-header":"X"}}}`),
			Handler: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
				return json.RawMessage(`{"sum":1}`), nil
			},
		},
	)
	e.h = mcphttp.NewHandler(srv, &mcphttp.Options{RetryInterval: 10 * time.Millisecond})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.Header.Get("Last-Event-Id") != "" {
			e.resumes.Add(1)
		}
		if m := r.Header.Get("Mcp-Method"); m != "" {
			e.mu.Lock()
			e.methods[m]++
			e.mu.Unlock()
		}
		e.h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		e.h.Close()
		hs.Close()
	})
	e.url = hs.URL
	return e
}

// waitSessions waits until the handler holds n legacy sessions.
func (e *clientE2E) waitSessions(t *testing.T, n int) {
	t.Helper()
	e.h.WaitUntil(t, "the handler holds the sessions wanted", func() bool { return e.h.SessionCount() == n })
}

// clientModes are the ways a client reaches the Handler.
var clientModes = []struct {
	name     string
	opts     mcphttpclient.Options
	version  string
	sessions int // legacy sessions while connected
}{
	{"auto", mcphttpclient.Options{}, mcp.Version20260728, 0},
	{"streamable-2025-11-25", mcphttpclient.Options{MCP: mcpclient.Options{ProtocolVersion: mcp.Version20251125}}, mcp.Version20251125, 1},
	{"streamable-2025-03-26", mcphttpclient.Options{Transport: "streamable", MCP: mcpclient.Options{ProtocolVersion: mcp.Version20250326}}, mcp.Version20250326, 1},
	{"sse", mcphttpclient.Options{Transport: "sse"}, mcp.Version20251125, 1},
	{"sse-2024-11-05", mcphttpclient.Options{Transport: "sse", MCP: mcpclient.Options{ProtocolVersion: mcp.Version20241105}}, mcp.Version20241105, 1},
}

func TestClientEndToEnd(t *testing.T) {
	for _, mode := range clientModes {
		t.Run(mode.name, func(t *testing.T) {
			rpctest.CheckLeaks(t)
			e := newClientE2E(t)
			var (
				logMu sync.Mutex
				logs  []string
			)
			opts := mode.opts
			opts.MCP.OnLog = func(l mcp.LogMessage) {
				logMu.Lock()
				logs = append(logs, string(l.Data))
				logMu.Unlock()
			}
			ctx := context.Background()
			c, err := mcphttpclient.Connect(ctx, e.url, &opts)
			if err != nil {
				t.Fatal(err)
			}
			if c.ProtocolVersion() != mode.version || c.ServerInfo().Name != "e2e" {
				t.Errorf("connected with %s to %v, want %s", c.ProtocolVersion(), c.ServerInfo(), mode.version)
			}
			if n := e.h.SessionCount(); n != mode.sessions {
				t.Errorf("%d sessions while connected, want %d", n, mode.sessions)
			}

			// A typed call, as generated clients make.
			var sum clientAddResult
			if err := c.CallTool(ctx, "add", clientAddArgs{A: 2, B: 40}, &sum); err != nil || sum.Sum != 42 {
				t.Errorf("add = %v, %v", sum, err)
			}
			var rpcErr *runtime.Error
			if err := c.CallTool(ctx, "nope", nil, nil); !errors.As(err, &rpcErr) {
				t.Errorf("unknown tool: %v", err)
			}
			tools, err := c.ListTools(ctx)
			if want := 7 - btoi(c.Modern()); err != nil || len(tools) != want {
				t.Errorf("ListTools: %d tools, %v; want %d", len(tools), err, want)
			}

			// Progress arrives in order, once, before the result; also
			// across a stream the server closes midway.
			for _, tool := range []string{"progress", "poll"} {
				var got []float64
				res, err := c.CallToolRaw(ctx, mcp.CallToolParams{Name: tool, OnProgress: func(p mcp.ProgressNotification) {
					got = append(got, p.Progress)
				}})
				if err != nil {
					t.Fatalf("%s: %v", tool, err)
				}
				result := string(res.StructuredContent)
				if mode.version < mcp.Version20250618 && len(res.Content) > 0 {
					result = res.Content[0].Text // no structured results yet
				}
				if !slices.Equal(got, []float64{1, 2, 3}) || result != `{"sum":6}` {
					t.Errorf("%s: progress %v, result %s", tool, got, result)
				}
			}

			// Polling (CloseStream) is new in 2025-11-25.
			if resumed := e.resumes.Load() > 0; resumed != (mode.version == mcp.Version20251125 && mode.opts.Transport != "sse") {
				t.Errorf("resumed a stream: %v", resumed)
			}

			if err := c.SetLogLevel(ctx, "info"); err != nil {
				t.Fatal(err)
			}
			if err := c.CallTool(ctx, "log", nil, nil); err != nil {
				t.Fatal(err)
			}
			logMu.Lock()
			if !slices.Equal(logs, []string{`"careful"`}) {
				t.Errorf("logs %v", logs)
			}
			logMu.Unlock()

			// Cancellation reaches the tool.
			cctx, cancel := context.WithCancel(ctx)
			_, err = c.CallToolRaw(cctx, mcp.CallToolParams{Name: "block", Arguments: map[string]string{"label": mode.name},
				OnProgress: func(mcp.ProgressNotification) { cancel() }})
			if !errors.Is(err, context.Canceled) {
				t.Errorf("cancelled call: %v", err)
			}
			select {
			case label := <-e.cancelled:
				if label != mode.name {
					t.Errorf("cancelled %q", label)
				}
			case <-time.After(10 * time.Second):
				t.Error("the tool never saw the cancellation")
			}
			// The connection still works after a cancellation.
			if err := c.CallTool(ctx, "add", clientAddArgs{A: 1, B: 1}, &sum); err != nil || sum.Sum != 2 {
				t.Errorf("add after cancel = %v, %v", sum, err)
			}

			if err := c.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			e.waitSessions(t, 0)
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestClientParamHeaders: a 2026-07-28 tool with x-mcp-header parameters
// works whether or not the client listed the tools first.
func TestClientParamHeaders(t *testing.T) {
	rpctest.CheckLeaks(t)
	e := newClientE2E(t)
	ctx := context.Background()
	c := clientConnect(ctx, t, e.url, nil)
	args := map[string]any{"region": "Zürich ", "n": 7, "where": map[string]string{"zone": "=?base64?x?="}}
	var sum clientAddResult
	if err := c.CallTool(ctx, "region", args, &sum); err != nil || sum.Sum != 1 {
		t.Fatalf("region before tools/list: %v, %v", sum, err)
	}
	if n := e.count("tools/list"); n != 1 {
		t.Errorf("%d tools/list to learn the parameters, want 1", n)
	}
	for _, args := range []map[string]any{args, {"region": nil}, {}} {
		if err := c.CallTool(ctx, "region", args, nil); err != nil {
			t.Errorf("region %v: %v", args, err)
		}
	}
	if n, calls := e.count("tools/list"), e.count("tools/call"); n != 1 || calls != 5 {
		t.Errorf("%d tools/list and %d tools/call, want 1 and 5", n, calls)
	}
	tools, err := c.ListTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools {
		if tool.Name == "bad" {
			t.Error("tools/list kept a tool with an invalid x-mcp-header")
		}
	}
}

// TestClientEndToEndConcurrent runs calls with progress from many
// goroutines over each transport: every response reaches its own call.
func TestClientEndToEndConcurrent(t *testing.T) {
	for _, mode := range clientModes {
		t.Run(mode.name, func(t *testing.T) {
			rpctest.CheckLeaks(t)
			e := newClientE2E(t)
			opts := mode.opts
			c := clientConnect(context.Background(), t, e.url, &opts)
			var wg sync.WaitGroup
			for g := range 16 {
				wg.Go(func() {
					for i := range 10 {
						var sum clientAddResult
						if err := c.CallTool(context.Background(), "add", clientAddArgs{A: g, B: i}, &sum); err != nil || sum.Sum != g+i {
							t.Errorf("add(%d, %d) = %v, %v", g, i, sum, err)
							return
						}
						var got []float64
						if _, err := c.CallToolRaw(context.Background(), mcp.CallToolParams{Name: "progress", OnProgress: func(p mcp.ProgressNotification) {
							got = append(got, p.Progress)
						}}); err != nil || !slices.Equal(got, []float64{1, 2, 3}) {
							t.Errorf("progress %v, %v", got, err)
							return
						}
					}
				})
			}
			wg.Wait()
		})
	}
}
