package interop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// httpServerArgv is the command line of the HTTP server under test, set by
// TestMain: INTEROP_HTTP_SERVER, or examples/notes with --http 127.0.0.1:0.
// The server must print its endpoint's URL as the first line on stdout.
var httpServerArgv []string

// httpServer is a running HTTP server process.
type httpServer struct {
	url    string
	stderr *syncBuffer
}

// startHTTPServer starts the HTTP server in its own empty directory, reads
// its URL, and stops it with SIGTERM when the test ends (showing its stderr
// if the test failed).
func startHTTPServer(t *testing.T) *httpServer {
	t.Helper()
	return startHTTPServerArgv(t, httpServerArgv)
}

// startHTTPServerArgv is startHTTPServer for the server argv starts.
func startHTTPServerArgv(t *testing.T, argv []string) *httpServer {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = t.TempDir()
	s := &httpServer{stderr: &syncBuffer{}}
	cmd.Stderr = s.stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting the HTTP server: %v", err)
	}
	exited := make(chan struct{})
	lines := make(chan string, 1)
	var waitErr error
	go func() {
		r := bufio.NewReader(stdout)
		line, _ := r.ReadString('\n')
		lines <- line
		_, _ = io.Copy(io.Discard, r)
		waitErr = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
			if waitErr != nil {
				t.Errorf("the HTTP server's exit after SIGTERM: %v, want status 0", waitErr)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("the HTTP server did not exit within 10s of SIGTERM")
			_ = cmd.Process.Kill()
			<-exited
		}
		if t.Failed() && s.stderr.Len() > 0 {
			t.Logf("HTTP server stderr:\n%s", s.stderr.String())
		}
	})
	select {
	case line := <-lines:
		s.url = strings.TrimSpace(line)
	case <-time.After(20 * time.Second):
		t.Fatalf("the HTTP server printed no URL within 20s; stderr:\n%s", s.stderr.String())
	}
	if !strings.HasPrefix(s.url, "http://") {
		t.Fatalf("the HTTP server's first stdout line is %q, want its URL; stderr:\n%s", s.url, s.stderr.String())
	}
	return s
}

// toolStopped waits until the server's log says a call of method ended with
// a cancelled context, and returns when the test saw that; examples/notes
// logs such a call (main.go, loggedNotes).
func (s *httpServer) toolStopped(method string, within time.Duration) (time.Time, bool) {
	want := fmt.Sprintf(`method=%s err="context canceled"`, method)
	var at time.Time
	ok := s.stderr.waitFor(within, func() bool {
		at = time.Now()
		return strings.Contains(s.stderr.String(), want)
	})
	return at, ok
}

// httpExchange is one HTTP request a client made and what came back.
type httpExchange struct {
	Method    string
	URL       string
	Session   string // the request's Mcp-Session-Id
	Version   string // the request's MCP-Protocol-Version
	LastEvent string // the request's Last-Event-ID
	Status    int
	SetID     string // the response's Mcp-Session-Id
	CType     string // the response's media type
	Body      string // the request body
	At        time.Time
	Err       error
	Reply     string   // the start of a non-2xx response's body
	endpoints []string // data of "endpoint" events on the response (HTTP+SSE)
}

func (e httpExchange) String() string {
	body := strings.TrimSpace(e.Body)
	if len(body) > 300 {
		body = body[:300] + "..."
	}
	s := fmt.Sprintf("%s %s session=%q version=%q %s -> %d %s set-session=%q", e.Method, e.URL, e.Session, e.Version,
		body, e.Status, e.CType, e.SetID)
	if e.Err != nil {
		s += " error: " + e.Err.Error()
	}
	if e.Reply != "" {
		s += " reply: " + e.Reply
	}
	return s
}

