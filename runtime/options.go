package runtime

import "log/slog"

// Options configures a Conn.
type Options struct {
	// Handler serves incoming requests; nil answers every request with Method not found.
	Handler Handler
	// MaxInflight bounds the incoming requests handled at once (default 64). When it is
	// reached the connection stops reading, which pushes back on the peer. A handler that
	// calls the peer back while every slot is taken waits for a slot to free up, since
	// the response is read by the same reader.
	MaxInflight int
	// MaxMessageSize bounds one incoming message (default DefaultMaxMessageSize); the
	// framers built by DialCommand and ServeStdio skip larger ones without buffering them.
	MaxMessageSize int
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
	// TrustResults skips checking that each result a Handler returns is valid JSON,
	// for handlers that only return JSON they built or checked themselves. An invalid
	// result then goes out as is and breaks the peer's parser, so leave it false
	// unless the check shows up in a profile.
	TrustResults bool
	// Logger receives diagnostics (handler panics at Error, dropped messages at Debug);
	// nil discards them.
	Logger *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.MaxInflight <= 0 {
		o.MaxInflight = 64
	}
	o.MaxMessageSize = limitOrDefault(o.MaxMessageSize)
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
