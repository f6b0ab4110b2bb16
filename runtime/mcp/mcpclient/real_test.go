package mcpclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// These tests run the client against the package's own server: over a
// runtime.Pipe, in process through a Session, and in a subprocess over stdio.

// clientRealState is what the test tools report back to the test (in process only).
type clientRealState struct {
	mu        sync.Mutex
	cancelled map[string]bool // "block" calls that saw their context end, by label
	changed   chan struct{}   // closed and replaced under mu when cancelled changes
}

// waitCancel waits up to d for the "block" call labelled label to see its
// context end.
func (st *clientRealState) waitCancel(label string, d time.Duration) bool {
	timeout := time.NewTimer(d)
	defer timeout.Stop()
	for {
		st.mu.Lock()
		saw, changed := st.cancelled[label], st.changed
		st.mu.Unlock()
		if saw {
			return true
		}
		select {
		case <-changed:
		case <-timeout.C:
			return st.sawCancel(label)
		}
	}
}

func (st *clientRealState) sawCancel(label string) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.cancelled[label]
}

const clientAddSchema = `{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"],"additionalProperties":false}`

func clientAddTool(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
	var a clientSumArgs
	if err := json.Unmarshal(args, &a); err != nil {
		return nil, runtime.InvalidParams("%v", err)
	}
	return json.Marshal(clientSumResult{a.A + a.B})
}

// newClientRealServer returns a server with the test tools; st may be nil.
func newClientRealServer(st *clientRealState) *mcpserver.Server {
	s := mcpserver.New(mcp.Implementation{Name: "real", Version: "1.2"}, &mcpserver.Options{Instructions: "add numbers", PageSize: 2})
	s.AddTools(
		mcpserver.Tool{Name: "add", Description: "Adds.", InputSchema: json.RawMessage(clientAddSchema),
			OutputSchema: json.RawMessage(`{"type":"object","properties":{"sum":{"type":"integer"}}}`), Handler: clientAddTool},
		mcpserver.Tool{Name: "fail", Handler: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			return nil, errors.New("the tool failed")
		}},
		mcpserver.Tool{Name: "progress", Handler: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			for i := 1; i <= 3; i++ {
				mcpserver.Progress(ctx, float64(i), 3, fmt.Sprint("step ", i))
			}
			return json.RawMessage(`{"sum":3}`), nil
		}},
		mcpserver.Tool{Name: "block", Handler: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			var a struct{ Label string }
			json.Unmarshal(args, &a)
			mcpserver.Progress(ctx, 1, 0, "started")
			<-ctx.Done()
			if st != nil {
				st.mu.Lock()
				st.cancelled[a.Label] = true
				close(st.changed)
				st.changed = make(chan struct{})
				st.mu.Unlock()
			}
			mcpserver.Progress(ctx, 2, 0, "after cancel") // must not be sent
			return json.RawMessage(`{"sum":-1}`), nil
		}},
		mcpserver.Tool{Name: "log", Handler: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			mcpserver.Log(ctx, "debug", "t", "quiet")
			mcpserver.Log(ctx, "warning", "t", map[string]int{"n": 1})
			return json.RawMessage(`{"sum":0}`), nil
		}},
	)
	return s
}

// clientRecorder is a Framer that keeps a copy of every message it reads.
type clientRecorder struct {
	runtime.Framer
	mu   sync.Mutex
	read []string
}

func (r *clientRecorder) ReadMessage() ([]byte, error) {
	msg, err := r.Framer.ReadMessage()
	if err == nil {
		r.mu.Lock()
		r.read = append(r.read, string(msg))
		r.mu.Unlock()
	}
	return msg, err
}

func (r *clientRecorder) messages() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.read)
}

// clientReal connects to a fresh real server over transport "pipe" or "session".
func clientReal(t *testing.T, transport, version string, st *clientRealState, opts mcpclient.Options) (*mcpclient.Client, *clientRecorder) {
	t.Helper()
	srv := newClientRealServer(st)
	opts.ProtocolVersion = version
	ctx := context.Background()
	if transport == "session" {
		c, err := mcpclient.ConnectTransport(ctx, srv.InProcess(), opts)
		if err != nil {
			t.Fatalf("ConnectTransport(InProcess): %v", err)
		}
		t.Cleanup(func() { c.Close() })
		return c, nil
	}
	client, server := runtime.Pipe()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, server) }()
	rec := &clientRecorder{Framer: client}
	c, err := mcpclient.Connect(ctx, rec, opts)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() {
		c.Close()
		<-served
	})
	return c, rec
}

