package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// fixture is a server with hand-written tools that exercise every path of the
// engine: a plain result, a validation error, progress and logging, a call
// that blocks until cancelled, a panic, a capability check and no result.
type fixture struct {
	srv      *mcpserver.Server
	logs     *logBuffer
	started  chan struct{} // the block tool is running
	finished chan struct{} // the block tool saw its cancellation and returned
}

const searchSchema = `{"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer"}},"required":["query"]}`

func newFixture(t testing.TB) *fixture {
	fx := &fixture{started: make(chan struct{}, 1), finished: make(chan struct{}, 1), logs: new(logBuffer)}
	fx.srv = mcpserver.New(mcp.Implementation{
		Name: "notes", Title: "Notes", Version: "1.0.0",
		Description: "A notes store", WebsiteURL: "https://example.com/notes",
	}, &mcpserver.Options{
		Instructions: "Use search first.",
		PageSize:     2,
		ListTTL:      90 * time.Second,
		Logger:       slog.New(slog.NewTextHandler(fx.logs, nil)),
	})
	fx.srv.AddTools(
		mcpserver.Tool{
			Name: "search", Title: "Search notes", Description: "Find notes.",
			InputSchema: json.RawMessage(searchSchema), OutputSchema: json.RawMessage(`{"type":"object"}`),
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(true)},
			Handler:     searchTool,
		},
		mcpserver.Tool{Name: "slow", Handler: slowTool},
		mcpserver.Tool{Name: "block", Handler: fx.blockTool},
		mcpserver.Tool{Name: "panic", Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) { panic("boom") }},
		mcpserver.Tool{Name: "needs", Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			if err := mcpserver.RequireClientCapability(ctx, "elicitation"); err != nil {
				return nil, err
			}
			return json.RawMessage(`{"ok":true}`), nil
		}},
		mcpserver.Tool{Name: "nothing", Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil }},
	)
	return fx
}

