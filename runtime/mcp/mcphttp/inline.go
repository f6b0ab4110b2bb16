package mcphttp

import (
	"net/http"
	"sync/atomic"

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
// and the method or tool is learned as above: for good when the call
// streamed (a message, CloseStream), for its next slowRuns calls when it
// was only slow or ended early by no doing of its own (noteSlow).

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
		if left, ok := (*m)[string(streamKey(env))]; ok {
			if left == nil || left.Load() > 0 && left.Add(-1) >= 0 {
				return false
			}
		}
	}
	return true
}

// slowRuns is how many of its next calls a method or tool whose inline
// Options.SSE call had to write its stream before its answer for a reason
// of that call alone runs on their own goroutines (noteSlow), before one
// runs inline again.
const slowRuns = 64

// noteStreamer remembers that an inline call known by key (see streamKey)
// turned into an event stream.
func (h *Handler) noteStreamer(key []byte) { h.noteStreaming(key, false) }

// noteSlow remembers that the event stream of an inline Options.SSE call
// known by key had to go out before its answer for a reason of this call
// alone (its priming event's flush, primeDelay after it started; a resume;
// the session's end): its next slowRuns calls run on their own goroutines.
// A call slow once (a pause of the process, a busy machine) does not keep
// its method or tool off the POST's goroutine for good, nor does one slow
// every time close every connection it answers on.
func (h *Handler) noteSlow(key []byte) { h.noteStreaming(key, true) }

func (h *Handler) noteStreaming(key []byte, slow bool) {
	if key == nil {
		return
	}
	h.streamersMu.Lock()
	defer h.streamersMu.Unlock()
	var m map[string]*atomic.Int32
	if old := h.streamers.Load(); old != nil {
		left, ok := (*old)[string(key)]
		switch {
		case ok && left == nil:
			return // for good already
		case ok && slow:
			left.Store(slowRuns)
			return
		case !ok && len(*old) >= maxStreamers && !anySpent(*old):
			return
		}
		m = make(map[string]*atomic.Int32, len(*old)+1)
		for k, v := range *old {
			if !spent(v) {
				m[k] = v
			}
		}
	} else {
		m = make(map[string]*atomic.Int32, 1)
	}
	var left *atomic.Int32
	if slow {
		left = new(atomic.Int32)
		left.Store(slowRuns)
	}
	m[string(key)] = left
	h.streamers.Store(&m)
}

// spent reports whether left, a method or tool's count of calls to run
// aside, is spent: its calls run inline again, as those of a method or
// tool not in h.streamers, whose slot the next copy of the map frees.
func spent(left *atomic.Int32) bool { return left != nil && left.Load() <= 0 }

// anySpent reports whether a slot of m can be freed.
func anySpent(m map[string]*atomic.Int32) bool {
	for _, left := range m {
		if spent(left) {
			return true
		}
	}
	return false
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
