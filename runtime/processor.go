package runtime

import "context"

// Processor answers JSON-RPC messages synchronously, one call per incoming message, with
// the same checks, error replies, batching, panic recovery and cancellation as a Conn.
// It is the core of an in-process transport: the caller hands over each message it
// would have written to a stream and gets back the reply. A Processor makes no calls of
// its own, so an incoming response is dropped without a reply (or, with
// Options.RejectResponses, answered as an Invalid Request).
type Processor struct {
	srv     server
	maxSize int
}

// NewProcessor returns a Processor serving with opts.Handler. Of the options it uses
// MaxMessageSize, MaxDepth, NoBatches, AllowBatch, CancelMethod, CancelIDKey,
// RejectResponses, StrictIDs, TrustResults and Logger; with a CancelMethod, a cancellation
// processed while a request runs (on another goroutine) cancels that request's context.
func NewProcessor(opts Options) *Processor {
	opts = opts.withDefaults()
	p := &Processor{srv: server{
		handler:    handlerOf(opts),
		maxDepth:   opts.MaxDepth,
		noBatches:  opts.NoBatches,
		allowBatch: opts.AllowBatch,
		logger:     opts.Logger,

		dropResponses: !opts.RejectResponses,
		trustResults:  opts.TrustResults,
		strictIDs:     opts.StrictIDs,
		transport:     opts.Transport,
	}}
	if opts.CancelMethod != "" {
		p.srv.tr = newTracker(opts)
	}
	p.maxSize = opts.MaxMessageSize
	return p
}

// Process handles one incoming message (a request, a notification or a batch) and
// appends the reply, if any, to buf; a message that needs none leaves buf as it was.
// ctx is the parent of the handler's context. Process is safe for concurrent use.
func (p *Processor) Process(ctx context.Context, msg, buf []byte) []byte {
	if len(msg) > p.maxSize {
		return appendErrorResponse(buf, nullID, MessageTooLarge(p.maxSize))
	}
	return p.srv.process(ctx, msg, buf)
}
