package mcphttp_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http/httptest"
	goruntime "runtime"
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

// loadDuration is how long TestLoad's clients keep calling.
var loadDuration = flag.Duration("load.duration", 2*time.Second,
	"how long each TestLoad client keeps calling (at most 60s)")

const (
	loadClients      = 64
	loadMaxDuration  = 60 * time.Second
	loadProgressEach = 8 // every 8th call of a client asks for progress
)

const loadAddSchema = `{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"],"additionalProperties":false}`

type loadArgs struct {
	A int64 `json:"a"`
	B int64 `json:"b"`
}

type loadSum struct {
	Sum int64 `json:"sum"`
}

// loadAdd is the tool every client calls: it returns the sum of its
// operands, and with progress it reports a step first, which turns the
// response into an event stream.
func loadAdd(progress bool) mcpserver.ToolHandler {
	return func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
		var in loadArgs
		if err := json.Unmarshal(args, &in); err != nil {
			return nil, runtime.InvalidParams("%v", err)
		}
		if progress {
			mcpserver.Progress(ctx, 1, 2, "adding")
		}
		return json.Marshal(loadSum{in.A + in.B})
	}
}

func newLoadServer() *mcpserver.Server {
	srv := mcpserver.New(mcp.Implementation{Name: "load", Version: "1.0.0"}, nil)
	out := json.RawMessage(`{"type":"object","properties":{"sum":{"type":"integer"}},"required":["sum"]}`)
	srv.AddTools(
		mcpserver.Tool{Name: "add", InputSchema: json.RawMessage(loadAddSchema), OutputSchema: out, Handler: loadAdd(false)},
		mcpserver.Tool{Name: "progress_add", InputSchema: json.RawMessage(loadAddSchema), OutputSchema: out, Handler: loadAdd(true)},
	)
	return srv
}

// loadOperands are the unique operands of call i of client k, so that a
// response that answers another request cannot pass the check.
func loadOperands(k, i int) (a, b int64) {
	return int64(k)<<32 | int64(i), int64(i)*7919 + int64(k)
}

// TestLoad runs 64 clients against one Handler on a 127.0.0.1 listener for
// -load.duration (2 s by default, at most 60 s): a quarter use the real
// client in a legacy session, a quarter the real client in 2026-07-28, a
// quarter raw net/http in a legacy session and a quarter raw net/http in
// 2026-07-28. Every call adds unique operands and its result is checked
// against them (and, raw, its id against the request's); every 8th call asks
// for progress, so its response is an event stream carrying the progress
// notification first. No call may fail. Afterwards every session is deleted
// and every connection closed, and the goroutine count must come back to its
// level before the first client.
func TestLoad(t *testing.T) {
	rpctest.CheckLeaks(t)
	dur := *loadDuration
	if dur <= 0 || dur > loadMaxDuration {
		t.Fatalf("-load.duration %v: want more than 0 and at most %v", dur, loadMaxDuration)
	}
	h := mcphttp.NewHandler(newLoadServer(), nil)
	ts := httptest.NewServer(h)
	defer func() {
		ts.Close()
		if err := h.Close(); err != nil {
			t.Errorf("Handler.Close: %v", err)
		}
	}()
	url := ts.URL + "/mcp"
	base := goruntime.NumGoroutine()

	ctx, cancel := context.WithTimeout(context.Background(), dur+loadMaxDuration)
	defer cancel()
	deadline := time.Now().Add(dur)
	var (
		wg       sync.WaitGroup
		calls    atomic.Int64
		perKind  [4]atomic.Int64
		failures atomic.Int64
		errMu    sync.Mutex
		errs     []string
	)
	fail := func(k int, err error) {
		if failures.Add(1) <= 10 {
			errMu.Lock()
			errs = append(errs, fmt.Sprintf("client %d: %v", k, err))
			errMu.Unlock()
		}
	}
	for k := range loadClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var c loadCaller
			var err error
			switch k % 4 {
			case 0:
				c, err = dialLoadReal(ctx, url, mcp.Version20251125)
			case 1:
				c, err = dialLoadReal(ctx, url, "") // dual era: picks 2026-07-28
			case 2:
				c, err = dialLoadRaw(ctx, url, false)
			case 3:
				c, err = dialLoadRaw(ctx, url, true)
			}
			if err != nil {
				fail(k, fmt.Errorf("connect: %w", err))
				return
			}
			// Each client calls at least once, however long connecting
			// took on a busy machine: the run then always checks every kind.
			for i := 0; (i == 0 || time.Now().Before(deadline)) && ctx.Err() == nil; i++ {
				a, b := loadOperands(k, i)
				if err := c.add(ctx, a, b, i%loadProgressEach == loadProgressEach-1); err != nil {
					fail(k, fmt.Errorf("call %d: %w", i, err))
					break
				}
				calls.Add(1)
				perKind[k%4].Add(1)
			}
			if err := c.close(); err != nil {
				fail(k, fmt.Errorf("close: %w", err))
			}
		}()
	}
	wg.Wait()
	t.Logf("%d clients, %v: %d calls (%.0f/s), %d failed", loadClients, dur, calls.Load(),
		float64(calls.Load())/dur.Seconds(), failures.Load())
	t.Logf("calls by client: real legacy %d, real 2026-07-28 %d, raw legacy %d, raw 2026-07-28 %d",
		perKind[0].Load(), perKind[1].Load(), perKind[2].Load(), perKind[3].Load())
	for _, e := range errs {
		t.Error(e)
	}
	if calls.Load() < loadClients {
		t.Errorf("only %d calls in all", calls.Load())
	}
	if n := h.SessionCount(); n != 0 {
		t.Errorf("%d sessions live after every client deleted its own", n)
	}

	// Every client closed its connections; the server's goroutines for them
	// and for the calls must end.
	limit := time.Now().Add(10 * time.Second)
	for {
		n := goruntime.NumGoroutine()
		if n <= base {
			break
		}
		if time.Now().After(limit) {
			buf := make([]byte, 1<<20)
			buf = buf[:goruntime.Stack(buf, true)]
			t.Fatalf("%d goroutines 10s after the clients disconnected, %d before they connected\n%s", n, base, buf)
		}
		// This poll stays: a goroutine's exit signals nothing, so a leak
		// check samples the count (as goleak does); only the 10s limit,
		// not the interval, decides the verdict.
		time.Sleep(10 * time.Millisecond)
	}
}

