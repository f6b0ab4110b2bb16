package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/rpcgen/rpcgen/runtime"
)

// A dual-era client (Options.ProtocolVersion "") renews a session the
// way Connect negotiated it: it probes the restarted server with
// server/discover first, and falls back to initialize when the answer is
// not a modern one. A server upgraded to speak only 2026-07-28 is so
// followed into the stateless era; a client given a legacy revision keeps
// to initialize.

// renewModern probes the restarted server as Connect does, for a dual-era
// client. When the server speaks 2026-07-28 the client moves to it (its log
// level and subscriptions restored the 2026-07-28 way) and switched is
// set; otherwise the client's era is left as it was, for a legacy
// initialize.
func (c *Client) renewModern(ctx context.Context) (switched bool, err, partial error) {
	old := c.info()
	outcome, err := c.probe(ctx)
	if err != nil || outcome == probeLegacy {
		// The probe set a modern version on the way: back to the legacy one.
		c.neg.Store(old)
		c.meta.Store(nil)
		if err != nil {
			return false, fmt.Errorf("server/discover: %w", err), nil
		}
		return false, nil, nil
	}
	c.hints.forget()
	r := &c.renew
	r.mu.Lock()
	uris, level := slices.Clone(r.uris), r.level
	r.mu.Unlock()
	var refused []error
	caps := serverCapabilities(c.ServerCapabilities())
	if level != "" {
		if caps.Logging == nil {
			refused = append(refused, errors.New("logging: the new server offers no logging"))
		} else {
			c.metaMu.Lock()
			c.logLevel = level
			c.rebuildMeta()
			c.metaMu.Unlock()
		}
	}
	var listen []string
	for _, uri := range uris {
		if caps.Resources == nil || !caps.Resources.Subscribe {
			refused = append(refused, fmt.Errorf("subscriptions/listen %s: the new server offers no resource subscriptions", uri))
			continue
		}
		listen = append(listen, uri)
	}
	if len(listen) > 0 || c.opts.OnListChanged != nil {
		l := &c.listen
		l.op.Lock()
		stop, err := c.openListen(ctx, listen)
		if err == nil {
			l.mu.Lock()
			l.uris, l.stop = listen, stop
			l.mu.Unlock()
		}
		l.op.Unlock()
		var rpcErr *runtime.Error
		switch {
		case errors.As(err, &rpcErr):
			refused = append(refused, err) // it names subscriptions/listen
		case err != nil:
			return true, err, nil
		}
	}
	return true, nil, errors.Join(refused...)
}
