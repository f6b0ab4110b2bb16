package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

type mwLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *mwLog) add(format string, args ...any) {
	l.mu.Lock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
	l.mu.Unlock()
}

func (l *mwLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.lines)
}

// progressTool reports progress once and returns its arguments' "x", or
// fails or panics when asked to.
func progressTool(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
	var a struct{ X string }
	if err := json.Unmarshal(args, &a); err != nil {
		return nil, err
	}
	mcpserver.Progress(ctx, 1, 2, "half")
	switch a.X {
	case "fail":
		return nil, errors.New("it failed")
	case "panic":
		panic("tool bug")
	}
	return json.Marshal(map[string]string{"x": a.X})
}

// serverWithMiddleware has method middleware that logs every request with its
// session, its _meta traceparent and the notifications sent for it, and tool
// middleware that logs each call and refuses the tool "secret".
func serverWithMiddleware(log *mwLog) *mcpserver.Server {
	method := func(next runtime.Handler) runtime.Handler {
		return runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
			var p struct {
				Meta struct {
					Traceparent string `json:"traceparent"`
				} `json:"_meta"`
			}
			json.Unmarshal(req.Params, &p)
			ss := mcpserver.SessionFromContext(ctx)
			log.add("method> %s session=%v id=%q traceparent=%q", req.Method, ss != nil, ss.ID(), p.Meta.Traceparent)
			ctx = mcpserver.ObserveNotifications(ctx, func(m string, params json.RawMessage) {
				log.add("notify %s %s", m, params)
			})
			if req.Method == "ping" {
				panic("method middleware bug")
			}
			res, err := next.ServeRPC(ctx, req)
			log.add("method< %s err=%v", req.Method, err)
			return res, err
		})
	}
	tool := func(next mcpserver.ToolCallHandler) mcpserver.ToolCallHandler {
		return func(ctx context.Context, call *mcpserver.ToolCall) (json.RawMessage, error) {
			log.add("tool> %s %s principal=%q version=%s id=%s", call.Tool.Name, call.Arguments, call.Principal, call.ProtocolVersion, call.RequestID)
			if call.Tool.Name == "secret" {
				return nil, mcpserver.ProtocolError(runtime.NewError(-32003, "forbidden"))
			}
			res, err := next(ctx, call)
			log.add("tool< %s %s err=%v", call.Tool.Name, res, err)
			return res, err
		}
	}
	srv := mcpserver.New(mcp.Implementation{Name: "mw", Version: "1"}, &mcpserver.Options{
		Middleware:     []runtime.Middleware{method},
		ToolMiddleware: []mcpserver.ToolMiddleware{tool},
	})
	srv.AddTools(
		mcpserver.Tool{Name: "work", Handler: progressTool},
		mcpserver.Tool{Name: "secret", Handler: progressTool},
	)
	return srv
}

func TestServerMiddleware(t *testing.T) {
	var log mwLog
	srv := serverWithMiddleware(&log)
	t0 := srv.InProcess()
	t0.Control().SetID("s-1")
	ctx := mcpserver.WithPrincipal(context.Background(), "alice")
	c, err := mcpclient.ConnectTransport(ctx, t0, mcpclient.Options{ProtocolVersion: mcp.Version20251125})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := c.CallToolRaw(ctx, mcp.CallToolParams{Name: "work", Arguments: map[string]string{"x": "ok"}, OnProgress: func(mcp.ProgressNotification) {}})
	if err != nil || res.IsError {
		t.Fatalf("work: %+v, %v", res, err)
	}
	if err := c.CallTool(ctx, "work", map[string]string{"x": "panic"}, nil); !strings.Contains(fmt.Sprint(err), "internal error in tool work") {
		t.Fatalf("a panicking tool: %v", err)
	}
	var re *runtime.Error
	if err := c.CallTool(ctx, "secret", map[string]string{"x": "ok"}, nil); !errors.As(err, &re) || re.Code != -32003 {
		t.Fatalf("a refused tool: %v, want the protocol error -32003", err)
	}
	if err := c.Ping(ctx); !errors.As(err, &re) || re.Code != runtime.CodeInternalError {
		t.Fatalf("ping through panicking middleware: %v, want -32603", err)
	}
	if err := c.CallTool(ctx, "work", map[string]string{"x": "again"}, nil); err != nil {
		t.Fatalf("after the panics: %v", err)
	}
	got := strings.Join(log.all(), "\n")
	for _, want := range []string{
		`method> initialize session=true id="s-1" traceparent=""`,
		`method> notifications/initialized session=true`,
		`tool> work {"x":"ok"} principal="alice" version=2025-11-25 id=2`,
		`notify notifications/progress {"progressToken":2,"progress":1,"total":2,"message":"half"}`,
		`tool< work {"x":"ok"} err=<nil>`,
		`method< tools/call err=<nil>`,
		`tool> work {"x":"panic"}`,
		`tool> secret {"x":"ok"}`,
		`method> ping`,
		`tool< work {"x":"again"} err=<nil>`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the middleware log lacks %q:\n%s", want, got)
		}
	}
}

