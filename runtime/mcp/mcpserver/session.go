package mcpserver

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/internal/wire"
)

// Session is one client's connection to a Server. An initialize makes it a
// legacy session at the negotiated revision for the rest of its life; a
// request carrying the 2026-07-28 _meta is served on its own, whatever the
// session's state. Serve runs one Session per connection; NewSession and
// Handle let a caller feed one message at a time, as an in-process client
// does. Its methods are safe for concurrent use. What only the transport
// serving the session tells it is on its SessionControl
// (Server.NewTransportSession), not here.
type Session struct {
	srv     *Server
	logger  *slog.Logger
	handler runtime.Handler
	proc    *runtime.Processor
	id      sessionID // set by the transport (SessionControl.SetID)
	ends    endHooks  // OnClose

	initMu sync.Mutex // serializes initialize
	state  atomic.Pointer[legacyState]
	// level is the legacy logging/setLevel threshold: 0 until the client sets
	// one (every level is sent), then the level's rank plus one.
	level atomic.Int32

	// subs holds the session's resource subscriptions and where messages
	// unrelated to a request go (subscribe.go).
	subs sessionSubs
	// out holds the requests the session sent the client and awaits answers
	// to (input.go).
	out outRequests
	// x holds what only some sessions use (state.go).
	x *sessionExt
}

// legacyState is what initialize fixed for the session.
type legacyState struct {
	v    ver
	caps json.RawMessage // the client's capabilities
}

// cancelledIDMember is the member of notifications/cancelled naming the
// request it cancels.
const cancelledIDMember = "requestId"

// options are the runtime options both transports of the session use, so a
// stream (Serve) and Handle go through the same core.
func (ss *Session) options() runtime.Options {
	return runtime.Options{
		Handler:      ss.handler,
		MaxInflight:  ss.srv.opts.MaxInflight,
		AllowBatch:   ss.batchesAllowed,
		CancelMethod: mcp.NotificationCancelled,
		CancelIDKey:  cancelledIDMember,
		StrictIDs:    true, // MCP: "a string or integer", never null
		TrustResults: true, // results are pre-encoded, or built from checked JSON
		Logger:       ss.logger,
		Inline:       preparedAnswer,
	}
}

// preparedAnswer reports whether the server answers method with a result it
// prepared beforehand (or a quick check), running no code of the user's and
// never waiting for the client: such a request is served on the reader
// goroutine of a stream (runtime.Options.Inline), which takes a hand-off and,
// in a fresh process, a thread start off the handshake.
func preparedAnswer(method string) bool {
	m := mcp.LookupMethod(method)
	return m != nil && m.Inline
}

// batchesAllowed reports whether the session takes JSON-RPC batches: only
// 2025-03-26 has them, so only once initialize has chosen that revision.
func (ss *Session) batchesAllowed() bool {
	st := ss.state.Load()
	return st != nil && st.v == ver20250326
}

// Handle processes one incoming message (a request, a notification, or a
// batch where the session allows them) and returns the reply, or nil when
// there is none: for a notification, or for a request cancelled by
// notifications/cancelled before its response was produced. notify, which may
// be nil, receives each notification (progress, log messages) the server sends
// while handling, in order, on the goroutine that produced it, and is never
// called after Handle returns; it may keep the slice. Handle blocks until the
// message is handled, so a cancellation must come through another goroutine.
// The returned slice belongs to the caller.
func (ss *Session) Handle(ctx context.Context, msg []byte, notify func(msg []byte)) []byte {
	buf := getBuffer()
	*buf = ss.HandleAppend(ctx, msg, notify, (*buf)[:0])
	var reply []byte
	switch {
	case cap(*buf) > maxPooled:
		// Too large to go back to the pool (a long tools/list, say): the
		// reply is the buffer itself, not a second copy of it.
		reply = *buf
		*buf = nil
	case len(*buf) > 0:
		reply = append(make([]byte, 0, len(*buf)), *buf...)
	}
	putBuffer(buf)
	return reply
}

// HandleAppend is Handle appending the reply to dst, and returning the
// extended slice (dst itself when there is no reply): a transport that
// writes the reply out at once and reuses its buffer saves the copy Handle
// makes of it.
func (ss *Session) HandleAppend(ctx context.Context, msg []byte, notify func(msg []byte), dst []byte) []byte {
	if ss.out.deliver(ss, msg) {
		return dst // the client's answer to a request the session sent
	}
	hc := &handleCtx{Context: ctx, notify: notify}
	if len(ss.srv.opts.Middleware) > 0 {
		hc.ss = ss // SessionFromContext, without a context more per request
	}
	dst = ss.proc.Process(hc, msg, dst)
	if r := hc.result.Load(); r != nil {
		putResultBuffer(r) // the response holds a copy of the result
	}
	return dst
}

// handleCtx carries Handle's notify function to the request's handler, and
// the session to method middleware when the server has some.
type handleCtx struct {
	context.Context
	notify func([]byte)
	ss     *Session
	// result is the pooled buffer a tool's CallToolResult was encoded into
	// (appendToolResult), which Handle takes back after Process.
	result atomic.Pointer[[]byte]
}

type handleKey struct{}

// Value answers for handleKey and defers every other key to the parent.
func (hc *handleCtx) Value(key any) any {
	switch key.(type) {
	case handleKey:
		return hc
	case sessionKey:
		if hc.ss != nil {
			return hc.ss
		}
	}
	return hc.Context.Value(key)
}