var clientAllVersions = []string{"", mcp.Version20241105, mcp.Version20250326, mcp.Version20250618, mcp.Version20251125, mcp.Version20260728}

func TestClientRealServer(t *testing.T) {
	for _, transport := range []string{"pipe", "session"} {
		for _, version := range clientAllVersions {
			t.Run(transport+"/"+version, func(t *testing.T) {
				logs := make(chan mcp.LogMessage, 8)
				c, _ := clientReal(t, transport, version, nil, mcpclient.Options{OnLog: func(m mcp.LogMessage) { logs <- m }})
				checkClientRealSession(t, c, version, logs)
			})
		}
	}
}

// checkClientRealSession exercises every client method against the real server.
func checkClientRealSession(t *testing.T, c *mcpclient.Client, version string, logs chan mcp.LogMessage) {
	ctx := context.Background()
	want := version
	if want == "" {
		want = mcp.Version20260728 // the server is dual-era
	}
	if c.ProtocolVersion() != want || c.Modern() != (want == mcp.Version20260728) {
		t.Fatalf("version %q, modern %v", c.ProtocolVersion(), c.Modern())
	}
	if !reflect.DeepEqual(c.ServerInfo(), mcp.Implementation{Name: "real", Version: "1.2"}) || c.Instructions() != "add numbers" {
		t.Errorf("server %+v, instructions %q", c.ServerInfo(), c.Instructions())
	}
	tools, err := c.ListTools(ctx)
	var names []string
	for _, tool := range tools {
		names = append(names, tool.Name)
	}
	if err != nil || !slices.Equal(names, []string{"add", "fail", "progress", "block", "log"}) {
		t.Fatalf("ListTools: %v, %v", names, err)
	}
	if string(tools[0].InputSchema) != clientAddSchema || tools[0].Description != "Adds." {
		t.Errorf("add: %+v", tools[0])
	}
	var res clientSumResult
	if err := c.CallTool(ctx, "add", clientSumArgs{40, 2}, &res); err != nil || res.Sum != 42 {
		t.Errorf("add: %+v, %v", res, err)
	}
	var te *mcp.ToolError
	if err := c.CallTool(ctx, "fail", nil, &res); !errors.As(err, &te) || te.Error() != "the tool failed" {
		t.Errorf("fail: %v", err)
	}
	if err := c.CallTool(ctx, "add", json.RawMessage(`{"a":"x"}`), &res); !errors.As(err, &te) {
		t.Errorf("add with bad arguments: %v", err)
	}
	var rpcErr *runtime.Error
	if err := c.CallTool(ctx, "nope", nil, nil); !errors.As(err, &rpcErr) || rpcErr.Code != runtime.CodeInvalidParams {
		t.Errorf("unknown tool: %v", err)
	}
	var steps []string
	raw, err := c.CallToolRaw(ctx, mcp.CallToolParams{Name: "progress", OnProgress: func(p mcp.ProgressNotification) {
		steps = append(steps, fmt.Sprint(p.Progress, "/", p.Total, " ", p.Message))
	}})
	wantSteps := []string{"1/3 step 1", "2/3 step 2", "3/3 step 3"}
	if c.ProtocolVersion() == mcp.Version20241105 { // progress messages came in 2025-03-26
		wantSteps = []string{"1/3 ", "2/3 ", "3/3 "}
	}
	if err != nil || raw.IsError || !slices.Equal(steps, wantSteps) {
		t.Errorf("progress: %+v, %q, %v", raw, steps, err)
	}
	if err := c.Ping(ctx); (err == nil) == c.Modern() {
		t.Errorf("Ping: %v", err)
	}
	if err := c.SetLogLevel(ctx, "info"); err != nil {
		t.Fatalf("SetLogLevel: %v", err)
	}
	if err := c.CallTool(ctx, "log", nil, nil); err != nil {
		t.Fatalf("log: %v", err)
	}
	select {
	case m := <-logs:
		if m.Level != "warning" || m.Logger != "t" || string(m.Data) != `{"n":1}` {
			t.Errorf("log message %+v", m)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no log message")
	}
	select {
	case m := <-logs:
		t.Errorf("log message below the level: %+v", m)
	case <-time.After(20 * time.Millisecond):
	}
}

func TestClientRealCancel(t *testing.T) {
	for _, transport := range []string{"pipe", "session"} {
		for _, version := range []string{mcp.Version20251125, mcp.Version20260728} {
			t.Run(transport+"/"+version, func(t *testing.T) {
				st := &clientRealState{cancelled: map[string]bool{}, changed: make(chan struct{})}
				c, rec := clientReal(t, transport, version, st, mcpclient.Options{})
				ctx, cancel := context.WithCancel(context.Background())
				var mu sync.Mutex
				var got []string
				_, err := c.CallToolRaw(ctx, mcp.CallToolParams{Name: "block", Arguments: map[string]string{"label": "x"},
					OnProgress: func(p mcp.ProgressNotification) {
						mu.Lock()
						got = append(got, p.Message)
						mu.Unlock()
						cancel()
					}})
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("CallToolRaw: %v", err)
				}
				if !st.waitCancel("x", 5*time.Second) {
					t.Fatal("the tool never saw the cancellation")
				}
				// The client still works, and the server sent nothing more for the call.
				var res clientSumResult
				if err := c.CallTool(context.Background(), "add", clientSumArgs{1, 2}, &res); err != nil || res.Sum != 3 {
					t.Fatalf("add after cancel: %+v, %v", res, err)
				}
				mu.Lock()
				if !slices.Equal(got, []string{"started"}) {
					t.Errorf("progress: %q", got)
				}
				mu.Unlock()
				if rec != nil {
					for _, m := range rec.messages() {
						if strings.Contains(m, `"after cancel"`) || strings.Contains(m, `"sum":-1`) {
							t.Errorf("server sent after the cancellation: %s", m)
						}
					}
				}
			})
		}
	}
}