// Client middleware sees every request and notification, the handshake's
// too, adds _meta members the server receives, and hears progress.
func TestClientMiddleware(t *testing.T) {
	for _, version := range []string{mcp.Version20251125, mcp.Version20260728} {
		t.Run(version, func(t *testing.T) {
			var serverLog, clientLog mwLog
			srv := serverWithMiddleware(&serverLog)
			mw := func(next mcpclient.Handler) mcpclient.Handler {
				return func(ctx context.Context, req *mcpclient.Request) (json.RawMessage, error) {
					req.SetMeta("traceparent", "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01")
					req.OnNotification = func(m string, p json.RawMessage) { clientLog.add("heard %s", m) }
					res, err := next(ctx, req)
					clientLog.add("%s id=%s target=%q args=%s version=%q isError=%v err=%v", req.Method, req.ID, req.Target(), req.Arguments(), req.ProtocolVersion, mcpclient.ResultIsError(res), err)
					return res, err
				}
			}
			ctx := context.Background()
			c, err := mcpclient.ConnectTransport(ctx, srv.InProcess(), mcpclient.Options{ProtocolVersion: version, Middleware: []mcpclient.Middleware{mw}})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if _, err := c.CallToolRaw(ctx, mcp.CallToolParams{Name: "work", Arguments: map[string]string{"x": "ok"}, OnProgress: func(mcp.ProgressNotification) {}}); err != nil {
				t.Fatal(err)
			}
			var te *mcp.ToolError
			if err := c.CallTool(ctx, "work", map[string]string{"x": "fail"}, nil); !errors.As(err, &te) {
				t.Fatalf("a failing tool: %v", err)
			}
			got := strings.Join(clientLog.all(), "\n")
			wants := []string{
				`heard notifications/progress`,
				`tools/call id=2 target="work" args={"x":"ok"} version="` + version + `" isError=false err=<nil>`,
				`tools/call id=3 target="work" args={"x":"fail"} version="` + version + `" isError=true err=<nil>`,
			}
			if version == mcp.Version20251125 {
				wants = append(wants, `initialize id=1 target="" args= version="2025-11-25" isError=false err=<nil>`,
					`notifications/initialized id= target=""`)
			}
			for _, want := range wants {
				if !strings.Contains(got, want) {
					t.Errorf("the client middleware log lacks %q:\n%s", want, got)
				}
			}
			if s := strings.Join(serverLog.all(), "\n"); !strings.Contains(s, `method> tools/call session=true id="" traceparent="00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01"`) {
				t.Errorf("the server did not get the traceparent in _meta:\n%s", s)
			}
		})
	}
}

func TestSessionOnClose(t *testing.T) {
	ss := mcpserver.New(mcp.Implementation{Name: "x", Version: "1"}, nil).NewSession()
	n := 0
	ss.OnClose(func() { n++ })
	ss.Close()
	ss.Close()
	if n != 1 {
		t.Fatalf("OnClose ran %d times, want once", n)
	}
	ss.OnClose(func() { n++ })
	if n != 2 {
		t.Fatal("OnClose on an ended session did not run at once")
	}
}

// TestSessionFromContextEveryPath: method middleware finds its session over
// Handle (Server.InProcess, which carries it in Handle's own context) and over
// a stream (Serve), where it gets a context of its own.
func TestSessionFromContextEveryPath(t *testing.T) {
	var mu sync.Mutex
	var seen []*mcpserver.Session
	srv := mcpserver.New(mcp.Implementation{Name: "s", Version: "1"}, &mcpserver.Options{Middleware: []runtime.Middleware{
		func(next runtime.Handler) runtime.Handler {
			return runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
				mu.Lock()
				seen = append(seen, mcpserver.SessionFromContext(ctx))
				mu.Unlock()
				return next.ServeRPC(ctx, req)
			})
		}}})
	ctx := context.Background()
	t0 := srv.InProcess()
	ss := t0.Session()
	c, err := mcpclient.ConnectTransport(ctx, t0, mcpclient.Options{ProtocolVersion: mcp.Version20251125})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	c.Close()
	mu.Lock()
	for i, s := range seen {
		if s != ss {
			t.Errorf("over Handle, request %d: SessionFromContext = %p, want the session %p", i, s, ss)
		}
	}
	n := len(seen)
	mu.Unlock()

	sr, cw := io.Pipe()
	cr, sw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, runtime.NewFramer(runtime.NewlineDelimited, sr, sw, 0)) }()
	c, err = mcpclient.Connect(ctx, runtime.NewFramer(runtime.NewlineDelimited, cr, cw, 0), mcpclient.Options{ProtocolVersion: mcp.Version20251125})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	c.Close()
	cw.Close()
	<-done
	mu.Lock()
	defer mu.Unlock()
	if len(seen) == n {
		t.Fatal("over a stream, the middleware saw no request")
	}
	for i, s := range seen[n:] {
		if s == nil || s == ss {
			t.Errorf("over a stream, request %d: SessionFromContext = %p, want the stream's session", i, s)
		}
	}
}

