package runtime

import "log/slog"

// Options configures a Conn.
type Options struct {
	// Handler serves incoming requests; nil answers every request with Method not found.
	Handler Handler
	// Middleware wraps Handler, the first outermost (see Middleware and Chain):
	// for logging, metrics, tracing or a policy around every request. None
	// costs nothing.
	Middleware []Middleware
	// Transport names the network transport the connection runs over, for
	// middleware (TransportFromContext): TransportPipe, TransportTCP,
	// TransportUnix. ServeStdio and DialCommand default it to TransportPipe.
	Transport string
	// MaxInflight bounds the incoming requests handled at once (default 64). Requests
	// and notifications beyond it wait in a queue, and start in the order they arrived
	// as handlers finish; when the queue is full too the connection stops reading,
	// which pushes back on the peer. Responses and CancelMethod notifications never
	// wait: they are read and delivered while every slot is taken, so a handler can
	// call the peer back (ConnFromContext) and get its answer. If every slot's handler
	// is waiting in such a call and the queue is full, stopping would deadlock, so the
	// connection reads on and answers each request that does not fit with a
	// CodeServerError "server busy" error, and drops (and logs at Warn) each
	// notification that does not fit, until a handler's call returns or a slot frees.
	// A handler counts as waiting while a Call or Batch on its own connection, made
	// with its context or one derived from it, is under way; a handler that waits for
	// the peer in another way (a Call with an unrelated context, a notification that
	// another handler receives) is not counted, so when such handlers hold every slot
	// and the peer fills the queue, the connection can still deadlock.
	MaxInflight int
	// MaxQueued bounds the requests and notifications (a batch counts as one) waiting
	// for a handler slot once MaxInflight handlers run: default MaxInflight, negative
	// for none. Their total size is bounded by MaxMessageSize too, though one message
	// is always let in.
	MaxQueued int
	// Inline, if set, is asked for each incoming request or notification that gets a
	// handler slot at once (never for a batch) with its method name: true runs it on the reader
	// goroutine instead of a handler goroutine. That saves a goroutine hand-off
	// (and, on a fresh process, starting a thread), which is most of what a
	// request that only returns a prepared answer costs, and is a good part of a
	// stdio server's cold start. While it runs nothing else is read, so it must be
	// quick and must not wait for the peer: no Call, no waiting on another request.
	Inline func(method string) bool
	// MaxMessageSize bounds one incoming message (default DefaultMaxMessageSize); the
	// framers built by DialCommand and ServeStdio skip larger ones without buffering them.
	MaxMessageSize int
	// MaxUnsent bounds the bytes the connection holds for its peer (default
	// DefaultMaxUnsent, 16 MiB; negative for none): messages waiting for the writer and
	// the one being written. A peer that does not read its answers would otherwise
	// have MaxInflight answers held for it. A message that would take the connection
	// over it, while another is held, is not sent: a handler's answer is replaced by an
	// error response (CodeServerError, "answer not sent: ...") to its request, a
	// stream's item ends the stream with that error, a Call or Notify fails with an
	// error wrapping ErrUnread. One message at a time always goes, whatever its size.
	MaxUnsent int
	// OutputBudget bounds the same bytes across every connection that shares it
	// (default DefaultOutputBudget, one for the whole process, 128 MiB): once it is
	// full, a message is refused as above on a connection holding more than its share
	// of it, so a peer that reads (holding little) is still answered.
	OutputBudget *OutputBudget
	// MaxDepth bounds the nesting depth of incoming messages (default 128); deeper
	// messages are answered with a CodeInvalidRequest error naming the limit.
	MaxDepth int
	// Framing is the stream framing DialCommand and ServeStdio use.
	Framing Framing
	// NoBatches rejects incoming batches with a single Invalid Request error, for
	// protocol revisions without batching.
	NoBatches bool
	// AllowBatch, if set, is asked for every incoming batch and overrides NoBatches:
	// false answers the batch as NoBatches does. It lets a protocol switch batching on
	// or off on a live connection, as MCP does once initialize has fixed the revision.
	AllowBatch func() bool
	// CancelMethod, if set (such as "$/cancelRequest"), names the notification that
	// cancels a request: Call sends it with params {"id": <id>} when its context ends
	// before the response, and an incoming one cancels the context of the matching
	// in-flight incoming request.
	CancelMethod string
	// CancelIDKey names the member of CancelMethod's params that holds the request id,
	// in both directions; "" means "id". MCP's notifications/cancelled uses "requestId".
	CancelIDKey string
	// OnCancel is called, on its own goroutine, when a Call's context ends before its
	// response arrives, so a protocol can send its own cancellation message.
	OnCancel func(c *Conn, id ID)
	// RejectResponses makes a Processor answer an incoming response with an Invalid
	// Request error, like any other message that is not a request, instead of dropping
	// it: for transports such as HTTP POST, whose server sends no requests, so that a
	// response can only be a mistake. A Conn delivers responses to its calls and ignores it.
	RejectResponses bool
	// StrictIDs refuses a request whose id is null or a number that is not an
	// integer (a fraction or an exponent), which JSON-RPC 2.0 allows and MCP does not
	// ("a string or integer, not null"): it is answered with Invalid Request and id
	// null. Notifications, which have no id, are not affected.
	StrictIDs bool
	// TrustResults skips checking that each result a Handler returns is valid JSON,
	// for handlers that only return JSON they built or checked themselves. An invalid
	// result then goes out as is and breaks the peer's parser, so leave it false
	// unless the check shows up in a profile.
	TrustResults bool
	// Logger receives diagnostics (handler panics at Error, messages dropped because
	// every handler waits for the peer at Warn, other dropped messages at Debug); nil
	// discards them.
	Logger *slog.Logger

	// stateChanged, a test seam, is called when the reader parks for room in
	// the queue and when Shutdown starts draining.
	stateChanged func()
}

func (o Options) withDefaults() Options {
	if o.MaxInflight <= 0 {
		o.MaxInflight = 64
	}
	switch {
	case o.MaxQueued == 0:
		o.MaxQueued = o.MaxInflight
	case o.MaxQueued < 0:
		o.MaxQueued = 0
	}
	o.MaxMessageSize = limitOrDefault(o.MaxMessageSize)
	if o.MaxUnsent == 0 {
		o.MaxUnsent = DefaultMaxUnsent
	}
	if o.OutputBudget == nil {
		o.OutputBudget = DefaultOutputBudget
	}
	if o.MaxDepth <= 0 {
		o.MaxDepth = 128
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

func (o Options) cancelIDKey() string {
	if o.CancelIDKey == "" {
		return "id"
	}
	return o.CancelIDKey
}