var bufferPool = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

func getBuffer() *[]byte { return bufferPool.Get().(*[]byte) }

// maxPooled is the capacity beyond which a buffer is not kept in the pool.
const maxPooled = 64 << 10

func putBuffer(b *[]byte) {
	if c := cap(*b); c > 0 && c <= maxPooled {
		bufferPool.Put(b)
	}
}

// resultPool holds the buffers generated tools encode their results into
// (Tool.Append), and their CallToolResults: large results are what they
// are for, so they are kept up to maxResultBuffer, beyond which a buffer
// is dropped (and the garbage collector empties the pool anyway).
var resultPool = sync.Pool{New: func() any { return new([]byte) }}

const maxResultBuffer = 16 << 20

func getResultBuffer() *[]byte { return resultPool.Get().(*[]byte) }

func putResultBuffer(b *[]byte) {
	if cap(*b) <= maxResultBuffer {
		*b = (*b)[:0]
		resultPool.Put(b)
	}
}

// serveRPC is the session's handler, shared by both transports: it routes
// one request to the era its params select.
func (ss *Session) serveRPC(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
	if req.IsNotification() {
		// notifications/initialized needs nothing from a server that sends no
		// requests; notifications/cancelled is handled by the runtime (see
		// options); anything else is ignored, as the protocol asks.
		return nil, nil
	}
	p := reqParamsPool.Get().(*reqParams)
	defer putReqParams(p)
	if !p.parse(req.Params) {
		return nil, runtime.InvalidParams("params must be an object")
	}
	if p.modern(req.Method) {
		return ss.serveModern(ctx, req, p)
	}
	return ss.serveLegacy(ctx, req, p)
}

// reqParamsPool keeps the reqParams of answered requests. One per request
// went to the heap (the method table's handlers take it by pointer): 400
// bytes and an allocation per call. Nothing keeps a *reqParams past its
// request: what outlives it (a task's arguments, a call's name) is copied
// out of its members, which point into the request.
var reqParamsPool = sync.Pool{New: func() any { return new(reqParams) }}

func putReqParams(p *reqParams) {
	*p = reqParams{}
	reqParamsPool.Put(p)
}

// reqParams holds the raw members of a request's params this server reads;
// nil means absent.
type reqParams struct {
	name, arguments, cursor, level, protocolVersion, capabilities []byte
	// resources/read, resources/subscribe, resources/unsubscribe.
	uri []byte
	// completion/complete: ref, argument and context.
	ref, argument, context []byte
	// subscriptions/listen (2026-07-28).
	notifications []byte
	// A 2026-07-28 retry after an input_required result.
	inputResponses, requestState []byte
	// From params._meta.
	progressToken, metaVersion, metaCaps, metaLevel []byte
}

func (p *reqParams) parse(raw []byte) bool {
	if raw == nil {
		return true
	}
	return wire.Members(raw, func(key, val []byte) {
		switch string(key) {
		case "name":
			p.name = val
		case "arguments":
			p.arguments = val
		case "cursor":
			p.cursor = val
		case "level":
			p.level = val
		case "protocolVersion":
			p.protocolVersion = val
		case "capabilities":
			p.capabilities = val
		case "uri":
			p.uri = val
		case "ref":
			p.ref = val
		case "argument":
			p.argument = val
		case "context":
			p.context = val
		case "notifications":
			p.notifications = val
		case "inputResponses":
			p.inputResponses = val
		case "requestState":
			p.requestState = val
		case "_meta":
			p.parseMeta(val)
		}
	})
}

func (p *reqParams) parseMeta(raw []byte) {
	wire.Members(raw, func(key, val []byte) {
		switch string(key) {
		case "progressToken":
			if len(val) > 0 && (val[0] == '"' || val[0] == '-' || '0' <= val[0] && val[0] <= '9') {
				p.progressToken = val
			}
		case mcp.MetaProtocolVersion:
			p.metaVersion = val
		case mcp.MetaClientCapabilities:
			p.metaCaps = val
		case mcp.MetaLogLevel:
			p.metaLevel = val
		}
	})
}

// modern reports whether a request is a 2026-07-28 one: it carries one of
// the era's required _meta keys, or calls a method only that era has.
func (p *reqParams) modern(method string) bool {
	return p.metaVersion != nil || p.metaCaps != nil || method == mcp.MethodServerDiscover
}

// rawStringIs reports whether the raw JSON value v is the string s written
// without escapes, which is how every client writes the names it sends.
func rawStringIs(v []byte, s string) bool {
	return len(v) == len(s)+2 && v[0] == '"' && v[len(v)-1] == '"' && string(v[1:len(v)-1]) == s
}

// unquote returns the string value of the raw JSON value v, or false if it is
// not a string.
func unquote(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", false
	}
	return s, true
}

// isObject reports whether the raw JSON value v is an object.
func isObject(v []byte) bool { return len(v) > 0 && v[0] == '{' }

// ProtocolVersion returns the revision the session's initialize negotiated,
// or "" before one (and for a session serving only 2026-07-28 requests).
func (ss *Session) ProtocolVersion() string {
	if st := ss.state.Load(); st != nil {
		return verNames[st.v]
	}
	return ""
}