// loadCaller is one load test client.
type loadCaller interface {
	// add calls add (or progress_add, which must report progress first)
	// and checks the sum.
	add(ctx context.Context, a, b int64, progress bool) error
	close() error
}

// loadReal is the package's own client.
type loadReal struct {
	c      *mcpclient.Client
	modern bool
}

func dialLoadReal(ctx context.Context, url, version string) (*loadReal, error) {
	c, err := mcphttpclient.Connect(ctx, url, &mcphttpclient.Options{
		MCP:       mcpclient.Options{Info: mcp.Implementation{Name: "load", Version: "1.0.0"}, ProtocolVersion: version},
		Transport: "streamable",
	})
	if err != nil {
		return nil, err
	}
	want := version
	if want == "" {
		want = mcp.Version20260728
	}
	if got := c.ProtocolVersion(); got != want {
		c.Close()
		return nil, fmt.Errorf("negotiated %q, want %q", got, want)
	}
	return &loadReal{c: c, modern: c.Modern()}, nil
}

func (r *loadReal) add(ctx context.Context, a, b int64, progress bool) error {
	if !progress {
		var s loadSum
		if err := r.c.CallTool(ctx, "add", loadArgs{a, b}, &s); err != nil {
			return err
		}
		if s.Sum != a+b {
			return fmt.Errorf("add(%d, %d) = %d", a, b, s.Sum)
		}
		return nil
	}
	var reports atomic.Int32
	res, err := r.c.CallToolRaw(ctx, mcp.CallToolParams{Name: "progress_add", Arguments: loadArgs{a, b},
		OnProgress: func(p mcp.ProgressNotification) {
			if p.Progress == 1 && p.Total == 2 {
				reports.Add(1)
			}
		}})
	if err != nil {
		return err
	}
	var s loadSum
	if res.IsError || json.Unmarshal(res.StructuredContent, &s) != nil || s.Sum != a+b {
		return fmt.Errorf("progress_add(%d, %d): %+v", a, b, res)
	}
	if n := reports.Load(); n != 1 {
		return fmt.Errorf("progress_add(%d, %d): %d progress reports, want 1", a, b, n)
	}
	return nil
}

func (r *loadReal) close() error { return r.c.Close() }