const clientSubprocessEnv = "RPCGEN_MCP_CLIENT_TEST_SERVER"

// TestClientSubprocess runs the real server in a child process (this test
// binary, re-executed) and talks to it through DialCommand.
func TestClientSubprocess(t *testing.T) {
	switch os.Getenv(clientSubprocessEnv) {
	case "":
	case "exit":
		os.Exit(0)
	default:
		if err := newClientRealServer(nil).ServeStdio(context.Background()); err != nil {
			fmt.Fprintln(os.Stderr, "serve:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	for _, version := range clientAllVersions {
		t.Run(version, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestClientSubprocess$")
			cmd.Env = append(os.Environ(), clientSubprocessEnv+"=1", "GORACE=atexit_sleep_ms=0")
			logs := make(chan mcp.LogMessage, 8)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			c, err := mcpclient.DialCommand(ctx, cmd, mcpclient.Options{ProtocolVersion: version, ProbeTimeout: 10 * time.Second,
				OnLog: func(m mcp.LogMessage) { logs <- m }})
			if err != nil {
				t.Fatalf("DialCommand: %v", err)
			}
			checkClientRealSession(t, c, version, logs)

			// A cancelled call returns at once and leaves the connection usable.
			bctx, bcancel := context.WithCancel(ctx)
			_, err = c.CallToolRaw(bctx, mcp.CallToolParams{Name: "block", OnProgress: func(mcp.ProgressNotification) { bcancel() }})
			if !errors.Is(err, context.Canceled) {
				t.Errorf("block: %v", err)
			}
			var res clientSumResult
			if err := c.CallTool(ctx, "add", clientSumArgs{2, 2}, &res); err != nil || res.Sum != 4 {
				t.Errorf("add after cancel: %+v, %v", res, err)
			}
			if err := c.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			if err := c.CallTool(ctx, "add", clientSumArgs{}, nil); !errors.Is(err, runtime.ErrClosed) {
				t.Errorf("CallTool after Close: %v", err)
			}
		})
	}
}

func TestClientSessionClose(t *testing.T) {
	c, err := mcpclient.ConnectTransport(context.Background(), newClientRealServer(nil).InProcess(), mcpclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := c.CallTool(context.Background(), "add", clientSumArgs{1, 1}, nil); !errors.Is(err, runtime.ErrClosed) {
		t.Errorf("CallTool after Close: %v", err)
	}
}

func TestClientDialCommandFails(t *testing.T) {
	if _, err := mcpclient.DialCommand(context.Background(), exec.Command("/nonexistent/mcp-server"), mcpclient.Options{}); err == nil {
		t.Error("DialCommand started a missing program")
	}
	// A program that exits at once: the handshake fails, and the error says so.
	cmd := exec.Command(os.Args[0], "-test.run=^TestClientSubprocess$")
	cmd.Env = append(os.Environ(), clientSubprocessEnv+"=exit")
	if _, err := mcpclient.DialCommand(context.Background(), cmd, mcpclient.Options{}); !errors.Is(err, runtime.ErrClosed) {
		t.Errorf("DialCommand to a program that exits: %v", err)
	}
}
