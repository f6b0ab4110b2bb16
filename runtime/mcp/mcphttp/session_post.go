package mcphttp

// A legacy session's POSTs and the streams that answer them.

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/internal/httpguard"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/internal/httpwire"
)

// servePOST serves a message POSTed to the session.
func (s *session) servePOST(w http.ResponseWriter, r *http.Request, body []byte, env *envelope) {
	if !checkLegacyVersion(w, r, body, env.ID) {
		return
	}
	if env.Batch && s.ss.ProtocolVersion() == mcp.Version20250326 {
		if answers, ok := responseBatch(body); ok {
			// 2025-03-26 lets a client batch its answers to the requests
			// the session sent it.
			for _, a := range answers {
				s.ss.Handle(r.Context(), a, nil)
			}
			w.WriteHeader(http.StatusAccepted)
			return
		}
	}
	if env.isRequest() {
		s.serveCall(w, r, body, env)
		return
	}
	if s.h.rep != nil && !env.Batch && s.h.rep.route(w, r, s, body, env) {
		return
	}
	// A notification or a response: handled at once. A notifications/cancelled
	// cancels the session's call it names; a response is the client's answer
	// to a request the session sent it (elicitation/create, say), which
	// Handle hands to the call waiting for it, wherever that call's stream
	// is (the call may be waiting on another connection).
	s.mu.Lock()
	s.activate()
	s.mu.Unlock()
	reply := s.ss.Handle(r.Context(), body, nil)
	s.mu.Lock()
	s.deactivate()
	s.mu.Unlock()
	if env.IsResponse() {
		// Accepted even when nothing waits for it any more (an answer that
		// came after its request was cancelled): there is nothing to say.
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if len(reply) > 0 {
		status := legacyStatus(reply)
		if status == http.StatusOK {
			status = http.StatusBadRequest // a notification has no reply unless it was refused
		}
		writeJSON(w, status, reply)
		return
	}
	w.WriteHeader(http.StatusAccepted)
}

// responseBatch returns the messages of body, a batch, when they are all
// responses.
func responseBatch(body []byte) ([]json.RawMessage, bool) {
	var msgs []json.RawMessage
	if json.Unmarshal(body, &msgs) != nil || len(msgs) == 0 {
		return nil, false
	}
	for _, m := range msgs {
		var env envelope
		if !env.Scan(m) || !env.IsResponse() || env.ID == nil {
			return nil, false
		}
	}
	return msgs, true
}

// checkLegacyVersion applies the MCP-Protocol-Version rule of a session's
// requests (see session); on failure it answers 400 and returns false.
func checkLegacyVersion(w http.ResponseWriter, r *http.Request, body, id []byte) bool {
	v := httpguard.HeaderValue(r.Header, httpwire.HdrProtocolVersion)
	if v == "" || slices.Contains(mcp.LegacyVersions, v) {
		return true
	}
	writeBodyError(w, http.StatusBadRequest, body, id, runtime.CodeInvalidRequest,
		"Bad Request: unsupported MCP-Protocol-Version "+strconv.Quote(v)+" for a session (supported: 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25)")
	return false
}

// serveStream keeps the connection cn of the stream st open until it is
// released or the client goes away.
func (s *session) serveStream(r *http.Request, st *stream, cn *conn) {
	s.mu.Lock()
	s.activate()
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.deactivate()
		s.mu.Unlock()
	}()
	for {
		select {
		case <-cn.wake:
		case <-r.Context().Done():
		}
		st.mu.Lock()
		if st.conn == cn && r.Context().Err() != nil {
			st.detach(releaseGone)
		}
		gone := st.conn != cn
		st.mu.Unlock()
		if gone {
			s.h.noteChange()
			return
		}
	}
}

// findStream returns the live stream named name, or nil when it has ended.
func (s *session) findStream(name string) *stream {
	s.mu.Lock()
	defer s.mu.Unlock()
	if name == standaloneName {
		return s.standalone
	}
	for _, c := range s.calls {
		if c.name == name {
			return &c.stream
		}
	}
	return nil
}
