package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttpclient"
)

// init lets the test binary run as the notes program itself, flags and all,
// so TestHTTPProcess can start it as "notes --http 127.0.0.1:0" and signal
// it. It runs before TestMain.
func init() {
	if os.Getenv("NOTES_TEST_MAIN") == "1" {
		main()
	}
}

// httpModes are the ways the mcphttp client reaches the server: the detection
// the spec describes (the stateless 2026-07-28 revision first), a pinned
// revision over Streamable HTTP, and the 2024-11-05 HTTP+SSE transport.
var httpModes = []struct {
	name      string
	transport string
	version   string // the revision the client asks for; "" lets it negotiate
	want      string // the revision to be negotiated; "" for any legacy one
}{
	{"auto", "", "", mcp.Version20260728},
	{"streamable/2026-07-28", "streamable", mcp.Version20260728, mcp.Version20260728},
	{"streamable/2025-11-25", "streamable", mcp.Version20251125, mcp.Version20251125},
	{"streamable/2025-06-18", "streamable", mcp.Version20250618, mcp.Version20250618},
	{"streamable/2025-03-26", "streamable", mcp.Version20250326, mcp.Version20250326},
	{"sse", "sse", "", ""},
	{"sse/2024-11-05", "sse", mcp.Version20241105, mcp.Version20241105},
}

