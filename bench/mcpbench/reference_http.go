package mcpbench

import (
	"crypto/rand"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
)

var discardLogger = slog.New(slog.DiscardHandler)

// refHTTP is the reference Streamable HTTP server: the reference server's
// JSON work (reference_server.go) behind the smallest net/http handler that
// serves both eras. A POST body is decoded once into concrete structs; an
// initialize opens a legacy session (a random id in a map), a request with
// that id in Mcp-Session-Id is served by it, and a 2026-07-28 request
// (MCP-Protocol-Version header) by one shared stateless server after its
// Mcp-Method and Mcp-Name headers are checked against the body. The answer is
// application/json, or with sse an event stream framed as rpcgen frames it:
// for a legacy session a priming event (an id, retry and empty data) and the
// response as an event with an id; for 2026-07-28 the response as an event;
// the stream is written at once and flushed, as a streaming handler does
// (rpcgen flushes the priming event and the response separately).
// DELETE ends a session. The Host of a request must be a loopback name, as
// every peer checks by default.
type refHTTP struct {
	sse    bool
	modern refServer

	mu       sync.Mutex
	sessions map[string]*refSession
}

// refSession is one legacy session.
type refSession struct {
	refServer
	events atomic.Int64 // event ids of its SSE streams
}

func newRefHTTP(sse bool) *refHTTP {
	return &refHTTP{sse: sse, sessions: map[string]*refSession{}}
}

func refHTTPError(w http.ResponseWriter, status int, id json.RawMessage, code int, message string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	w.Header()["Content-Type"] = []string{"application/json"}
	w.WriteHeader(status)
	w.Write(refErrorReply(id, code, message))
}

func refLoopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return host == "127.0.0.1" || host == "localhost" || host == "::1"
}

func (h *refHTTP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
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

func (h *refHTTP) post(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 4<<20))
	if err != nil {
		refHTTPError(w, http.StatusRequestEntityTooLarge, nil, -32600, "body too large")
		return
	}
	var req refRequestIn
	if err := json.Unmarshal(body, &req); err != nil {
		refHTTPError(w, http.StatusBadRequest, nil, -32700, "parse error")
		return
	}
	var (
		srv     *refServer
		sess    *refSession
		mcpName *string
	)
	switch {
	case req.Method == "initialize":
		sid := rand.Text()
		sess = &refSession{}
		h.mu.Lock()
		h.sessions[sid] = sess
		h.mu.Unlock()
		w.Header()["Mcp-Session-Id"] = []string{sid}
		srv = &sess.refServer
	case r.Header.Get("Mcp-Protocol-Version") == Versions[EraModern]:
		if r.Header.Get("Mcp-Method") != req.Method {
			refHTTPError(w, http.StatusBadRequest, req.ID, -32020, "Mcp-Method does not match the body")
			return
		}
		name := r.Header.Get("Mcp-Name")
		mcpName = &name
		srv = &h.modern
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
		srv = &sess.refServer
	}
	out := srv.serve(&req, mcpName)
	if out == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if !h.sse {
		w.Header()["Content-Type"] = []string{"application/json"}
		w.Write(out)
		return
	}
	w.Header()["Content-Type"] = []string{"text/event-stream"}
	w.Header()["Cache-Control"] = []string{"no-cache"}
	w.Header()["X-Accel-Buffering"] = []string{"no"}
	b := make([]byte, 0, len(out)+64)
	if sess != nil {
		// Event ids name the stream, as resumable streams need.
		stream := strconv.FormatInt(sess.events.Add(1), 10)
		b = append(b, "id: "...)
		b = append(b, stream...)
		b = append(b, "_1\nretry: 1000\ndata:\n\nid: "...)
		b = append(b, stream...)
		b = append(b, "_2\n"...)
	}
	b = append(b, "data: "...)
	b = append(b, out...)
	b = append(b, "\n\n"...)
	w.Write(b)
	w.(http.Flusher).Flush()
}
