package interop

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
)

// What the feature tests expect of the server: examples/conformance, whose
// resources, prompts and completions the official conformance scenarios
// name.
const (
	staticTextURI    = "test://static-text"
	staticBinaryURI  = "test://static-binary"
	watchedURI       = "test://watched-resource"
	recordTemplate   = "test://template/{id}/data"
	promptWithArgs   = "test_prompt_with_arguments"
	touchWatchedTool = "test_touch_watched_resource"
)

var (
	// The fixture's resources, then the files of its skill (skills/).
	wantResources = []string{staticTextURI, staticBinaryURI, watchedURI,
		"skill://mcp-conformance/SKILL.md", "skill://mcp-conformance/references/TOOLS.md"}
	wantPrompts = []string{"test_simple_prompt", promptWithArgs, "test_prompt_with_embedded_resource", "test_prompt_with_image", "test_input_required_result_prompt"}
	// The answers the test handlers give, which the tools repeat.
	elicitUser    = "interop-user"
	elicitEmail   = "interop@example.com"
	sampledPrefix = "sampled: "
)

// featuresCommand returns a fresh, unstarted feature server serving over
// stdio, its stderr shown when the test fails.
func featuresCommand(t *testing.T) *exec.Cmd {
	t.Helper()
	argv := append(slices.Clone(featuresArgv), "--stdio")
	cmd := exec.Command(argv[0], argv[1:]...)
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

// startFeaturesHTTP starts the feature server over HTTP on a free port.
func startFeaturesHTTP(t *testing.T) *httpServer {
	t.Helper()
	return startHTTPServerArgv(t, append(slices.Clone(featuresArgv), "--addr", "127.0.0.1:0"))
}

// msgTally counts what a client read from the server: the methods of the
// requests and notifications, and the resultType of the results (2026-07-28
// "input_required" results carry the server's questions).
type msgTally struct {
	mu      sync.Mutex
	methods map[string]int
	results map[string]int
	changes // fired whenever a message is counted
}

// waitMethod blocks until the client has read more than n requests or
// notifications of method, or ctx ends.
func (m *msgTally) waitMethod(ctx context.Context, name string, n int) error {
	for {
		changed := m.next() // before the count, so no change is missed
		got := m.method(name)
		if got > n {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("%s: %d read, want more than %d: %w", name, got, n, ctx.Err())
		}
	}
}

// note counts one message (or batch) as read off the wire.
func (m *msgTally) note(data []byte) {
	data = []byte(strings.TrimSpace(string(data)))
	var msgs []json.RawMessage
	if len(data) > 0 && data[0] == '[' {
		if json.Unmarshal(data, &msgs) != nil {
			return
		}
	} else {
		msgs = []json.RawMessage{data}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.methods == nil {
		m.methods, m.results = map[string]int{}, map[string]int{}
	}
	for _, raw := range msgs {
		var msg struct {
			Method string `json:"method"`
			Result *struct {
				ResultType string `json:"resultType"`
			} `json:"result"`
		}
		if json.Unmarshal(raw, &msg) != nil {
			continue
		}
		switch {
		case msg.Method != "":
			m.methods[msg.Method]++
		case msg.Result != nil:
			m.results[msg.Result.ResultType]++
		}
	}
	m.fire()
}

// method reports how many requests or notifications of method the client
// read.
func (m *msgTally) method(name string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.methods[name]
}

// resultType reports how many results of type rt the client read.
func (m *msgTally) resultType(rt string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.results[rt]
}

// wireRecord is a record as the test://template/{id}/data resource holds it.
type wireRecord struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// promptMessage is a prompt message as JSON shows it.
type promptMessage struct {
	Role    string `json:"role"`
	Content struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		Data     string `json:"data"`
		MIMEType string `json:"mimeType"`
		Resource *struct {
			URI  string `json:"uri"`
			Text string `json:"text"`
		} `json:"resource"`
	} `json:"content"`
}

// escapeVar percent-encodes a template variable's value as RFC 6570 simple
// expansion does: everything but the unreserved characters.
func escapeVar(v string) string {
	var b strings.Builder
	for _, c := range []byte(v) {
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}
