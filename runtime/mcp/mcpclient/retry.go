package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// A request the transport could not send (runtime.ErrNotSent: the server
// refused the connection, or the session was gone) is tried again whatever
// it is; one lost in flight (runtime.ErrConnectionLost: the connection
// dropped, or a proxy answered 502, 503 or 504) only when running it twice
// does what running it once does. Options.Retry says how often and
// how long to wait; runtime.WithoutRetry turns it off for one call. Each
// try is a new request, with an id of its own.

// toolHints is what a client learnt from tools/list about each tool: whether
// it is read-only or idempotent.
type toolHints struct {
	mu       sync.Mutex
	known    map[string]bool
	declared map[string]bool // DeclareRetrySafe's
}

// DeclareRetrySafe tells c that the tools named are read-only or
// idempotent, so that a call of one lost with its connection may be tried
// again (see Options.Retry) without the client listing the tools to
// learn it. A generated typed MCP client declares the tools its directives
// mark so (mcp.DeclareRetrySafe).
func (c *Client) DeclareRetrySafe(tools ...string) {
	h := &c.hints
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.declared == nil {
		h.declared = make(map[string]bool, len(tools))
	}
	for _, name := range tools {
		h.declared[name] = true
	}
}

func (h *toolHints) learn(tools []mcp.ToolInfo) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.known == nil {
		h.known = make(map[string]bool, len(tools))
	}
	for _, t := range tools {
		a := t.Annotations
		h.known[t.Name] = a != nil && (isTrue(a.ReadOnlyHint) || isTrue(a.IdempotentHint))
	}
}

// forget drops what tools/list said (a new session's server may have other
// tools); what DeclareRetrySafe declared stays.
func (h *toolHints) forget() {
	h.mu.Lock()
	h.known = nil
	h.mu.Unlock()
}

func (h *toolHints) lookup(name string) (idempotent, known bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.declared[name] {
		return true, true
	}
	idempotent, known = h.known[name]
	return idempotent, known
}

func isTrue(b *bool) bool { return b != nil && *b }

// ErrNotIdempotent is wrapped, with runtime.ErrConnectionLost, by the error
// of a tool call lost in flight that the client did not try again: tools/list
// does not say the tool is read-only or idempotent, and it may or may not
// have run.
var ErrNotIdempotent = errors.New("mcp: not retried: the tool is not declared read-only or idempotent")

// retried applies the retry policy to a request whose first try, f, failed
// with err, and returns err or the outcome of the tries it made. method and
// target (a tool's name) say whether the request may run twice. A request
// that succeeds costs nothing here.
func (c *Client) retried(ctx context.Context, method, target string, err error, f func(ctx context.Context) error) error {
	if err == nil || !c.ready.Load() || ctx.Value(clientRenewKey{}) != nil ||
		!errors.Is(err, runtime.ErrNotSent) && !errors.Is(err, runtime.ErrConnectionLost) {
		return err // success, the handshake, a renewal, or no transport failure
	}
	p := c.opts.Retry
	rule := p.Retryable
	if rule == nil {
		rule = runtime.Retryable
	}
	lostTool := false
	p.Retryable = func(err error, _ bool) bool {
		if !errors.Is(err, runtime.ErrConnectionLost) || errors.Is(err, runtime.ErrNotSent) {
			return rule(err, false)
		}
		var idempotent bool
		switch m := mcp.LookupMethod(method); {
		case m == nil:
		case m.Retry == mcp.RetrySafe:
			idempotent = true
		case m.Retry == mcp.RetrySafeIfTool:
			idempotent = c.toolIdempotent(ctx, target)
			lostTool = !idempotent
		}
		return rule(err, idempotent)
	}
	first := err
	err = p.Do(ctx, false, func(ctx context.Context) error {
		if err := first; err != nil {
			first = nil
			return err
		}
		return f(ctx)
	})
	if err != nil && lostTool && errors.Is(err, runtime.ErrConnectionLost) {
		return fmt.Errorf("mcp: tools/call %s: %w: %w", target, ErrNotIdempotent, err)
	}
	return err
}

// toolIdempotent reports whether tool name is read-only or idempotent, as
// tools/list says; it lists the tools when it has not yet (a generated
// client calls tools by name without listing them).
func (c *Client) toolIdempotent(ctx context.Context, name string) bool {
	if idempotent, known := c.hints.lookup(name); known {
		return idempotent
	}
	if _, err := c.ListTools(ctx); err != nil {
		c.logger.Debug("mcp: list the tools to learn whether one may be retried", "tool", name, "err", err)
		return false
	}
	idempotent, _ := c.hints.lookup(name)
	return idempotent
}