// searchTool is a realistic small tool: it decodes its arguments, rejects a
// bad one the way generated validation does, and returns an object.
func searchTool(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
	var in struct {
		Query string          `json:"query"`
		Limit json.RawMessage `json:"limit"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return nil, err
	}
	if len(in.Limit) > 0 && in.Limit[0] == '"' {
		return nil, runtime.InvalidParams(`"limit": expected an integer, got %s`, in.Limit)
	}
	return json.RawMessage(`{"notes":[{"id":1,"title":"Groceries \"weekly\""}],"total":1}`), nil
}

// slowTool reports progress (once with a value that must be dropped) and logs
// at three levels.
func slowTool(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
	mcpserver.Progress(ctx, 1, 3, "one")
	mcpserver.Log(ctx, mcp.LevelDebug, "slow", "hidden below info")
	mcpserver.Log(ctx, mcp.LevelInfo, "slow", map[string]int{"step": 2})
	mcpserver.Progress(ctx, 1, 3, "not greater: dropped")
	mcpserver.Progress(ctx, 2.5, 0, "")
	mcpserver.Log(ctx, mcp.LevelError, "", "bad")
	return json.RawMessage(`{"done":true}`), nil
}

// blockTool waits for its cancellation, then tries to report progress and
// log, which must be dropped, and returns a result that must not be sent.
func (fx *fixture) blockTool(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
	defer func() { fx.finished <- struct{}{} }()
	mcpserver.Progress(ctx, 1, 0, "started")
	fx.started <- struct{}{}
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		return nil, errors.New("never cancelled")
	}
	mcpserver.Progress(ctx, 2, 0, "after cancel")
	mcpserver.Log(ctx, mcp.LevelEmergency, "block", "after cancel")
	return json.RawMessage(`{"late":true}`), nil
}

// logBuffer collects what the server logs.
type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// driver speaks to a server one way: Session.Handle, or a stream under Serve.
type driver interface {
	// exchange sends in and returns what the server wrote for it: n messages,
	// notifications first and the reply last.
	exchange(t *testing.T, in string, n int) []string
	// post sends in without waiting; whatever it produces must be nothing.
	post(t *testing.T, in string)
	// start sends in without waiting for its reply and returns the first n
	// notifications it produces; whatever follows must be nothing.
	start(t *testing.T, in string, n int) []string
	// finish ends the conversation and fails t if the server wrote anything
	// nobody read, or anything for a posted message.
	finish(t *testing.T)
}

// handleDriver calls Session.Handle directly.
type handleDriver struct {
	ss    *mcpserver.Session
	wg    sync.WaitGroup
	mu    sync.Mutex
	stray []string
}

func (d *handleDriver) exchange(t *testing.T, in string, n int) []string {
	var got []string
	notify := func(msg []byte) { got = append(got, string(msg)) }
	if reply := d.ss.Handle(context.Background(), []byte(in), notify); reply != nil {
		got = append(got, string(reply))
	}
	return got
}

func (d *handleDriver) post(t *testing.T, in string) {
	d.wg.Go(func() {
		notify := func(msg []byte) {
			d.mu.Lock()
			d.stray = append(d.stray, string(msg))
			d.mu.Unlock()
		}
		if reply := d.ss.Handle(context.Background(), []byte(in), notify); reply != nil {
			notify(reply)
		}
	})
}

func (d *handleDriver) start(t *testing.T, in string, n int) []string {
	first := make(chan string, n)
	var seen int
	d.wg.Go(func() {
		notify := func(msg []byte) {
			d.mu.Lock()
			defer d.mu.Unlock()
			if seen < n {
				seen++
				first <- string(msg)
				return
			}
			d.stray = append(d.stray, string(msg))
		}
		if reply := d.ss.Handle(context.Background(), []byte(in), notify); reply != nil {
			d.mu.Lock()
			d.stray = append(d.stray, string(reply))
			d.mu.Unlock()
		}
	})
	var got []string
	for range n {
		select {
		case m := <-first:
			got = append(got, m)
		case <-time.After(5 * time.Second):
			t.Errorf("timed out after %d of %d messages for %s", len(got), n, in)
			return got
		}
	}
	return got
}

func (d *handleDriver) finish(t *testing.T) {
	d.wg.Wait()
	for _, s := range d.stray {
		t.Errorf("unexpected message: %s", s)
	}
}

// streamDriver talks to Server.Serve over a framer.
type streamDriver struct {
	write func(msg string) error
	msgs  chan string
	close func()
	done  chan error // Serve's result
}

func (d *streamDriver) exchange(t *testing.T, in string, n int) []string {
	t.Helper()
	if err := d.write(in); err != nil {
		t.Fatalf("write: %v", err)
	}
	var got []string
	for range n {
		select {
		case m, ok := <-d.msgs:
			if !ok {
				return got
			}
			got = append(got, m)
		case <-time.After(5 * time.Second):
			t.Errorf("timed out after %d of %d messages for %s", len(got), n, in)
			return got
		}
	}
	return got
}

func (d *streamDriver) post(t *testing.T, in string) {
	if err := d.write(in); err != nil {
		t.Fatalf("write: %v", err)
	}
}

func (d *streamDriver) start(t *testing.T, in string, n int) []string {
	return d.exchange(t, in, n)
}

func (d *streamDriver) finish(t *testing.T) {
	d.close()
	for m := range d.msgs {
		t.Errorf("unexpected message: %s", m)
	}
	select {
	case err := <-d.done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Error("Serve did not return")
	}
}

// pipeDriver serves over runtime.Pipe.
func pipeDriver(t *testing.T, srv *mcpserver.Server) driver {
	client, server := runtime.Pipe()
	d := &streamDriver{msgs: make(chan string, 64), done: make(chan error, 1)}
	go func() { d.done <- srv.Serve(context.Background(), eofFramer{server}) }()
	go func() {
		defer close(d.msgs)
		for {
			m, err := client.ReadMessage()
			if err != nil {
				return
			}
			d.msgs <- string(m)
		}
	}()
	d.write = func(msg string) error { return client.WriteMessage([]byte(msg)) }
	// A pipe has no half-close: the end of input is a marker message, after
	// which Serve finishes the running calls and closes the pipe, which ends
	// the reader: every message the server wrote is seen.
	d.close = func() { _ = client.WriteMessage([]byte(pipeEOF)) }
	return d
}

// pipeEOF is the message that ends an eofFramer's input.
const pipeEOF = "\x00EOF"

// eofFramer reads pipeEOF as the end of input, as closing stdin is for a
// process.
type eofFramer struct{ runtime.Framer }

func (f eofFramer) ReadMessage() ([]byte, error) {
	m, err := f.Framer.ReadMessage()
	if err == nil && string(m) == pipeEOF {
		return nil, io.EOF
	}
	return m, err
}

// osPipeDriver serves newline-delimited JSON over two OS pipes, as over a
// process's stdin and stdout.
func osPipeDriver(t *testing.T, srv *mcpserver.Server) driver {
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	d := &streamDriver{msgs: make(chan string, 64), done: make(chan error, 1)}
	go func() { d.done <- srv.Serve(context.Background(), runtime.NewLineFramer(inR, outW, 0)) }()
	go func() {
		defer close(d.msgs)
		defer outR.Close()
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			d.msgs <- sc.Text()
		}
	}()
	var mu sync.Mutex
	d.write = func(msg string) error {
		mu.Lock()
		defer mu.Unlock()
		_, err := io.WriteString(inW, msg+"\n")
		return err
	}
	// Closing stdin ends Serve after the running calls finish; the server
	// then closes its output, which ends the reader: every byte it wrote is seen.
	d.close = func() { inW.Close() }
	return d
}

// drivers are the three ways every wire test runs.
var drivers = []struct {
	name string
	new  func(t *testing.T, srv *mcpserver.Server) driver
}{
	{"Handle", func(t *testing.T, srv *mcpserver.Server) driver { return &handleDriver{ss: srv.NewSession()} }},
	{"runtime.Pipe", pipeDriver},
	{"os.Pipe", osPipeDriver},
}

// expect sends in and compares the messages the server wrote, byte for byte.
func expect(t *testing.T, d driver, in string, want ...string) {
	t.Helper()
	got := d.exchange(t, in, len(want))
	if len(got) != len(want) {
		t.Errorf("%s\n got %d messages: %s\nwant %d: %s", in, len(got), strings.Join(got, "\n      "), len(want), strings.Join(want, "\n      "))
		return
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%s\nmessage %d\n got %s\nwant %s", in, i, got[i], want[i])
		}
	}
}
