// Package interop drives an MCP server over stdio and over HTTP with clients
// nobody in this repository wrote: the official Go SDK and mcp-go here, the
// official TypeScript SDK in ts/. The server is examples/notes unless
// INTEROP_SERVER (stdio) or INTEROP_HTTP_SERVER (HTTP) names another
// executable (run.sh --standin points INTEROP_SERVER at cmd/standin).
package interop

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// serverArgv is the command line of the server under test, set by TestMain.
var serverArgv []string

// featuresArgv is the command line of the server the resources, prompts,
// completion, sampling and elicitation tests use (examples/conformance, or
// INTEROP_FEATURES_SERVER), set by TestMain. With --stdio it serves over
// stdio; without, over HTTP, printing its URL first.
var featuresArgv []string

func TestMain(m *testing.M) {
	code, err := setup(m)
	removeReplicas()
	if err != nil {
		fmt.Fprintln(os.Stderr, "interop:", err)
		os.Exit(1)
	}
	os.Exit(code)
}

// setup resolves the server commands. Over stdio: INTEROP_SERVER (a path,
// then optional arguments separated by spaces). Over HTTP:
// INTEROP_HTTP_SERVER, a command that serves MCP over HTTP and prints its
// endpoint's URL as its first line on stdout. Either defaults to
// examples/notes built from the enclosing repository (with --http
// 127.0.0.1:0 for HTTP). The feature tests' server: INTEROP_FEATURES_SERVER,
// by default examples/conformance built likewise.
func setup(m *testing.M) (int, error) {
	stdio := strings.TrimSpace(os.Getenv("INTEROP_SERVER"))
	overHTTP := strings.TrimSpace(os.Getenv("INTEROP_HTTP_SERVER"))
	features := strings.TrimSpace(os.Getenv("INTEROP_FEATURES_SERVER"))
	var notes string
	var err error
	if stdio == "" || overHTTP == "" || features == "" {
		dir, err := os.MkdirTemp("", "interop-notes-")
		if err != nil {
			return 0, err
		}
		defer os.RemoveAll(dir)
		if stdio == "" || overHTTP == "" {
			if notes, err = buildNotes(dir); err != nil {
				return 0, err
			}
		}
		if features == "" {
			bin, err := buildExample(dir, "conformance", "set INTEROP_FEATURES_SERVER to test another server")
			if err != nil {
				return 0, err
			}
			featuresArgv = []string{bin}
		}
	}
	if features != "" {
		if featuresArgv, err = commandLine(features); err != nil {
			return 0, err
		}
	}
	if stdio == "" {
		serverArgv = []string{notes}
	} else if serverArgv, err = commandLine(stdio); err != nil {
		return 0, err
	}
	if overHTTP == "" {
		httpServerArgv = []string{notes, "--http", "127.0.0.1:0"}
	} else if httpServerArgv, err = commandLine(overHTTP); err != nil {
		return 0, err
	}
	return m.Run(), nil
}

// serverCommand returns a fresh, unstarted server process. It runs in its own
// empty directory, so each test starts with an empty notes store, and its
// stderr is shown when the test fails.
func serverCommand(t *testing.T) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(serverArgv[0], serverArgv[1:]...)
	cmd.Dir = t.TempDir()
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	t.Cleanup(func() {
		if t.Failed() && stderr.Len() > 0 {
			t.Logf("server stderr:\n%s", stderr.String())
		}
	})
	return cmd
}

// syncBuffer is a bytes.Buffer safe for the concurrent writes of a process's
// stderr copier and reads of a test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
	changes
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.fire()
	return s.b.Write(p)
}

// changes wakes the tests waiting for a recorder to note something: each
// note closes the channel next returned.
type changes struct {
	cmu sync.Mutex
	ch  chan struct{}
}

// next returns the channel the next change closes.
func (c *changes) next() <-chan struct{} {
	c.cmu.Lock()
	defer c.cmu.Unlock()
	if c.ch == nil {
		c.ch = make(chan struct{})
	}
	return c.ch
}

// fire wakes every waiter.
func (c *changes) fire() {
	c.cmu.Lock()
	defer c.cmu.Unlock()
	if c.ch != nil {
		close(c.ch)
		c.ch = nil
	}
}

