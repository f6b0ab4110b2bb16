package mcpbench

import (
	"crypto/rand"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"sync"
	"unicode/utf8"
)

// refTunedHTTP is the reference Streamable HTTP server (reference_http.go)
// tuned as far as encoding/json lets a hand-written server go: each body is
// decoded once, into one struct that holds every request's params and both
// tools' arguments (the reference decodes the envelope, then the params,
// then the arguments, each json.Unmarshal scanning its input twice), and
// each response is appended by hand into a pooled buffer, event framing
// included, and written in one Write that net/http sends with the end of
// the response (the reference encodes the result, encodes the envelope
// around it, copies both into the event and flushes). It serves the same
// sessions, checks the same headers and answers the same bytes.
type refTunedHTTP struct {
	sse bool

	mu       sync.Mutex
	sessions map[string]*refSession
}

func newRefTunedHTTP(sse bool) *refTunedHTTP {
	return &refTunedHTTP{sse: sse, sessions: map[string]*refSession{}}
}

// refTunedRequest is every request the benchmark sends, decoded at once.
type refTunedRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  struct {
		Name      string `json:"name"`
		Arguments struct {
			A    int    `json:"a"`
			B    int    `json:"b"`
			Text string `json:"text"`
		} `json:"arguments"`
		Meta *refMeta `json:"_meta"`
	} `json:"params"`
}

var refTunedBufs = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

func (h *refTunedHTTP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !refLoopbackHost(r.Host) {
		refHTTPError(w, http.StatusForbidden, nil, -32600, "forbidden host")
		return
	}
	switch r.Method {
	case http.MethodPost:
		h.post(w, r)
	case http.MethodDelete:
		sid := r.Header.Get("Mcp-Session-Id")
		h.mu.Lock()
		_, ok := h.sessions[sid]
		delete(h.sessions, sid)
		h.mu.Unlock()
		if !ok {
			refHTTPError(w, http.StatusNotFound, nil, -32600, "unknown session")
			return
		}
		w.WriteHeader(http.StatusNoContent)
	default:
		w.Header()["Allow"] = []string{"POST, DELETE"}
		refHTTPError(w, http.StatusMethodNotAllowed, nil, -32600, "method not allowed")
	}
}

func (h *refTunedHTTP) post(w http.ResponseWriter, r *http.Request) {
	bp := refTunedBufs.Get().(*[]byte)
	defer refTunedBufs.Put(bp)
	body, err := readBody((*bp)[:0], http.MaxBytesReader(w, r.Body, 4<<20))
	if err != nil {
		refHTTPError(w, http.StatusRequestEntityTooLarge, nil, -32600, "body too large")
		return
	}
	var req refTunedRequest
	if err := json.Unmarshal(body, &req); err != nil {
		refHTTPError(w, http.StatusBadRequest, nil, -32700, "parse error")
		return
	}
	var (
		sess   *refSession
		modern bool
	)
	switch {
	case req.Method == "initialize":
		sid := rand.Text()
		sess = &refSession{}
		h.mu.Lock()
		h.sessions[sid] = sess
		h.mu.Unlock()
		w.Header()["Mcp-Session-Id"] = []string{sid}
	case r.Header.Get("Mcp-Protocol-Version") == Versions[EraModern]:
		if r.Header.Get("Mcp-Method") != req.Method {
			refHTTPError(w, http.StatusBadRequest, req.ID, -32020, "Mcp-Method does not match the body")
			return
		}
		if req.Method == "tools/call" && r.Header.Get("Mcp-Name") != req.Params.Name {
			refHTTPError(w, http.StatusBadRequest, req.ID, -32020, "Mcp-Name does not match the tool called")
			return
		}
		modern = true
	default:
		sid := r.Header.Get("Mcp-Session-Id")
		if sid == "" {
			refHTTPError(w, http.StatusBadRequest, req.ID, -32600, "missing Mcp-Session-Id")
			return
		}
		h.mu.Lock()
		sess = h.sessions[sid]
		h.mu.Unlock()
		if sess == nil {
			refHTTPError(w, http.StatusNotFound, req.ID, -32600, "unknown session")
			return
		}
	}
	if req.ID == nil {
		w.WriteHeader(http.StatusAccepted) // notifications/initialized and the like
		return
	}
	op := refTunedBufs.Get().(*[]byte)
	defer refTunedBufs.Put(op)
	b := (*op)[:0]
	if h.sse {
		w.Header()["Content-Type"] = []string{"text/event-stream"}
		w.Header()["Cache-Control"] = []string{"no-cache"}
		w.Header()["X-Accel-Buffering"] = []string{"no"}
		if sess != nil {
			// Event ids name the stream, as resumable streams need.
			stream := sess.events.Add(1)
			b = append(b, "id: "...)
			b = strconv.AppendInt(b, stream, 10)
			b = append(b, "_1\nretry: 1000\ndata:\n\nid: "...)
			b = strconv.AppendInt(b, stream, 10)
			b = append(b, "_2\n"...)
		}
		b = append(b, "data: "...)
	} else {
		w.Header()["Content-Type"] = []string{"application/json"}
	}
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, req.ID...)
	switch req.Method {
	case "initialize":
		sess.initialized.Store(true)
		b = append(b, `,"result":{"protocolVersion":"`...)
		b = append(b, Versions[EraLegacy]...)
		b = append(b, `","capabilities":{"tools":{}},"serverInfo":{"name":"bench","version":"1.0.0"}}}`...)
	case "tools/call":
		var ok bool
		if b, ok = h.callTool(b, &req, sess, modern); !ok {
			refHTTPError(w, http.StatusOK, req.ID, -32602, "invalid tools/call")
			return
		}
	default:
		b = append(b, `,"error":{"code":-32601,"message":"method not found"}}`...)
	}
	if h.sse {
		b = append(b, "\n\n"...)
	}
	w.Write(b)
	*op = b[:0]
	*bp = body[:0]
}

// callTool appends a tools/call's result member and the end of the
// response; false for a call the reference refuses.
func (h *refTunedHTTP) callTool(b []byte, req *refTunedRequest, sess *refSession, modern bool) ([]byte, bool) {
	p := &req.Params
	if modern && (p.Meta == nil || p.Meta.ProtocolVersion != Versions[EraModern]) {
		return b, false
	}
	if !modern && !sess.initialized.Load() {
		return b, false
	}
	sp := refTunedBufs.Get().(*[]byte)
	defer refTunedBufs.Put(sp)
	structured := (*sp)[:0]
	var ok bool
	switch p.Name {
	case "add":
		structured = append(structured, `{"sum":`...)
		structured = strconv.AppendInt(structured, int64(p.Arguments.A+p.Arguments.B), 10)
		structured = append(structured, '}')
		ok = true
	case "echo":
		structured = append(structured, `{"text":`...)
		structured = appendJSONString(structured, p.Arguments.Text)
		structured = append(structured, '}')
		ok = true
	}
	if !ok {
		return b, false
	}
	*sp = structured[:0]
	b = append(b, `,"result":{"content":[{"type":"text","text":`...)
	b = appendJSONString(b, structured)
	b = append(b, `}],"structuredContent":`...)
	b = append(b, structured...)
	if modern {
		b = append(b, `,"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"bench","version":"1.0.0"}}`...)
	}
	return append(b, "}}"...), true
}

// readBody appends what r reads to b.
func readBody(b []byte, r io.Reader) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

// appendJSONString appends s as a JSON string, as encoding/json writes it
// without HTML escaping (invalid UTF-8 becomes U+FFFD).
func appendJSONString[S ~string | ~[]byte](b []byte, s S) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(string(s[i:]))
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