// startHTTP serves a fresh notes store over HTTP at /mcp on a 127.0.0.1
// listener, as serveHTTP mounts it; the handler logs at Debug to hlog.
func startHTTP(t *testing.T) (url string, h *mcphttp.Handler, hlog *lockedBuffer) {
	t.Helper()
	srv := newServer(newStore(time.Millisecond), slog.New(slog.DiscardHandler))
	hlog = &lockedBuffer{}
	h = mcphttp.NewHandler(srv, &mcphttp.Options{Logger: slog.New(slog.NewTextHandler(hlog, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	ts := httptest.NewServer(httpRoutes(h))
	t.Cleanup(func() {
		if err := h.Close(); err != nil {
			t.Errorf("handler close: %v", err)
		}
		ts.Close()
	})
	return ts.URL + "/mcp", h, hlog
}

// TestHTTPTypedClient uses the generated NotesMCPClient over mcphttpclient.Connect,
// in every mode, and checks what a caller of the Go interface would, then
// that closing the client ends its legacy session on the server.
func TestHTTPTypedClient(t *testing.T) {
	for _, m := range httpModes {
		t.Run(m.name, func(t *testing.T) {
			url, h, hlog := startHTTP(t)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			c, err := mcphttpclient.Connect(ctx, url, &mcphttpclient.Options{
				MCP:       mcpclient.Options{Info: mcp.Implementation{Name: "notes-http-test", Version: "1"}, ProtocolVersion: m.version},
				Transport: m.transport,
			})
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			closed := false
			defer func() {
				if !closed {
					c.Close()
				}
			}()
			got := c.ProtocolVersion()
			legacy := got != mcp.Version20260728
			switch {
			case m.want != "" && got != m.want:
				t.Errorf("negotiated %s, want %s", got, m.want)
			case m.want == "" && !legacy:
				t.Errorf("negotiated %s over the HTTP+SSE transport, want a legacy revision", got)
			}
			if n := h.SessionCount(); legacy && n != 1 || !legacy && n != 0 {
				t.Errorf("%s: the handler holds %d legacy sessions after connecting", got, n)
			}

			exerciseNotes(t, ctx, c)

			if err := c.Close(); err != nil {
				t.Errorf("close: %v", err)
			}
			closed = true
			// Closing sends DELETE (Streamable HTTP) or ends the GET stream
			// (HTTP+SSE); the server may notice the latter a moment later,
			// and logs "HTTP+SSE session ended" (Debug) once it removed it.
			if !hlog.waitFor(5*time.Second, func() bool { return h.SessionCount() == 0 }) {
				n := h.SessionCount()
				t.Errorf("%d legacy sessions left after the client closed", n)
			}
		})
	}
}

// exerciseNotes calls every tool through NotesMCPClient, asks for progress,
// and checks the errors a caller gets.
func exerciseNotes(t *testing.T, ctx context.Context, c *mcpclient.Client) {
	t.Helper()
	notes := NewNotesMCPClient(c)
	a, err := notes.AddNote(ctx, NewNote{Text: "Buy oat milk", Tags: []string{"shopping"}})
	if err != nil {
		t.Fatalf("AddNote: %v", err)
	}
	if a.ID == "" || a.Text != "Buy oat milk" || a.Priority != Normal || a.Created.IsZero() || len(a.Tags) != 1 {
		t.Errorf("AddNote returned %+v", a)
	}
	b, err := notes.AddNote(ctx, NewNote{Text: "milk the cows", Priority: High})
	if err != nil {
		t.Fatalf("AddNote: %v", err)
	}
	if _, err := notes.AddNote(ctx, NewNote{Text: "call the plumber"}); err != nil {
		t.Fatalf("AddNote: %v", err)
	}
	one := 1
	found, err := notes.SearchNotes(ctx, "MILK", &one)
	if err != nil || len(found) != 1 || found[0].ID != b.ID {
		t.Errorf("SearchNotes(MILK, 1) = %+v, %v; want only the newest, %s", found, err, b.ID)
	}
	found, err = notes.SearchNotes(ctx, "nothing like it", nil)
	if err != nil || found == nil || len(found) != 0 {
		t.Errorf("SearchNotes(no match) = %#v, %v; want an empty list", found, err)
	}
	got, err := notes.GetNote(ctx, a.ID)
	if err != nil || got.Text != a.Text || !got.Created.Equal(a.Created) {
		t.Errorf("GetNote = %+v, %v; want %+v", got, err, a)
	}
	report, err := notes.Reindex(ctx)
	if err != nil || report.Notes != 3 || report.Terms != 7 {
		t.Errorf("Reindex = %+v, %v; want 3 notes, 7 terms (buy oat milk the cows call plumber)", report, err)
	}

	// Progress comes on the call's SSE stream, in order, before the result.
	var progress []float64
	res, err := c.CallToolRaw(ctx, mcp.CallToolParams{
		Name:       "reindex",
		OnProgress: func(p mcp.ProgressNotification) { progress = append(progress, p.Progress) },
	})
	if err != nil || res.IsError {
		t.Fatalf("reindex with progress: %+v, %v", res, err)
	}
	if len(progress) != 3 || progress[0] != 1 || progress[1] != 2 || progress[2] != 3 {
		t.Errorf("progress %v, want [1 2 3]", progress)
	}

	if err := notes.DeleteNote(ctx, a.ID); err != nil {
		t.Fatalf("DeleteNote: %v", err)
	}
	_, err = notes.GetNote(ctx, a.ID)
	var rpcErr *runtime.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != runtime.CodeServerError || !strings.HasSuffix(rpcErr.Message, "no note with that id") {
		t.Errorf("GetNote after delete: %v; want the *runtime.Error -32000 saying there is no such note", err)
	}
	_, err = notes.AddNote(ctx, NewNote{Text: "x", Priority: "urgent"})
	if !errors.As(err, &rpcErr) || rpcErr.Code != runtime.CodeInvalidParams || !strings.Contains(err.Error(), `"priority"`) {
		t.Errorf("AddNote with priority urgent: %v; want a tool error naming \"priority\"", err)
	}
	err = c.CallTool(ctx, "no_such_tool", map[string]any{}, nil)
	rpctest.WantError(t, err, -32602)
}

// TestHTTPProcess runs the program as "notes --http 127.0.0.1:0": it prints
// exactly its endpoint's URL on stdout, serves it, and on SIGTERM refuses new
// work with 503 but lets the call in flight finish before it exits with
// status 0.
func TestHTTPProcess(t *testing.T) {
	cmd := exec.Command(os.Args[0], "--http", "127.0.0.1:0", "--reindex-pause=40ms")
	cmd.Env = append(os.Environ(), "NOTES_TEST_MAIN=1")
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{}) // closed once waitErr is set
	var waitErr error
	lines := make(chan string, 1)
	rest := make(chan string, 1)
	go func() {
		out := bufio.NewReader(stdout)
		line, _ := out.ReadString('\n')
		lines <- line
		b, _ := io.ReadAll(out)
		rest <- string(b)
		waitErr = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		select {
		case <-exited:
		default:
			cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("server stderr:\n%s", stderr.String())
		}
	})
	var url string
	select {
	case line := <-lines:
		url = strings.TrimSuffix(line, "\n")
	case <-time.After(10 * time.Second):
		t.Fatal("no URL on stdout within 10s")
	}
	if !regexp.MustCompile(`^http://127\.0\.0\.1:[1-9][0-9]*/mcp$`).MatchString(url) {
		t.Fatalf("first stdout line %q, want http://127.0.0.1:PORT/mcp", url)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := mcphttpclient.Connect(ctx, url, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer c.Close()
	notes := NewNotesMCPClient(c)
	const n = 20
	for i := range n {
		if _, err := notes.AddNote(ctx, NewNote{Text: "note " + string(rune('a'+i))}); err != nil {
			t.Fatalf("AddNote: %v", err)
		}
	}
	// SIGTERM once the reindex is under way: it must still finish, while
	// new work gets 503.
	var once sync.Once
	refused := make(chan string, 1)
	res, err := c.CallToolRaw(ctx, mcp.CallToolParams{
		Name: "reindex",
		OnProgress: func(mcp.ProgressNotification) {
			once.Do(func() {
				if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
					t.Errorf("SIGTERM: %v", err)
				}
				go func() { refused <- pollRefused(url) }()
			})
		},
	})
	if err != nil || res.IsError {
		t.Fatalf("the reindex in flight at SIGTERM: %+v, %v; want it to finish", res, err)
	}
	if !strings.Contains(string(res.StructuredContent), `"notes":20`) {
		t.Errorf("reindex result %s, want 20 notes", res.StructuredContent)
	}
	if r := <-refused; r != "" {
		t.Errorf("while shutting down: %s", r)
	}
	select {
	case <-exited:
		if waitErr != nil {
			t.Errorf("exit after SIGTERM: %v, want status 0", waitErr)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("still running 15s after SIGTERM")
	}
	if s := <-rest; s != "" {
		t.Errorf("stdout after the URL line: %q, want nothing", s)
	}
	if !strings.Contains(stderr.String(), "shutting down") {
		t.Errorf("stderr does not log the shutdown:\n%s", stderr.String())
	}
}

// TestHTTPCancelledCall cancels a reindex over HTTP, in both eras, and checks
// that the tool saw its context end (the store logs the error) while the
// server goes on serving.
func TestHTTPCancelledCall(t *testing.T) {
	for _, m := range []struct{ name, transport, version string }{
		{"modern", "streamable", mcp.Version20260728},
		{"legacy", "streamable", mcp.Version20251125},
		{"sse", "sse", mcp.Version20241105},
	} {
		t.Run(m.name, func(t *testing.T) {
			log := &lockedBuffer{}
			srv := newServer(newStore(20*time.Millisecond), slog.New(slog.NewTextHandler(log, nil)))
			h := mcphttp.NewHandler(srv, nil)
			ts := httptest.NewServer(httpRoutes(h))
			defer ts.Close()
			defer h.Close()
			ctx := context.Background()
			c, err := mcphttpclient.Connect(ctx, ts.URL+"/mcp", &mcphttpclient.Options{
				MCP: mcpclient.Options{ProtocolVersion: m.version}, Transport: m.transport,
			})
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			defer c.Close()
			notes := NewNotesMCPClient(c)
			for range 50 { // a second of reindexing
				if _, err := notes.AddNote(ctx, NewNote{Text: "filler"}); err != nil {
					t.Fatal(err)
				}
			}
			callCtx, cancelCall := context.WithCancel(ctx)
			start := time.Now()
			_, err = c.CallToolRaw(callCtx, mcp.CallToolParams{
				Name:       "reindex",
				OnProgress: func(mcp.ProgressNotification) { cancelCall() },
			})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("cancelled reindex returned %v, want context.Canceled", err)
			}
			if !log.waitFor(5*time.Second, func() bool { return strings.Contains(log.String(), "method=Reindex err=\"context canceled\"") }) {
				t.Fatalf("the tool did not see its context end within 5s; server log:\n%s", log.String())
			}
			if d := time.Since(start); d > 900*time.Millisecond {
				t.Errorf("the reindex stopped %v after it started; it would have finished in about 1s", d)
			}
			if _, err := notes.SearchNotes(ctx, "filler", nil); err != nil {
				t.Errorf("after the cancellation: %v", err)
			}
		})
	}
}

// pollRefused posts an initialize until the server, shutting down, answers
// 503 with a JSON-RPC error body; it returns what went wrong, or "".
func pollRefused(url string) string {
	deadline := time.Now().Add(5 * time.Second)
	last := "no answer"
	for time.Now().Before(deadline) {
		body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return fmt.Sprintf("a new initialize failed (%v) before it got 503", err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusServiceUnavailable {
			if !strings.Contains(string(b), `"error"`) {
				return fmt.Sprintf("503 without a JSON-RPC error body: %s", b)
			}
			return ""
		}
		last = fmt.Sprintf("%d %s", resp.StatusCode, b)
		// This poll stays: SIGTERM reaches the other process when it will,
		// and its "shutting down" log comes before its handler refuses, so
		// the 503 itself is the signal; only the 5s limit decides.
		time.Sleep(5 * time.Millisecond)
	}
	return "a new initialize got " + last + ", never 503"
}

func TestListenAddr(t *testing.T) {
	for in, want := range map[string]string{
		":0":             "127.0.0.1:0",
		"8080":           "127.0.0.1:8080",
		"127.0.0.1:8080": "127.0.0.1:8080",
		"localhost:0":    "localhost:0",
		"[::1]:9":        "[::1]:9",
		"0.0.0.0:80":     "0.0.0.0:80",
	} {
		if got := listenAddr(in); got != want {
			t.Errorf("listenAddr(%q) = %q, want %q", in, got, want)
		}
	}
}

// lockedBuffer collects a process's stderr or a logger's output while a test
// reads it.
type lockedBuffer struct {
	mu   sync.Mutex
	b    strings.Builder
	more chan struct{} // closed and replaced under mu at each write
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.more != nil {
		close(l.more)
		l.more = nil
	}
	return l.b.Write(p)
}

// waitFor waits up to d until cond holds, looking again after each write,
// and reports whether it did.
func (l *lockedBuffer) waitFor(d time.Duration, cond func() bool) bool {
	timeout := time.NewTimer(d)
	defer timeout.Stop()
	for {
		l.mu.Lock()
		if l.more == nil {
			l.more = make(chan struct{})
		}
		more := l.more
		l.mu.Unlock()
		if cond() {
			return true
		}
		select {
		case <-more:
		case <-timeout.C:
			return cond()
		}
	}
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
