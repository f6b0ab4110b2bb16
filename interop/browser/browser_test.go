// Package browser_test drives a real headless Chromium against rpcgen's HTTP
// servers on other origins: the official TypeScript SDK's MCP client and
// rpcgen's generated TypeScript JSON-RPC client, bundled for the browser
// with esbuild, call examples/notes and examples/calculator, which list the
// page's origin for CORS; a page of an origin they do not list must be
// refused. Run it with interop/browser/run.sh (which installs the npm
// packages); it needs chromium on PATH (or CHROMIUM) and go.
package browser_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// pageTimeout bounds the wait for a page's report.
const pageTimeout = 2 * time.Minute

// TestBrowserCORS: a page on origin A (127.0.0.1:PA) runs the TypeScript
// SDK's client against examples/notes --cors-origin A: it connects (and
// reads the session id, which only an exposed Mcp-Session-Id allows), lists
// the tools, adds three notes, calls reindex with progress (one per note),
// reads a note as a resource, gets a prompt and ends the session (DELETE);
// over the 2024-11-05 HTTP+SSE transport (a GET event stream) it lists the
// tools and searches the notes. It then calls
// examples/calculator --cors-origin A through the generated client: a
// result, a typed result and a declared error class; and beside it the
// generated client of internal/probe --cors-origin A, which imports the same
// TypeScript runtime from another directory: an error through either client
// is an instance of the other's RPCError. A frame on origin B
// (localhost:PB), listed by neither server, tries the same and a plain
// fetch: each must fail, and the servers answer B's preflight with 403.
func TestBrowserCORS(t *testing.T) {
	chromium := os.Getenv("CHROMIUM")
	if chromium == "" {
		var err error
		if chromium, err = exec.LookPath("chromium"); err != nil {
			t.Fatal("chromium is not on PATH (Debian: apt-get install chromium; or set CHROMIUM): this test needs a real browser")
		}
	}
	dir := t.TempDir()
	bundle(t, dir)
	notesBin := build(t, dir, "./examples/notes")
	calcBin := build(t, dir, "./examples/calculator")
	probeBin := build(t, dir, "./internal/probe/cmd/probe")

	pageA := servePages(t, dir, "127.0.0.1:0", "")
	pageB := servePages(t, dir, "127.0.0.1:0", "localhost")
	notesURL := startNotes(t, notesBin, pageA.origin)
	calcURL := startJSONRPC(t, calcBin, pageA.origin)
	probeURL := startJSONRPC(t, probeBin, pageA.origin)

	// The servers' own word on both origins, for the browser's to agree with.
	for _, target := range []string{notesURL, calcURL, probeURL} {
		if got := preflight(t, target, pageA.origin); got != http.StatusNoContent {
			t.Fatalf("preflight of %s from %s: %d, want 204", target, pageA.origin, got)
		}
		if got := preflight(t, target, pageB.origin); got != http.StatusForbidden {
			t.Fatalf("preflight of %s from %s: %d, want 403", target, pageB.origin, got)
		}
	}

	q := url.Values{"notes": {notesURL}, "calc": {calcURL}, "probe": {probeURL}}
	q.Set("refused", pageB.origin+"/refused.html?"+q.Encode())
	gone := runChromium(t, chromium, dir, pageA.origin+"/allowed.html?"+q.Encode())

	ctx, cancel := context.WithTimeout(context.Background(), pageTimeout)
	defer cancel()
	ctx, stopped := context.WithCancelCause(ctx)
	defer stopped(nil)
	go func() {
		select {
		case <-gone:
			stopped(errors.New("chromium exited"))
		case <-ctx.Done():
		}
	}()
	var allowed allowedReport
	pageA.result(ctx, t, &allowed)
	checkAllowed(t, &allowed, pageA.origin)
	var refused refusedReport
	pageB.result(ctx, t, &refused)
	checkRefused(t, &refused, pageB.origin)
}