// httpWire is an http.RoundTripper that records, as the client reads them off
// the response bodies, the progress notifications and responses of calls
// made with a progress token, when the client gave up on such a call (a
// notifications/cancelled, or closing the call's response stream before its
// response), and every exchange.
type httpWire struct {
	inner http.RoundTripper
	log   wireLog
	tally msgTally // every message the client read
	wrote msgTally // every message the client posted

	mu        sync.Mutex
	exchanges []*httpExchange
	tokenOfID map[string]any // request id -> progress token
	answered  map[string]bool
	cancelled map[string]time.Time // progress token -> when
}

// newHTTPWire returns a recorder that shows its exchanges when the test fails.
func newHTTPWire(t *testing.T) *httpWire {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	w := &httpWire{inner: tr}
	t.Cleanup(func() {
		if t.Failed() {
			all := w.all()
			if len(all) > 60 {
				all = all[len(all)-60:]
			}
			var b strings.Builder
			for _, e := range all {
				fmt.Fprintf(&b, "%s +%v\n", e, e.At.Format("15:04:05.000"))
			}
			t.Logf("HTTP exchanges (the last 60):\n%s", b.String())
		}
		tr.CloseIdleConnections()
	})
	return w
}

// client returns an HTTP client recording on w.
func (w *httpWire) client() *http.Client { return &http.Client{Transport: w} }

func (w *httpWire) RoundTrip(req *http.Request) (*http.Response, error) {
	ex := &httpExchange{Method: req.Method, URL: req.URL.String(), Session: req.Header.Get("Mcp-Session-Id"),
		Version: req.Header.Get("Mcp-Protocol-Version"), LastEvent: req.Header.Get("Last-Event-ID"), At: time.Now()}
	var callID string
	if req.Body != nil {
		body, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		ex.Body = string(body)
		callID = w.sent(body)
		w.wrote.note(body)
	}
	w.mu.Lock()
	w.exchanges = append(w.exchanges, ex)
	w.mu.Unlock()
	resp, err := w.inner.RoundTrip(req)
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil {
		ex.Err = err
		return nil, err
	}
	ex.Status = resp.StatusCode
	ex.SetID = resp.Header.Get("Mcp-Session-Id")
	ex.CType, _, _ = mime.ParseMediaType(resp.Header.Get("Content-Type"))
	resp.Body = &wireBody{ReadCloser: resp.Body, w: w, ex: ex, sse: ex.CType == "text/event-stream", callID: callID}
	return resp, nil
}

