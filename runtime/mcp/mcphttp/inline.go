package mcphttp

import (
	"net/http"

	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// Where a legacy call runs. On HTTP/1.x a call whose response stays JSON
// runs on the goroutine serving its POST (inline): no goroutine, no
// hand-off. An event stream may end before its call (mcpserver.CloseStream, a
// resume taking it over, the session ending); on that goroutine the
// response could then only end by taking the connection from net/http and
// closing it, so it must say Connection: close and the client opens a new
// connection for its next request. A call whose response may become an
// event stream therefore runs on a goroutine of its own, as on HTTP/2: an
// early end returns the POST's handler and the connection stays usable.
//
// Which calls stream is known up front only in part: when the call asks for
// progress (a progressToken). For the rest, the handler learns: a method or
// tool whose inline call turned into an event stream (a log message, a
// request of the server, CloseStream) runs its later calls on their own
// goroutines, in every session.
//
// With Options.SSE every response is an event stream, but one that only
// holds the priming event and the answer needs nothing of the above: an
// Options.SSE call runs inline too, its headers and priming event held
// back until it answers (conn.commit), and it ends with its handler, the
// connection staying usable. Only when something must be written before
// the answer (a message of the call, the priming event's flush primeDelay
// later, an early end) do the headers go out, saying Connection: close,
// and the method or tool is learned as above.

// maxStreamers bounds the methods and tools the handler remembers.
const maxStreamers = 1024

// streamKey is what h.streamers knows a call by: the tool's raw name for
// tools/call, the raw method otherwise (nil for a batch).
func streamKey(env *envelope) []byte {
	if env.Name != nil && env.MethodIs(mcp.MethodToolsCall) {
		return env.Name
	}
	return env.Method
}

// runsInline reports whether the call env on r, answered through w, runs
// on the POST's goroutine (see above).
func (h *Handler) runsInline(w http.ResponseWriter, r *http.Request, env *envelope) bool {
	if r.ProtoMajor != 1 || env.Batch || env.ProgressToken || !canHijack(w) {
		return false
	}
	if m := h.streamers.Load(); m != nil {
		if _, ok := (*m)[string(streamKey(env))]; ok {
			return false
		}
	}
	return true
}

// noteStreamer remembers that an inline call known by key (see streamKey)
// turned into an event stream.
func (h *Handler) noteStreamer(key []byte) {
	if key == nil {
		return
	}
	h.streamersMu.Lock()
	defer h.streamersMu.Unlock()
	var m map[string]struct{}
	if old := h.streamers.Load(); old != nil {
		if _, ok := (*old)[string(key)]; ok || len(*old) >= maxStreamers {
			return
		}
		m = make(map[string]struct{}, len(*old)+1)
		for k := range *old {
			m[k] = struct{}{}
		}
	} else {
		m = make(map[string]struct{}, 1)
	}
	m[string(key)] = struct{}{}
	h.streamers.Store(&m)
}

// canHijack reports whether the connection of w can be taken from net/http
// (so a response can end while its handler goes on).
func canHijack(w http.ResponseWriter) bool {
	for {
		switch t := w.(type) {
		case http.Hijacker:
			return true
		case interface{ Unwrap() http.ResponseWriter }:
			w = t.Unwrap()
		default:
			return false
		}
	}
}