// allowedReport is what the page of the listed origin saw (page/mcp.mjs).
type allowedReport struct {
	Origin          string  `json:"origin"`
	SessionID       *string `json:"sessionId"`
	ProtocolVersion *string `json:"protocolVersion"`
	Server          struct{ Name string }
	Tools           []string `json:"tools"`
	Notes           []struct {
		ID, Text, Priority string
		Tags               []string
	} `json:"notes"`
	Progress []struct {
		Progress float64  `json:"progress"`
		Total    *float64 `json:"total"`
	} `json:"progress"`
	Reindex  struct{ Notes int } `json:"reindex"`
	Resource []struct {
		URI      string `json:"uri"`
		MimeType string `json:"mimeType"`
		Text     string `json:"text"`
	} `json:"resource"`
	Prompt []struct {
		Role string `json:"role"`
		Text string `json:"text"`
	} `json:"prompt"`
	Terminated bool `json:"terminated"`
	SSE        struct {
		Tools []string        `json:"tools"`
		Found json.RawMessage `json:"found"`
	} `json:"sse"`
	Calc struct {
		Add   float64 `json:"add"`
		Stats struct {
			Count     int
			Sum, Mean float64
			Min, Max  float64
		} `json:"stats"`
		DivideByZero *struct {
			IsDivisionByZero bool            `json:"isDivisionByZero"`
			Code             int             `json:"code"`
			Message          string          `json:"message"`
			Data             json.RawMessage `json:"data"`
		} `json:"divideByZero"`
	} `json:"calc"`
	TwoClients struct {
		Echo       string `json:"echo"`
		ProbeError *struct {
			Code                 int  `json:"code"`
			IsCalculatorRPCError bool `json:"isCalculatorRPCError"`
		} `json:"probeError"`
		CalcError *struct {
			Code             int  `json:"code"`
			IsProbeRPCError  bool `json:"isProbeRPCError"`
			IsDivisionByZero bool `json:"isDivisionByZero"`
		} `json:"calcError"`
		DifferentClasses []string `json:"differentClasses"`
	} `json:"twoClients"`
}

func checkAllowed(t *testing.T, r *allowedReport, origin string) {
	t.Helper()
	if r.Origin != origin {
		t.Errorf("page origin %q, want %q", r.Origin, origin)
	}
	if r.SessionID == nil || *r.SessionID == "" {
		t.Error("the SDK read no Mcp-Session-Id: not exposed to scripts?")
	}
	if r.ProtocolVersion == nil || *r.ProtocolVersion == "" {
		t.Error("no negotiated protocol version")
	}
	if r.Server.Name != "notes" {
		t.Errorf("server name %q, want notes", r.Server.Name)
	}
	if want := "add_note delete_note get_note reindex search_notes"; strings.Join(r.Tools, " ") != want {
		t.Errorf("tools %q, want %q", r.Tools, want)
	}
	if len(r.Notes) != 3 {
		t.Fatalf("add_note returned %d notes, want 3: %+v", len(r.Notes), r.Notes)
	}
	for i, n := range r.Notes {
		if n.ID == "" || n.Text != fmt.Sprintf("note %d, written from a browser", i+1) || n.Priority != "high" {
			t.Errorf("add_note returned %+v", n)
		}
	}
	// One progress notification per note, each reaching the page before
	// the result (which the SDK drops progress after).
	if len(r.Progress) != 3 {
		t.Errorf("reindex: %d progress notifications reached the page, want 3: %+v", len(r.Progress), r.Progress)
	}
	for i, p := range r.Progress {
		if i > 0 && p.Progress <= r.Progress[i-1].Progress {
			t.Errorf("progress not increasing: %+v", r.Progress)
		}
		if p.Total != nil && p.Progress > *p.Total {
			t.Errorf("progress %g beyond its total %g", p.Progress, *p.Total)
		}
	}
	if r.Reindex.Notes != 3 {
		t.Errorf("reindex indexed %d notes, want 3", r.Reindex.Notes)
	}
	first := r.Notes[0]
	if len(r.Resource) != 1 || r.Resource[0].URI != "notes://"+first.ID || r.Resource[0].MimeType != "application/json" ||
		!strings.Contains(r.Resource[0].Text, first.Text) {
		t.Errorf("resources/read notes://%s: %+v", first.ID, r.Resource)
	}
	if len(r.Prompt) == 0 || r.Prompt[0].Role != "user" || !strings.Contains(r.Prompt[0].Text, first.Text) {
		t.Errorf("prompts/get review_notes (high): %+v", r.Prompt)
	}
	if !r.Terminated {
		t.Error("the session was not ended (DELETE)")
	}
	if want := "add_note delete_note get_note reindex search_notes"; strings.Join(r.SSE.Tools, " ") != want {
		t.Errorf("tools over HTTP+SSE %q, want %q", r.SSE.Tools, want)
	}
	if n := strings.Count(string(r.SSE.Found), "written from a browser"); n != 3 {
		t.Errorf("search_notes over HTTP+SSE found %d of the 3 notes: %s", n, r.SSE.Found)
	}
	c := r.Calc
	if c.Add != 5 {
		t.Errorf("calculator.add(2, 3) = %g, want 5", c.Add)
	}
	if s := c.Stats; s.Count != 5 || s.Sum != 14 || s.Mean != 2.8 || s.Min != 1 || s.Max != 5 {
		t.Errorf("calculator.stats = %+v", s)
	}
	if d := c.DivideByZero; d == nil || !d.IsDivisionByZero || d.Code != 1001 || string(d.Data) != `{"dividend":1}` {
		t.Errorf("calculator.divide(1, 0): %+v, want a DivisionByZeroError with code 1001 and data {\"dividend\":1}", d)
	}
	two := r.TwoClients
	if two.Echo != "from a browser" {
		t.Errorf("probe.echo: %q", two.Echo)
	}
	if e := two.ProbeError; e == nil || e.Code != -32602 || !e.IsCalculatorRPCError {
		t.Errorf("probe.add(2 ** 64, 1): %+v, want an invalid-params error that is the calculator client's RPCError", e)
	}
	if e := two.CalcError; e == nil || e.Code != 1001 || !e.IsDivisionByZero || !e.IsProbeRPCError {
		t.Errorf("calculator.divide(1, 0): %+v, want a DivisionByZeroError that is the probe client's RPCError", e)
	}
	if two.DifferentClasses == nil || len(two.DifferentClasses) > 0 {
		t.Errorf("classes the two clients export differently: %v, want none", two.DifferentClasses)
	}
}