// sent notes what a request body says about calls: a tools/call's progress
// token, or a notifications/cancelled. It returns the id of a call with a
// progress token.
func (w *httpWire) sent(body []byte) string {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Meta struct {
				ProgressToken any `json:"progressToken"`
			} `json:"_meta"`
			RequestID json.RawMessage `json:"requestId"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &m) != nil {
		return ""
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case m.Method == "notifications/cancelled":
		if token, ok := w.tokenOfID[string(m.Params.RequestID)]; ok {
			w.markCancelled(token)
		}
	case len(m.ID) > 0 && m.Params.Meta.ProgressToken != nil:
		if w.tokenOfID == nil {
			w.tokenOfID = map[string]any{}
		}
		w.tokenOfID[string(m.ID)] = m.Params.Meta.ProgressToken
		return string(m.ID)
	}
	return ""
}

// markCancelled records the first sign that the client gave up on a call.
// w.mu is held.
func (w *httpWire) markCancelled(token any) {
	if w.cancelled == nil {
		w.cancelled = map[string]time.Time{}
	}
	if _, ok := w.cancelled[tokenKey(token)]; !ok {
		w.cancelled[tokenKey(token)] = time.Now()
		w.log.fire()
	}
}

// received notes a message the client read off a response body.
func (w *httpWire) received(data []byte) {
	w.tally.note(data)
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(data, &m) != nil {
		return
	}
	now := time.Now()
	if m.Method == "notifications/progress" {
		var p progressParams
		if json.Unmarshal(m.Params, &p) == nil {
			w.log.add(p.ProgressToken, wireEvent{Progress: p.Progress, Total: p.Total, At: now})
		}
		return
	}
	if m.Method != "" || len(m.ID) == 0 {
		return
	}
	w.mu.Lock()
	token, ok := w.tokenOfID[string(m.ID)]
	if ok {
		if w.answered == nil {
			w.answered = map[string]bool{}
		}
		w.answered[string(m.ID)] = true
	}
	w.mu.Unlock()
	if ok {
		raw := string(data)
		if len(raw) > 200 {
			raw = raw[:200] + "..."
		}
		w.log.add(token, wireEvent{Response: true, At: now, Raw: raw})
	}
}

// cancelledAt reports when the client gave up on the call made with token.
func (w *httpWire) cancelledAt(token any) (time.Time, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	at, ok := w.cancelled[tokenKey(token)]
	return at, ok
}

// all returns the exchanges so far.
func (w *httpWire) all() []httpExchange {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]httpExchange, len(w.exchanges))
	for i, e := range w.exchanges {
		out[i] = *e
	}
	return out
}

// wireBody parses a response body as the client reads it: an SSE stream
// event by event, a JSON body as a whole.
type wireBody struct {
	io.ReadCloser
	w      *httpWire
	ex     *httpExchange
	sse    bool
	callID string // the tools/call this is the response stream of, if it carries a progress token

	mu      sync.Mutex
	pending []byte   // bytes not yet parsed
	data    []string // data lines of the event being read
	event   string   // its event type
}

func (b *wireBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.mu.Lock()
	defer b.mu.Unlock()
	b.pending = append(b.pending, p[:n]...)
	if b.sse {
		b.parseSSE()
	} else if err == io.EOF {
		if len(bytes.TrimSpace(b.pending)) > 0 {
			b.w.received(b.pending)
			if b.ex.Status/100 != 2 {
				b.w.mu.Lock()
				b.ex.Reply = strings.TrimSpace(string(b.pending))
				b.w.mu.Unlock()
			}
		}
		b.pending = nil
	}
	return n, err
}

func (b *wireBody) parseSSE() {
	for {
		i := bytes.IndexByte(b.pending, '\n')
		if i < 0 {
			return
		}
		line := strings.TrimSuffix(string(b.pending[:i]), "\r")
		b.pending = b.pending[i+1:]
		switch {
		case line == "":
			if len(b.data) > 0 {
				data := strings.Join(b.data, "\n")
				if b.event == "" || b.event == "message" {
					b.w.received([]byte(data))
				} else if b.event == "endpoint" {
					b.w.mu.Lock()
					b.ex.endpoints = append(b.ex.endpoints, data)
					b.w.mu.Unlock()
				}
			}
			b.data, b.event = nil, ""
		case strings.HasPrefix(line, "data:"):
			b.data = append(b.data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		case strings.HasPrefix(line, "event:"):
			b.event = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
		}
	}
}

// Close notes a client closing the response stream of a call before its
// response arrived: that is how a 2026-07-28 client cancels.
func (b *wireBody) Close() error {
	b.w.mu.Lock()
	if b.callID != "" && !b.w.answered[b.callID] {
		b.w.markCancelled(b.w.tokenOfID[b.callID])
	}
	b.w.mu.Unlock()
	return b.ReadCloser.Close()
}

// checkNoSessions checks that a 2026-07-28 client never carried or was given
// a session id and sent no DELETE.
func checkNoSessions(t *testing.T, w *httpWire) {
	t.Helper()
	for _, e := range w.all() {
		if e.Session != "" || e.SetID != "" || e.Method == http.MethodDelete {
			t.Errorf("a 2026-07-28 exchange with a session: %v", e)
		}
	}
}

// checkSessionDeleted checks, on the wire, that the client ended its legacy
// Streamable HTTP session with DELETE when it closed, that the server
// accepted it, and that the old session id then gets 404.
func checkSessionDeleted(t *testing.T, w *httpWire, url string) {
	t.Helper()
	var session, version string
	var deleted *httpExchange
	for _, e := range w.all() {
		if e.SetID != "" && session == "" {
			session = e.SetID
		}
		if e.Version != "" {
			version = e.Version
		}
		if e.Method == http.MethodDelete {
			deleted = &e
		}
	}
	if session == "" {
		t.Fatalf("the server gave the legacy client no Mcp-Session-Id: %v", w.all())
	}
	if deleted == nil {
		t.Fatalf("the client sent no DELETE when it closed: %v", w.all())
	}
	if deleted.Session != session || deleted.Status/100 != 2 {
		t.Errorf("DELETE: %v; want the session %q ended with a 2xx", deleted, session)
	}
	checkGone(t, url, session, version)
}

// checkGone posts a ping in an ended session and expects 404 with a JSON-RPC
// error body.
func checkGone(t *testing.T, url, session, version string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", session)
	if version != "" {
		req.Header.Set("Mcp-Protocol-Version", version)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST in the deleted session: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("POST in the deleted session %q: %d %s, want 404", session, resp.StatusCode, body)
	}
	var e struct {
		Error *struct{ Code int } `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil || e.Error == nil {
		t.Errorf("404 body %q is not a JSON-RPC error", body)
	}
}

