package mcphttp

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/internal/httpwire"
	"github.com/rpcgen/rpcgen/runtime/mcp/internal/wire"
)

// 2026-07-28 Streamable HTTP: every request is a POST served on its own,
// statelessly, by the Handler's one shared Session. Its headers mirror the
// body (MCP-Protocol-Version, Mcp-Method, Mcp-Name, and Mcp-Param-* for the
// tool arguments whose schema names an x-mcp-header) and must agree with it,
// or the request gets 400 with HeaderMismatch (-32020). The call's context
// ends with the HTTP request: a client that closes the response cancels the
// call, and nothing more is written for it.
//
// The checks run in this order, so each failure gets the error the
// specification gives it: a missing or different MCP-Protocol-Version
// (-32020; or -32602 when the body has no _meta version to compare with), a
// missing or different Mcp-Method, Mcp-Name, Mcp-Param-* (-32020); then the
// session's own checks: an unsupported version (-32022), an unknown method
// (-32601, 404), missing _meta (-32602), a capability the tool needs
// (-32021).

// serveModern serves a 2026-07-28 message.
func (h *Handler) serveModern(w http.ResponseWriter, r *http.Request, body []byte, env *envelope) {
	if env.ID == nil {
		// The revision defines no client notification over HTTP (not even
		// notifications/cancelled, which must not reach the shared session,
		// where ids of different clients meet): accepted and ignored.
		if env.Method == nil || !json.Valid(body) {
			writeError(w, http.StatusBadRequest, nil, runtime.CodeInvalidRequest, "Invalid Request")
			return
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if code, msg := h.checkHeaders(r, env); code != 0 {
		writeBodyError(w, http.StatusBadRequest, body, env.ID, code, msg)
		return
	}
	if !h.enter() {
		writeBodyError(w, http.StatusServiceUnavailable, body, env.ID, runtime.CodeServerError, "Service Unavailable: the server is shutting down")
		return
	}
	defer h.exit()
	if env.MethodIs(mcp.MethodSubscriptionsListen) {
		// A listen stream lasts until the client or the server ends it: it
		// outlives any http.Server ReadTimeout, which would end its context.
		_ = http.NewResponseController(w).SetReadDeadline(time.Time{})
	}
	// The call's context ends with its request (a client that closes the
	// response) or when Shutdown gives up (h.inflight.cancelAll): the
	// request's context, findable in h.inflight, which joins the two in a
	// cancelable context only when the call asks for its Done channel (see
	// callCtx).
	mw := &modernWriter{w: w, keepAlive: h.opts.KeepAlive, primer: &h.primer}
	mw.ctx.Context = r.Context()
	h.inflight.add(mw)
	if h.opts.SSE {
		mw.mu.Lock()
		mw.start(false)
		mw.mu.Unlock()
	}
	bp := replyBufs.Get().(*[]byte)
	reply := h.modern.HandleAppend(&mw.ctx, body, mw.notify, (*bp)[:0])
	defer putReplyBuf(bp, reply) // written below, or dropped
	h.inflight.remove(mw)
	mw.ctx.release()
	mw.mu.Lock()
	defer mw.mu.Unlock()
	mw.done = true
	if mw.ka != nil {
		mw.ka.Stop()
	}
	if mw.cn != nil && mw.cn.primeArmed {
		mw.cn.primeArmed = false
		mw.primer.remove(mw.cn)
	}
	if r.Context().Err() != nil {
		return // the client cancelled by closing the response
	}
	if mw.sse {
		if len(reply) > 0 && !mw.failed {
			// Not flushed: it goes out with the end of the response.
			mw.cn.sendEvent("", reply, false)
		}
		return
	}
	if len(reply) == 0 {
		writeError(w, http.StatusServiceUnavailable, env.ID, runtime.CodeServerError, "Service Unavailable: the call was cancelled by a shutdown")
		return
	}
	writeJSON(w, modernStatus(reply, env), reply)
}

// modernStatus maps the reply to a 2026-07-28 request to its HTTP status.
func modernStatus(reply []byte, env *envelope) int {
	code, ok := httpwire.ReplyError(reply)
	if !ok {
		return http.StatusOK
	}
	switch code {
	case mcp.CodeHeaderMismatch, mcp.CodeMissingClientCapability, mcp.CodeUnsupportedProtocolVersion,
		runtime.CodeParseError, runtime.CodeInvalidRequest:
		return http.StatusBadRequest
	case runtime.CodeMethodNotFound:
		return http.StatusNotFound
	case runtime.CodeInvalidParams:
		if env.MetaVersion == nil || env.MetaCaps == nil {
			return http.StatusBadRequest // missing required _meta
		}
	}
	return http.StatusOK
}

// modernWriter writes the response to a 2026-07-28 request: JSON, unless a
// notification comes before the result, which makes it an event stream
// (without event ids: these streams are not resumable).
type modernWriter struct {
	w         http.ResponseWriter
	keepAlive time.Duration
	primer    *primer // the handler's

	mu     sync.Mutex
	cn     *conn
	sse    bool
	done   bool // the call returned: write nothing more from notify
	failed bool // a write failed
	ka     *time.Timer

	ctx callCtx // the call's context
}

// callCtx is a 2026-07-28 call's context: its request's, which ends when
// the client closes the response, ended as well by a Shutdown that gives up
// (end). The cancelable context that joins the two is made when the call
// first asks for a Done channel (it waits on it, or derives a context of
// its own): a call that never does costs none, where context.WithCancel of
// the request's context cost three allocations (the context, the request
// context's done channel and its map of children) and a registration.
type callCtx struct {
	context.Context                                 // the request's
	joined          atomic.Pointer[context.Context] // made by Done
	cancel          atomic.Pointer[context.CancelFunc]
	ended           atomic.Bool // end ran
}

// Done joins the request's context and end in one cancelable context, the
// first time it is called, and returns its channel.
func (c *callCtx) Done() <-chan struct{} {
	if j := c.joined.Load(); j != nil {
		return (*j).Done()
	}
	ctx, cancel := context.WithCancel(c.Context)
	if !c.joined.CompareAndSwap(nil, &ctx) {
		cancel()
		return (*c.joined.Load()).Done()
	}
	c.cancel.Store(&cancel)
	if c.ended.Load() {
		cancel()
	}
	return ctx.Done()
}

// Err is the joined context's error once there is one, context.Canceled
// after end, the request context's error otherwise.
func (c *callCtx) Err() error {
	if j := c.joined.Load(); j != nil {
		return (*j).Err()
	}
	if c.ended.Load() {
		return context.Canceled
	}
	return c.Context.Err()
}

// Value answers from the joined context once there is one (so that a
// context derived from the call's finds it cancelable, with no goroutine to
// watch it), from the request's otherwise.
func (c *callCtx) Value(key any) any {
	if j := c.joined.Load(); j != nil {
		return (*j).Value(key)
	}
	return c.Context.Value(key)
}

// end cancels the call (a Shutdown that gives up).
func (c *callCtx) end() {
	c.ended.Store(true)
	if f := c.cancel.Load(); f != nil {
		(*f)()
	}
}

// release frees the joined context, if any, once the call returned.
func (c *callCtx) release() {
	if f := c.cancel.Load(); f != nil {
		(*f)()
	}
}

// modernCalls holds the 2026-07-28 calls in flight, so that a Shutdown
// that gives up can cancel them (legacy calls are cancelled by their
// sessions).
type modernCalls struct {
	mu    sync.Mutex
	calls map[*modernWriter]struct{}
	hard  bool // cancelAll ran: a call added since is cancelled at once
}

func (mc *modernCalls) add(mw *modernWriter) {
	mc.mu.Lock()
	if mc.hard {
		mc.mu.Unlock()
		mw.ctx.end()
		return
	}
	if mc.calls == nil {
		mc.calls = make(map[*modernWriter]struct{})
	}
	mc.calls[mw] = struct{}{}
	mc.mu.Unlock()
}

func (mc *modernCalls) remove(mw *modernWriter) {
	mc.mu.Lock()
	delete(mc.calls, mw)
	mc.mu.Unlock()
}

// cancelAll cancels every call in flight, and every call added from now on.
func (mc *modernCalls) cancelAll() {
	mc.mu.Lock()
	mc.hard = true
	calls := mc.calls
	mc.calls = nil
	mc.mu.Unlock()
	for mw := range calls {
		mw.ctx.end()
	}
}

// start makes the response an event stream; mw.mu held. With flush false
// (Options.SSE, before the call runs) the headers wait for the first event,
// the end of the response or primeDelay, whichever comes first, which saves
// a write on a quick call.
func (mw *modernWriter) start(flush bool) {
	mw.sse = true
	mw.cn = &conn{w: mw.w}
	mw.cn.open()
	if flush {
		if !mw.cn.write(nil) {
			mw.failed = true
		}
	} else {
		mw.cn.pending = true
	}
	switch {
	case mw.cn.pending && (mw.keepAlive <= 0 || mw.keepAlive >= primeDelay):
		// The headers wait primeDelay in the handler's queue (primer.go),
		// then the keep-alives start (see primed).
		mw.cn.primeArmed = true
		mw.primer.add(mw.cn, mw)
	case mw.keepAlive > 0 && mw.cn.pending:
		mw.ka = time.AfterFunc(min(mw.keepAlive, primeDelay), mw.tick)
	case mw.keepAlive > 0:
		mw.ka = time.AfterFunc(mw.keepAlive, mw.tick)
	case mw.cn.pending:
		mw.ka = time.AfterFunc(primeDelay, mw.tick)
	}
}

func (mw *modernWriter) notify(msg []byte) {
	mw.mu.Lock()
	defer mw.mu.Unlock()
	if mw.done || mw.failed {
		return
	}
	if !mw.sse {
		mw.start(true)
	}
	if !mw.cn.writeEvent("", msg) {
		mw.failed = true
	}
}

// primed flushes the headers of an Options.SSE stream still waiting for
// its first event, and starts the keep-alive comments: cn was queued by
// start primeDelay to twice that ago (primer.go).
func (mw *modernWriter) primed(cn *conn) {
	mw.mu.Lock()
	defer mw.mu.Unlock()
	cn.primeArmed = false
	if mw.done || mw.failed {
		return
	}
	if cn.pending && !cn.flush() {
		mw.failed = true
		return
	}
	if mw.keepAlive > 0 {
		mw.ka = time.AfterFunc(mw.keepAlive, mw.tick)
	}
}

// tick writes a keep-alive comment on a stream waiting for its result.
func (mw *modernWriter) tick() {
	mw.mu.Lock()
	defer mw.mu.Unlock()
	if mw.done || mw.failed {
		return
	}
	var ok bool
	if mw.cn.pending {
		ok = mw.cn.flush() // the headers of an Options.SSE stream
	} else {
		ok = mw.cn.write(keepAliveComment)
	}
	if !ok {
		mw.failed = true
		return
	}
	if mw.keepAlive > 0 {
		mw.ka.Reset(mw.keepAlive)
	}
}

// checkHeaders checks a 2026-07-28 request's headers against its body; it
// returns 0, or the code and message of the error to reject it with.
func (h *Handler) checkHeaders(r *http.Request, env *envelope) (int, string) {
	hdr := r.Header
	pv, code, msg := singleHeader(hdr, httpwire.HdrProtocolVersion, "MCP-Protocol-Version")
	if code != 0 {
		return code, msg
	}
	if env.MetaVersion == nil {
		return runtime.CodeInvalidParams, `invalid params: missing _meta key "` + mcp.MetaProtocolVersion + `"`
	}
	if !wire.StringIs(env.MetaVersion, pv) {
		return mismatch("MCP-Protocol-Version", pv, env.MetaVersion)
	}
	m, code, msg := singleHeader(hdr, httpwire.HdrMethod, "Mcp-Method")
	if code != 0 {
		return code, msg
	}
	if !wire.StringIs(env.Method, m) {
		return mismatch("Mcp-Method", m, env.Method)
	}
	row := mcp.LookupMethod(m)
	if row == nil || !row.NameHeader {
		return 0, ""
	}
	name := env.Target(row.Target)
	values := hdr[httpwire.HdrName]
	switch {
	case len(values) == 0 && name == nil:
	case len(values) == 0:
		return mcp.CodeHeaderMismatch, "Header mismatch: the Mcp-Name header is required"
	case len(values) > 1:
		return mcp.CodeHeaderMismatch, "Header mismatch: more than one Mcp-Name header"
	default:
		v, ok := httpwire.DecodeHeaderValue(values[0])
		if !ok {
			return mcp.CodeHeaderMismatch, "Header mismatch: the Mcp-Name header value has invalid characters or a malformed base64 encoding"
		}
		if s, isString := httpwire.String(name); !isString || s != v {
			return mismatch("Mcp-Name", values[0], name)
		}
	}
	if env.MethodIs(mcp.MethodToolsCall) && name != nil {
		return h.checkParams(hdr, name, env.Arguments)
	}
	return 0, ""
}

// singleHeader returns the one value of the header key (display is its name
// in messages), or the -32020 error for none or several.
func singleHeader(hdr http.Header, key, display string) (string, int, string) {
	values := hdr[key]
	switch {
	case len(values) == 0 || values[0] == "":
		return "", mcp.CodeHeaderMismatch, "Header mismatch: the " + display + " header is required"
	case len(values) > 1:
		return "", mcp.CodeHeaderMismatch, "Header mismatch: more than one " + display + " header"
	}
	return values[0], 0, ""
}

func mismatch(header, value string, body []byte) (int, string) {
	if len(body) > 200 {
		body = append(body[:200:200], "…"...)
	}
	return mcp.CodeHeaderMismatch, "Header mismatch: " + header + " header value " + strconv.Quote(value) +
		" does not match body value " + string(body)
}