// refusedReport is what the page of the origin not listed saw
// (page/refused.mjs).
type refusedReport struct {
	Origin string  `json:"origin"`
	MCP    attempt `json:"mcp"`
	Calc   attempt `json:"calc"`
	Fetch  attempt `json:"fetch"`
}

type attempt struct {
	Failed  bool   `json:"failed"`
	Value   string `json:"value"`
	Name    string `json:"name"`
	Message string `json:"message"`
	Cause   string `json:"cause"`
}

func checkRefused(t *testing.T, r *refusedReport, origin string) {
	t.Helper()
	if r.Origin != origin {
		t.Errorf("frame origin %q, want %q", r.Origin, origin)
	}
	for _, a := range []struct {
		what string
		attempt
	}{{"the SDK's connect", r.MCP}, {"the generated client's add", r.Calc}, {"fetch", r.Fetch}} {
		if !a.Failed {
			t.Errorf("%s from %s succeeded (%s); the origin is not listed", a.what, origin, a.Value)
			continue
		}
		// What a browser says of a request its CORS check stopped: a
		// network error, no status (the client libraries wrap it).
		if !strings.Contains(a.Message+" "+a.Cause, "Failed to fetch") {
			t.Errorf("%s from %s failed with %s: %s (cause %s), want the browser's network error", a.what, origin, a.Name, a.Message, a.Cause)
		}
	}
}