// checkSSESessionEnded checks that once a 2024-11-05 HTTP+SSE client closed
// its stream, the server ended the session: posting to the endpoint it named
// gets 404.
func checkSSESessionEnded(t *testing.T, w *httpWire, base string) {
	t.Helper()
	var endpoint string
	for _, e := range w.all() {
		if len(e.endpoints) > 0 {
			endpoint = e.endpoints[0]
		}
	}
	if endpoint == "" {
		t.Fatalf("no endpoint event on the wire: %v", w.all())
	}
	u, err := resolveURL(base, endpoint)
	if err != nil {
		t.Fatalf("endpoint %q: %v", endpoint, err)
	}
	if !regexp.MustCompile(`[?&]sessionId=[^&]+`).MatchString(u) {
		t.Errorf("endpoint %q names no sessionId", u)
	}
	// The server learns of the closed stream when its next write or read
	// fails; give it a moment.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var status int
	var body []byte
	for ctx.Err() == nil {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			break
		}
		body, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		status = resp.StatusCode
		if status == http.StatusNotFound {
			return
		}
		// This poll stays: the server under test is any process
		// (INTEROP_HTTP_SERVER), and the 404 is the only thing it shows of
		// the session's end; only the 5s limit, not the interval, decides.
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("POST to %s after the client closed its stream: %d %s, want 404", u, status, body)
}

func resolveURL(base, ref string) (string, error) {
	req, err := http.NewRequest(http.MethodGet, base, nil)
	if err != nil {
		return "", err
	}
	u, err := req.URL.Parse(ref)
	if err != nil {
		return "", err
	}
	return u.String(), nil
}

// buildNotes builds examples/notes from the enclosing repository into dir.
func buildNotes(dir string) (string, error) {
	return buildExample(dir, "notes", "set INTEROP_SERVER and INTEROP_HTTP_SERVER to test other servers")
}

// buildExample builds examples/name from the enclosing repository into dir;
// hint says how to do without it.
func buildExample(dir, name, hint string) (string, error) {
	bin := filepath.Join(dir, name)
	build := exec.Command("go", "build", "-o", bin, "./examples/"+name)
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building examples/%s (%s): %v\n%s", name, hint, err, out)
	}
	return bin, nil
}

// commandLine splits an INTEROP_*SERVER value: a path, then arguments
// separated by spaces.
func commandLine(v string) ([]string, error) {
	argv := strings.Fields(v)
	abs, err := filepath.Abs(argv[0])
	if err != nil {
		return nil, err
	}
	argv[0] = abs
	return argv, nil
}
