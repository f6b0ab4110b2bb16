package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"sync"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/internal/jsonenc"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/internal/wire"
)

// Request is one request or notification a Client sends, as client
// middleware (Options.Middleware) sees it: encoded, but for the _meta
// members the client adds, so middleware may add its own (SetMeta: trace
// context, say). The client reuses a Request, and the bytes of its Params,
// once its chain has returned, so that a call through middleware allocates
// nothing for it: middleware must not keep the pointer or Params, or use
// them from a goroutine of its own, after it returns (copy what it needs;
// Method, ID and the other strings stay valid).
type Request struct {
	Method string
	ID     runtime.ID      // the zero ID for a notification
	Params json.RawMessage // the params object, without the client's _meta members
	// ProtocolVersion is the revision the client speaks (during the
	// handshake: the one it asks for, or "" while it probes).
	ProtocolVersion string
	// SessionID is the transport's session id (mcphttp's Mcp-Session-Id) when
	// it has one.
	SessionID string
	// Server is the server's end of the transport (Client.Endpoint).
	Server Endpoint
	// OnNotification, when middleware sets it, hears the progress
	// notifications the server sends for this request (which it sends only to
	// a call that asked for progress, such as CallToolRaw with OnProgress).
	OnNotification func(method string, params json.RawMessage)

	client     *Client // for OnSessionEnd
	meta       []byte  // members SetMeta added
	prefix     []byte  // the message up to the end of params' members
	id         int64
	token      int64
	onProgress func(mcp.ProgressNotification)
}

// SetMeta adds the member key: value to the request's params._meta, such as
// "traceparent" (SEP-414). A key the client itself sends is not replaced.
func (r *Request) SetMeta(key, value string) {
	r.meta = slices.Grow(r.meta, len(key)+len(value)+6) // one allocation when neither needs escaping
	if len(r.meta) > 0 {
		r.meta = append(r.meta, ',')
	}
	r.meta = jsonenc.AppendString(r.meta, key)
	r.meta = append(r.meta, ':')
	r.meta = jsonenc.AppendString(r.meta, value)
}

// Target returns what the request acts on, as the method table's Target
// says: the name a tools/call or prompts/get names, the uri of a
// resources/read, subscribe or unsubscribe; "" for other methods.
func (r *Request) Target() string {
	m := mcp.LookupMethod(r.Method)
	if m == nil || m.Target == "" {
		return ""
	}
	v := member(r.Params, m.Target)
	if len(v) >= 2 && v[0] == '"' && !bytes.ContainsRune(v, '\\') {
		return string(v[1 : len(v)-1])
	}
	var s string
	if v != nil && json.Unmarshal(v, &s) == nil {
		return s
	}
	return ""
}

// WantsProgress reports whether the call asked for progress notifications
// (CallToolRaw with OnProgress, say): only then does the server send any
// for it, and OnNotification hear them.
func (r *Request) WantsProgress() bool { return r.onProgress != nil }

// Arguments returns the raw arguments of a tools/call (or prompts/get), or nil.
func (r *Request) Arguments() json.RawMessage { return member(r.Params, "arguments") }

// member returns the raw value of obj's member key, or nil.
func member(obj []byte, key string) json.RawMessage {
	var found []byte
	wire.Members(obj, func(k, v []byte) {
		if string(k) == key {
			found = v
		}
	})
	return found
}

// Handler sends one request and returns its result (nil for a
// notification): the next step of a client middleware chain. An error
// response is a *runtime.Error.
type Handler func(ctx context.Context, req *Request) (json.RawMessage, error)

// Middleware wraps every request and notification a Client sends (the
// handshake's included), for logging, metrics, tracing or headers
// (runtime.WithCallHeaders reaches mcphttp's requests). It may call next more
// than once (a retry); the request keeps its id. A tools/call's result is the
// whole CallToolResult, isError included (ResultIsError).
type Middleware func(next Handler) Handler

// ResultIsError reports whether a tools/call result has isError set.
func ResultIsError(result json.RawMessage) bool {
	v := member(result, "isError")
	return string(v) == "true"
}

// clientChain builds c's middleware chain, or nil when it has none.
func (c *Client) clientChain(mws []Middleware) Handler {
	if len(mws) == 0 {
		return nil
	}
	h := Handler(c.sendRequest)
	for i := len(mws) - 1; i >= 0; i-- {
		if mws[i] != nil {
			h = mws[i](h)
		}
	}
	return h
}

// interceptedRequest is a Request with room for the bytes of a small
// one (a tools/call of a few short arguments): 168 bytes of Request and
// 216 of room are 384, a size class of the allocator's, on 64-bit
// machines. They are pooled, so that a small request through middleware
// allocates nothing for them.
type interceptedRequest struct {
	Request
	room [216]byte
}

var requestPool = sync.Pool{New: func() any { return new(interceptedRequest) }}

// intercept runs the request cb holds (id 0: a notification) through the
// middleware; cb is released.
func (c *Client) intercept(ctx context.Context, id int64, cb *clientBuf, token int64, onProgress func(mcp.ProgressNotification)) (clientReply, error) {
	// The message so far and the params object share one allocation, the
	// request's own when they fit in it; each is capped, so an append to
	// either copies.
	msg, start := cb.b.Bytes(), cb.params
	ir := requestPool.Get().(*interceptedRequest)
	n := len(msg) + len(msg) - start + 2
	b := ir.room[:0]
	if n > len(ir.room) {
		b = make([]byte, 0, n)
	}
	b = append(b, msg...)
	b = append(b, '{')
	b = append(b, msg[start:]...)
	b = append(b, '}')
	req := &ir.Request
	meta := req.meta // kept from the request's last use, emptied
	*req = Request{
		meta:            meta,
		Method:          cb.method,
		ProtocolVersion: c.ProtocolVersion(),
		Server:          c.endpoint,
		client:          c,
		Params:          b[len(msg):len(b):len(b)],
		prefix:          b[:len(msg):len(msg)],
		id:              id,
		token:           token,
		onProgress:      onProgress,
	}
	cb.free()
	if id != 0 {
		req.ID = runtime.Int64ID(id)
	}
	if s, ok := c.t.(interface{ sessionID() string }); ok {
		req.SessionID = s.sessionID()
	}
	res, err := c.chain(ctx, req)
	// SetMeta's bytes were copied into the message: their room serves the
	// next request (a traceparent member each time, say) unless it grew large.
	meta = req.meta[:0]
	if cap(meta) > 1024 {
		meta = nil
	}
	*req = Request{meta: meta}
	requestPool.Put(ir)
	return clientReply{result: res}, err
}

// sendRequest is the end of the chain: the request itself.
func (c *Client) sendRequest(ctx context.Context, req *Request) (json.RawMessage, error) {
	cb := clientGetBuf()
	cb.b.Write(req.prefix)
	cb.endWith(c.requestMeta(), req.meta, req.token)
	if req.id == 0 {
		defer cb.free()
		return nil, c.t.send(ctx, cb.b.Bytes())
	}
	onProgress := req.onProgress
	if observe, caller := req.OnNotification, onProgress; observe != nil && caller != nil {
		// req is reused once the chain returns: the closure keeps its own.
		onProgress = func(pn mcp.ProgressNotification) {
			if raw, err := json.Marshal(pn); err == nil {
				observe(mcp.NotificationProgress, raw)
			}
			caller(pn)
		}
	}
	r, err := c.exchange(ctx, req.id, cb, onProgress)
	return r.result, err
}