// waitFor blocks until cond holds, checking it after every change, and
// reports false if it still does not within d.
func (c *changes) waitFor(d time.Duration, cond func() bool) bool {
	timeout := time.NewTimer(d)
	defer timeout.Stop()
	for {
		changed := c.next() // before cond, so no change is missed
		if cond() {
			return true
		}
		select {
		case <-changed:
		case <-timeout.C:
			return cond()
		}
	}
}

func (s *syncBuffer) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Len()
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// wireTool is a tool descriptor as the client handed it to us, re-read as
// JSON so that every client is checked the same way.
type wireTool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
	Annotations  *struct {
		ReadOnlyHint    *bool `json:"readOnlyHint"`
		DestructiveHint *bool `json:"destructiveHint"`
		IdempotentHint  *bool `json:"idempotentHint"`
		OpenWorldHint   *bool `json:"openWorldHint"`
	} `json:"annotations"`
	Icons []struct {
		Src      string   `json:"src"`
		MIMEType string   `json:"mimeType"`
		Sizes    []string `json:"sizes"`
		Theme    string   `json:"theme"`
	} `json:"icons"`
	Meta map[string]json.RawMessage `json:"_meta"`
}

// wireResult is a tools/call result as the client handed it to us.
type wireResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

// text joins the text blocks of a result.
func (r *wireResult) text() string {
	var parts []string
	for _, c := range r.Content {
		if c.Type == "text" {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// wireEvent is a message about one call, in the order the client read it.
type wireEvent struct {
	Response bool      // the call's response; otherwise a progress notification
	Progress float64   // progress value
	Total    *float64  // progress total, when sent
	At       time.Time // when the client read it
	Raw      string    // the message, for failure reports
}

func (e wireEvent) String() string {
	if e.Response {
		return "response " + e.Raw + " @" + e.At.Format("15:04:05.000")
	}
	return fmt.Sprintf("progress(%v)@%s", e.Progress, e.At.Format("15:04:05.000"))
}

// session is one connected client, whichever library it comes from.
type session interface {
	// ProtocolVersion is the negotiated protocol revision.
	ProtocolVersion() string
	ListTools(t *testing.T) ([]wireTool, error)
	// CallTool calls a tool; a non-nil token asks for progress under it.
	CallTool(t *testing.T, name string, args any, token any) (*wireResult, error)
	// Wire returns the progress notifications and the response of the call
	// made with token, in the order the client read them off stdout.
	Wire(token any) []wireEvent
	// ErrorCode extracts the JSON-RPC error code from a call's error.
	ErrorCode(err error) (int, bool)
}

// canceller is a session that can cancel a call and report, from the wire,
// what arrived for it afterwards.
type canceller interface {
	session
	// CallToolCancelled calls a tool with progress under token and cancels
	// the call once the first progress notification arrives. It returns
	// when the call started, when the cancellation was written, and the
	// error the client returned.
	CallToolCancelled(t *testing.T, name string, args any, token any) (started, cancelled time.Time, err error)
}

// wireLog records, per progress token, what the client read off the wire.
type wireLog struct {
	mu      sync.Mutex
	events  map[string][]wireEvent
	changes // fired by add, and by the recorder's notes of cancellations
}

func tokenKey(token any) string { return fmt.Sprint(token) }

func (l *wireLog) add(token any, e wireEvent) {
	l.mu.Lock()
	defer l.mu.Unlock()
	defer l.fire()
	if l.events == nil {
		l.events = map[string][]wireEvent{}
	}
	k := tokenKey(token)
	l.events[k] = append(l.events[k], e)
}

func (l *wireLog) get(token any) []wireEvent {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]wireEvent(nil), l.events[tokenKey(token)]...)
}

// progressParams is the params object of notifications/progress.
type progressParams struct {
	ProgressToken any      `json:"progressToken"`
	Progress      float64  `json:"progress"`
	Total         *float64 `json:"total"`
}

// brief shows a value as JSON, cut short for failure messages.
func brief(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 160 {
		return string(b[:150]) + fmt.Sprintf("...(%d bytes)", len(b))
	}
	return string(b)
}

// remarshal turns one client library's value into our view of it.
func remarshal(from, to any) error {
	b, err := json.Marshal(from)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, to)
}
