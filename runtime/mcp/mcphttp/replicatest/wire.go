package replicatest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/sse"
)

// Wire is a client that speaks raw Streamable HTTP to the proxy, so a test
// knows which request went where and sees every byte.
type Wire struct {
	t       *testing.T
	URL     string
	SID     string
	Version string
	HTTP    *http.Client
}

// NewWire returns a Wire for the cluster's endpoint.
func (c *Cluster) NewWire(t *testing.T) *Wire {
	return &Wire{t: t, URL: c.URL, HTTP: &http.Client{Timeout: 20 * time.Second}}
}

// Do sends a request and returns the response; the caller closes its body.
func (w *Wire) Do(method, body string, hdr ...string) *http.Response {
	w.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, w.URL, rd)
	if err != nil {
		w.t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if w.SID != "" {
		req.Header.Set("Mcp-Session-Id", w.SID)
	}
	if w.Version != "" {
		req.Header.Set("Mcp-Protocol-Version", w.Version)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := w.HTTP.Do(req)
	if err != nil {
		w.t.Fatalf("%s: %v", method, err)
	}
	return resp
}

// Post POSTs body and returns the status and the body read whole.
func (w *Wire) Post(body string) (int, []byte) {
	w.t.Helper()
	resp := w.Do(http.MethodPost, body)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// Initialize starts a session at version with the client capabilities
// caps (a JSON object) and sends notifications/initialized.
func (w *Wire) Initialize(version, caps string) {
	w.t.Helper()
	resp := w.Do(http.MethodPost, fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":%q,"capabilities":%s,"clientInfo":{"name":"replicatest","version":"1"}}}`, version, caps))
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Mcp-Session-Id") == "" {
		w.t.Fatalf("initialize: %d %s", resp.StatusCode, b)
	}
	w.SID, w.Version = resp.Header.Get("Mcp-Session-Id"), version
	if st, b := w.Post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); st != http.StatusAccepted {
		w.t.Fatalf("notifications/initialized: %d %s", st, b)
	}
}

// Call calls tool with args (a JSON object) as request id, and returns the
// status and the structuredContent of the result (of the response event
// when the answer is a stream).
func (w *Wire) Call(id int, tool, args string) (int, json.RawMessage) {
	w.t.Helper()
	resp := w.Do(http.MethodPost, ToolCall(id, tool, args, ""))
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	msg := lastMessage(w.t, resp)
	var r struct {
		Result struct {
			StructuredContent json.RawMessage `json:"structuredContent"`
		} `json:"result"`
		Error json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(msg, &r); err != nil || r.Error != nil {
		w.t.Fatalf("call %s: %s", tool, msg)
	}
	return resp.StatusCode, r.Result.StructuredContent
}

// ToolCall is the body of a tools/call; a token asks for progress.
func ToolCall(id int, tool, args, token string) string {
	meta := ""
	if token != "" {
		meta = fmt.Sprintf(`,"_meta":{"progressToken":%q}`, token)
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s%s}}`, id, tool, args, meta)
}

// lastMessage returns the body of a JSON response, or the last message of
// an event stream.
func lastMessage(t *testing.T, resp *http.Response) []byte {
	t.Helper()
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(resp.Body)
		return b
	}
	var last []byte
	rd := sse.NewReader(resp.Body)
	for {
		ev, err := rd.Next()
		if err != nil {
			return last
		}
		if ev.Data != "" {
			last = []byte(ev.Data)
		}
	}
}

// Message is one message read off an event stream, with its event id.
type Message struct {
	ID     string
	Method string          `json:"method"`
	ReqID  json.RawMessage `json:"id"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Raw    string
}

// Stream reads the messages of an event stream.
type Stream struct {
	Resp *http.Response
	rd   *sse.Reader
}

// NewStream reads resp's event stream.
func NewStream(resp *http.Response) *Stream { return &Stream{Resp: resp, rd: sse.NewReader(resp.Body)} }

// Next returns the next message; a priming event (no data) comes back with
// an empty Raw.
func (s *Stream) Next() (Message, error) {
	ev, err := s.rd.Next()
	if err != nil {
		return Message{}, err
	}
	m := Message{ID: ev.ID, Raw: ev.Data}
	if ev.Data != "" {
		if err := json.Unmarshal([]byte(ev.Data), &m); err != nil {
			return m, fmt.Errorf("event %q: %v", ev.Data, err)
		}
	}
	return m, nil
}

// LastEventID is the id of the last event read.
func (s *Stream) LastEventID() string { return s.rd.LastEventID() }

// Close closes the stream's body.
func (s *Stream) Close() { s.Resp.Body.Close() }

// progressValue returns the progress of a notifications/progress.
func progressValue(m Message) float64 {
	var p struct {
		Progress float64 `json:"progress"`
	}
	_ = json.Unmarshal(m.Params, &p)
	return p.Progress
}

// member returns the member name of the JSON object raw, compacted.
func member(raw json.RawMessage, name string) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	var b bytes.Buffer
	if json.Compact(&b, m[name]) != nil {
		return string(m[name])
	}
	return b.String()
}