// preflight sends the preflight a page of origin sends before it POSTs JSON
// to target, and returns the status.
func preflight(t *testing.T, target, origin string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodOptions, target, nil)
	req.Header.Set("Origin", origin)
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "content-type")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// bundle writes mcp.js, refused.js and apps.js, the pages' scripts with the SDK and
// the generated client, to dir with esbuild (installed by npm ci in interop/).
func bundle(t *testing.T, dir string) {
	t.Helper()
	esbuild, err := filepath.Abs(filepath.Join("..", "node_modules", ".bin", "esbuild"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(esbuild); err != nil {
		t.Fatalf("esbuild is not installed: run npm ci in interop/ (interop/browser/run.sh does): %v", err)
	}
	cmd := exec.Command(esbuild, "--bundle", "--format=esm", "--platform=browser", "--target=es2022",
		"--log-level=warning", "--outdir="+dir, "page/mcp.mjs", "page/refused.mjs", "page/apps.mjs")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("esbuild: %v\n%s", err, out)
	}
}

// build builds the command pkg (./examples/calculator) of the enclosing
// repository into dir.
func build(t *testing.T, dir, pkg string) string {
	t.Helper()
	bin := filepath.Join(dir, filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-o", bin, pkg)
	cmd.Dir = filepath.Join("..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin
}

// pageServer serves the pages and their scripts on one origin, and takes
// the report a page POSTs to /result.
type pageServer struct {
	origin  string
	results chan []byte
}

// servePages serves dir's scripts and page/'s HTML on addr; name, when not
// "", replaces the host in the origin the browser is sent to.
func servePages(t *testing.T, dir, addr, name string) *pageServer {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	if name != "" {
		host = name
	}
	p := &pageServer{origin: "http://" + net.JoinHostPort(host, port), results: make(chan []byte, 1)}
	mux := http.NewServeMux()
	for _, f := range []string{"allowed.html", "refused.html", "apps.html"} {
		mux.HandleFunc("GET /"+f, func(w http.ResponseWriter, r *http.Request) { http.ServeFile(w, r, filepath.Join("page", f)) })
	}
	for _, f := range []string{"mcp.js", "refused.js", "apps.js"} {
		mux.HandleFunc("GET /"+f, func(w http.ResponseWriter, r *http.Request) { http.ServeFile(w, r, filepath.Join(dir, f)) })
	}
	mux.HandleFunc("POST /result", func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		select {
		case p.results <- b:
		default: // one report per page
		}
		w.WriteHeader(http.StatusNoContent)
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return p
}

// result waits for the page's report and decodes its result into v; a
// page that reports an error fails the test.
func (p *pageServer) result(ctx context.Context, t *testing.T, v any) {
	t.Helper()
	var b []byte
	select {
	case b = <-p.results:
	case <-ctx.Done():
		t.Fatalf("no report from the page of %s: %v", p.origin, context.Cause(ctx))
	}
	var rep struct {
		Result json.RawMessage `json:"result"`
		Error  string          `json:"error"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatalf("report from %s: %v: %s", p.origin, err, b)
	}
	if rep.Error != "" || rep.Result == nil {
		t.Fatalf("the page of %s failed: %s", p.origin, rep.Error)
	}
	t.Logf("report from %s: %s", p.origin, rep.Result)
	if err := json.Unmarshal(rep.Result, v); err != nil {
		t.Fatalf("report from %s: %v", p.origin, err)
	}
}

// startNotes starts examples/notes over HTTP with CORS for origin and
// returns its endpoint's URL, the first line it prints.
func startNotes(t *testing.T, bin, origin string) string {
	t.Helper()
	cmd := exec.Command(bin, "--http", "127.0.0.1:0", "--cors-origin", origin)
	cmd.Dir = t.TempDir()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	line := start(t, cmd, stdout, regexp.MustCompile(`^(http://127\.0\.0\.1:\d+/mcp)$`))
	return line
}

// startJSONRPC starts a JSON-RPC server over HTTP with CORS for origin
// (examples/calculator, internal/probe's command) and returns its URL, from
// the line it logs once it listens.
func startJSONRPC(t *testing.T, bin, origin string) string {
	t.Helper()
	cmd := exec.Command(bin, "--http", "127.0.0.1:0", "--cors-origin", origin)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	return "http://" + start(t, cmd, stderr, regexp.MustCompile(`"serving JSON-RPC over HTTP" addr=(127\.0\.0\.1:\d+)`))
}

// start starts cmd, reads out until a line matches ready (its first group
// is returned), and stops the process (SIGTERM, then SIGKILL) when the test
// ends; everything cmd wrote is logged if the test fails.
func start(t *testing.T, cmd *exec.Cmd, out io.Reader, ready *regexp.Regexp) string {
	t.Helper()
	var log syncBuffer
	if cmd.Stderr == nil {
		cmd.Stderr = &log
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	found := make(chan string, 1)
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			fmt.Fprintln(&log, sc.Text())
			if m := ready.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
		close(found)
	}()
	t.Cleanup(func() {
		stop(cmd)
		<-drained
		if t.Failed() {
			t.Logf("%s output:\n%s", filepath.Base(cmd.Path), log.String())
		}
	})
	select {
	case v, ok := <-found:
		if !ok {
			t.Fatalf("%s exited before it was ready", filepath.Base(cmd.Path))
		}
		return v
	case <-time.After(30 * time.Second):
		t.Fatalf("%s not ready within 30s", filepath.Base(cmd.Path))
	}
	return ""
}

// stop ends a server process: SIGTERM, and SIGKILL if it has not exited
// within 10 seconds.
func stop(cmd *exec.Cmd) {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-done
	}
}

// runChromium opens page in a headless Chromium with a profile of its own,
// killed with all its processes (its own process group) when the test ends.
// The channel is closed when it exits.
func runChromium(t *testing.T, chromium, dir, page string) <-chan struct{} {
	t.Helper()
	cmd := exec.Command(chromium,
		"--headless=new", "--no-sandbox", "--disable-gpu",
		"--user-data-dir="+filepath.Join(dir, "profile"),
		"--no-first-run", "--no-default-browser-check", "--disable-extensions",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-crash-reporter", "--disable-breakpad",
		"--enable-logging=stderr", "--v=0", // console messages, for a failing test's log
		page)
	var log syncBuffer
	cmd.Stdout, cmd.Stderr = &log, &log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	gone := make(chan struct{})
	var err error
	go func() { err = cmd.Wait(); close(gone) }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-gone
		if err != nil && !isKilled(err) {
			t.Errorf("chromium: %v", err)
		}
		if t.Failed() {
			t.Logf("chromium output:\n%s", log.String())
		}
	})
	return gone
}

func isKilled(err error) bool {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled()
}

// syncBuffer collects a process's output for the log.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
