package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// A dual-era client (Options.ProtocolVersion "") learns the server's
// era from its answer to server/discover: a DiscoverResult or a recognized
// modern error means 2026-07-28, any other answer a legacy server, which
// gets initialize (see discover). What the client does while no answer has
// come depends on the transport:
//
//   - Over a transport on which every request is answered (Streamable HTTP,
//     where a POST always gets an HTTP response; an in-process session),
//     silence means only that the server is slow: the client waits for the
//     answer, within the handshake's context. No clock decides the era.
//   - Over a stream (stdio, TCP, Unix sockets, WebSocket), a legacy server
//     may ignore a request it does not know before initialize, so silence
//     can mean legacy. But it also means a server still starting, or one on
//     a busy machine. After ProbeTimeout without an answer the client sends
//     a ping, which legacy servers answer before initialize: a server that
//     answers the ping and still not server/discover ignores the probe, and
//     is legacy; an answer to server/discover still decides the era when it
//     comes first. A server that answers neither is waited for up to
//     probeSilence ProbeTimeouts in all; then the client tries initialize,
//     and logs a warning.

// probeSilence is how many ProbeTimeouts a dual-era client waits, in all,
// for a server that answers neither server/discover nor ping on a stream
// before it tries initialize.
const probeSilence = 10

// probe sends server/discover for a dual-era client and returns the era the
// server's answer shows, as the comment above describes. An error is one
// that ends the handshake (a transport failure, a recognized modern error
// that is not a reason to fall back, ctx's end).
func (c *Client) probe(ctx context.Context) (probeOutcome, error) {
	version := mcp.ModernVersions[len(mcp.ModernVersions)-1]
	ctx = context.WithValue(ctx, clientNoCancelKey{}, true) // part of the handshake
	if c.answersAll {
		return c.discover(ctx, version, true)
	}
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type answer struct {
		outcome probeOutcome
		err     error
	}
	discovered := make(chan answer, 1)
	go func() {
		o, err := c.discover(pctx, version, true)
		discovered <- answer{o, err}
	}()
	wait := time.NewTimer(c.opts.ProbeTimeout)
	defer wait.Stop()
	select {
	case a := <-discovered:
		return a.outcome, a.err
	case <-wait.C:
	}

	c.logger.Debug("mcp: no answer to server/discover yet; sending ping to learn whether the server reads", "after", c.opts.ProbeTimeout)
	pinged := make(chan error, 1)
	go func() { pinged <- c.callOnce(pctx, mcp.MethodPing, nil, nil) }()
	wait.Reset((probeSilence - 1) * c.opts.ProbeTimeout)
	var pingErr error
	silent := false
	select {
	case a := <-discovered:
		cancel()
		<-pinged
		return a.outcome, a.err
	case pingErr = <-pinged:
		cancel()
	case <-wait.C:
		cancel()
		pingErr, silent = <-pinged, true
	}
	// server/discover may have been answered meanwhile: its answer decides.
	if a := <-discovered; a.err == nil || ctx.Err() != nil {
		return a.outcome, a.err
	}
	var rpcErr *runtime.Error
	switch {
	case silent:
		c.logger.Warn("mcp: the server answered neither server/discover nor ping; trying initialize (a 2026-07-28 server this slow would be spoken to in a legacy session: raise Options.ProbeTimeout, or set ProtocolVersion)",
			"waited", probeSilence*c.opts.ProbeTimeout)
	case pingErr != nil && !errors.As(pingErr, &rpcErr):
		return probeLegacy, fmt.Errorf("mcp: ping: %w", pingErr) // the transport failed: initialize would too
	default:
		c.logger.Debug("mcp: the server answered ping but not server/discover: a legacy server; trying initialize")
	}
	return probeLegacy, nil
}