// TestClientMiddlewareRequestSizes: a request through client middleware
// arrives whole whether its bytes fit in the request's own room or not, and
// a middleware appending to Params changes nothing that is sent.
func TestClientMiddlewareRequestSizes(t *testing.T) {
	srv := mcpserver.New(mcp.Implementation{Name: "s", Version: "1"}, nil)
	srv.AddTools(mcpserver.Tool{Name: "echo", Handler: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
		var a struct{ X string }
		if err := json.Unmarshal(args, &a); err != nil {
			return nil, err
		}
		return json.Marshal(map[string]string{"x": a.X})
	}})
	var seen []string
	mw := func(next mcpclient.Handler) mcpclient.Handler {
		return func(ctx context.Context, req *mcpclient.Request) (json.RawMessage, error) {
			if req.Method == "tools/call" {
				seen = append(seen, string(req.Arguments()))
				_ = append(req.Params, `,"x":"clobbered"}`...)
			}
			return next(ctx, req)
		}
	}
	ctx := context.Background()
	c, err := mcpclient.ConnectTransport(ctx, srv.InProcess(), mcpclient.Options{Middleware: []mcpclient.Middleware{mw}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, n := range []int{1, 100, 150, 200, 1000, 100000} {
		x := strings.Repeat("a", n)
		var out struct{ X string }
		if err := c.CallTool(ctx, "echo", map[string]string{"x": x}, &out); err != nil || out.X != x {
			t.Fatalf("%d bytes: got %d bytes back, %v", n, len(out.X), err)
		}
		if want := `{"x":"` + x + `"}`; seen[len(seen)-1] != want {
			t.Errorf("%d bytes: the middleware saw arguments of %d bytes", n, len(seen[len(seen)-1]))
		}
	}
}

// selfObserving is method middleware's context that observes the
// request's notifications itself (mcpserver.ObserverKey).
type selfObserving struct {
	context.Context
	log *mwLog
}

func (c *selfObserving) Value(key any) any {
	if _, ok := key.(mcpserver.ObserverKey); ok {
		return c
	}
	return c.Context.Value(key)
}

func (c *selfObserving) ObserveNotification(method string, params json.RawMessage) {
	c.log.add("notify %s %s", method, params)
}

// TestContextObservesNotifications: a context whose Value(ObserverKey{}) is
// a NotificationObserver sees the notifications sent for its request, as an
// Observer given to ObserveNotifications does.
func TestContextObservesNotifications(t *testing.T) {
	var log atomic.Pointer[mwLog]
	method := func(next runtime.Handler) runtime.Handler {
		return runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
			return next.ServeRPC(&selfObserving{Context: ctx, log: log.Load()}, req)
		})
	}
	srv := mcpserver.New(mcp.Implementation{Name: "mw", Version: "1"}, &mcpserver.Options{Middleware: []runtime.Middleware{method}})
	srv.AddTools(mcpserver.Tool{Name: "work", Handler: progressTool})
	for _, version := range []string{mcp.Version20251125, mcp.Version20260728} {
		log.Store(new(mwLog))
		c, err := mcpclient.ConnectTransport(context.Background(), srv.InProcess(), mcpclient.Options{ProtocolVersion: version})
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.CallToolRaw(context.Background(), mcp.CallToolParams{Name: "work", Arguments: map[string]string{"x": "ok"}, OnProgress: func(mcp.ProgressNotification) {}})
		c.Close()
		if err != nil || res.IsError {
			t.Fatalf("%s: work: %+v, %v", version, res, err)
		}
		got := slices.DeleteFunc(log.Load().all(), func(l string) bool { return !strings.HasPrefix(l, "notify ") })
		if len(got) != 1 || !strings.HasPrefix(got[0], "notify notifications/progress ") || !strings.Contains(got[0], `"message":"half"`) {
			t.Fatalf("%s: observed %q, want the progress notification", version, got)
		}
	}
}
