package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// A legacy session can end under a client: the server restarts, forgets it
// or ends it (Streamable HTTP answers 404), or the 2024-11-05 HTTP+SSE
// stream, which is the session, breaks. The spec then wants a new session
// with a fresh initialize. A transport that can tell (package mcphttp's)
// calls the function it got from SetSessionLost; the client then opens a
// new session (RenewSession), initializes it with the revision it spoke (a
// dual-era client probes with server/discover first, and may move to
// 2026-07-28: client_renew_era.go), sets the log level again and subscribes
// again to every resource it was subscribed to, trying again with backoff
// until it succeeds or the client closes. Calls made meanwhile wait for the attempt under way (within their
// contexts); calls in flight in the old session fail with an error wrapping
// ErrSessionExpired.

// ErrSessionExpired is wrapped by the error of a call made in a legacy
// session that the server no longer knows (package mcphttp: an HTTP 404, or
// an HTTP+SSE stream that broke). The client starts a new session itself
// (see Options.NoReinitialize); the call's error also wraps
// runtime.ErrNotSent when the server never got it, so it may be retried, or
// runtime.ErrConnectionLost when it was in flight.
var ErrSessionExpired = errors.New("mcp: the server ended the session")

// renewal is the state of a client's session renewals.
type renewal struct {
	on        atomic.Bool // active, read without mu by every call
	mu        sync.Mutex
	active    bool          // a renewal is under way
	attempt   chan struct{} // closed when its current attempt ends
	err       error         // why the last attempt failed
	uris      []string      // the resources subscribed to (legacy)
	level     string        // the log level set (legacy)
	closed    bool          // Close was called: no renewal starts
	loop      chan struct{} // closed when the renewing goroutine returns
	reporting bool          // it runs a callback of the user's
}

// shut keeps renewals from starting, and returns the channel to wait on for
// the one under way, if any (nil while it runs a callback, which may be
// calling Close).
func (r *renewal) shut() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	if r.reporting {
		return nil
	}
	return r.loop
}

// renewTimeout bounds one attempt to set up a new session.
const renewTimeout = 30 * time.Second

// clientRenewKey marks the context of a renewal's own requests, which must
// not wait for the renewal.
type clientRenewKey struct{}

// sessionLost starts a renewal, unless one is under way or the client does
// not renew sessions.
func (c *Client) sessionLost() {
	c.endSession(ErrSessionExpired)
	if c.opts.NoReinitialize || !c.ready.Load() || c.Modern() {
		return
	}
	if _, ok := c.transport().(SessionRenewer); !ok {
		return
	}
	r := &c.renew
	r.mu.Lock()
	if r.active || r.closed || c.serving.base.Err() != nil {
		r.mu.Unlock()
		return
	}
	r.active, r.err, r.attempt = true, nil, make(chan struct{})
	r.loop = make(chan struct{})
	r.on.Store(true)
	done := r.loop
	r.mu.Unlock()
	c.logger.Info("mcp: the server ended the session; starting a new one")
	go c.renewLoop(done)
}

// transport returns the Transport under the client, or nil.
func (c *Client) transport() Transport {
	if a, ok := c.t.(*clientAdapter); ok {
		return a.t
	}
	return nil
}

// report runs f, which calls a callback of the user's, unless the client is
// closed; a Close meanwhile does not wait for it.
func (c *Client) report(f func()) {
	r := &c.renew
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return
	}
	r.reporting = true
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.reporting = false
		r.mu.Unlock()
	}()
	f()
}

// renewLoop sets up a new session, with backoff between failed attempts,
// until one succeeds or the client closes; it closes done when it returns.
func (c *Client) renewLoop(done chan struct{}) {
	defer close(done)
	r := &c.renew
	base := c.serving.base
	old := c.Session()
	for n := 1; ; n++ {
		ctx, cancel := context.WithTimeout(context.WithValue(base, clientRenewKey{}, true), renewTimeout)
		err, partial := c.reinitialize(ctx)
		cancel()
		closed := base.Err() != nil
		r.mu.Lock()
		close(r.attempt)
		if err == nil || closed {
			r.active = false
			r.on.Store(false)
		} else {
			r.err = fmt.Errorf("%w; a new one could not be started: %v", ErrSessionExpired, err)
			r.attempt = make(chan struct{})
		}
		failed := r.err
		r.mu.Unlock()
		if closed {
			return
		}
		if err == nil {
			now := c.Session()
			c.logger.Info("mcp: started a new session", "session", c.t.(*clientAdapter).sessionID(), "version", now.ProtocolVersion)
			if f := c.opts.OnSessionChanged; f != nil && !sameSession(&old, &now) {
				c.report(func() { f(old, now) })
			}
			if f := c.opts.OnSessionExpired; f != nil {
				c.report(func() { f(partial) })
			}
			return
		}
		c.logger.Warn("mcp: start a new session", "attempt", n, "err", err)
		if f := c.opts.OnSessionExpired; f != nil {
			c.report(func() { f(failed) })
		}
		t := time.NewTimer(c.opts.Retry.Delay(n))
		select {
		case <-t.C:
		case <-base.Done():
			t.Stop()
		}
	}
}

// sameSession reports whether a and b negotiated the same.
func sameSession(a, b *SessionInfo) bool {
	return a.ProtocolVersion == b.ProtocolVersion && sameImplementation(a.ServerInfo, b.ServerInfo) &&
		a.Instructions == b.Instructions && bytes.Equal(a.Capabilities, b.Capabilities)
}

// sameImplementation reports whether a and b describe the same
// implementation, icons included.
func sameImplementation(a, b mcp.Implementation) bool {
	return a.Name == b.Name && a.Title == b.Title && a.Version == b.Version &&
		a.Description == b.Description && a.WebsiteURL == b.WebsiteURL &&
		slices.EqualFunc(a.Icons, b.Icons, func(x, y mcp.Icon) bool {
			return x.Src == y.Src && x.MIMEType == y.MIMEType && x.Theme == y.Theme && slices.Equal(x.Sizes, y.Sizes)
		})
}

// reinitialize runs one attempt: a new session, initialized offering the
// revision the first initialize offered, and taking what the server answers
// (an upgraded server may choose another revision, be another version, have
// other capabilities and instructions); then its log level and
// subscriptions restored where the new server offers them. partial joins
// what the new session refused (it answered with an error, or does not
// offer the capability), which is not tried again.
func (c *Client) reinitialize(ctx context.Context) (err, partial error) {
	// A session an earlier attempt started and could not finish ends here
	// (the transport ends it on the server).
	c.endSession(ErrSessionExpired)
	if err := c.transport().(SessionRenewer).RenewSession(ctx); err != nil {
		return err, nil
	}
	if c.opts.ProtocolVersion == "" {
		if switched, err, partial := c.renewModern(ctx); switched || err != nil {
			return err, partial
		}
	}
	params := struct {
		ProtocolVersion string             `json:"protocolVersion"`
		Capabilities    json.RawMessage    `json:"capabilities"`
		ClientInfo      mcp.Implementation `json:"clientInfo"`
	}{c.offered, c.opts.Capabilities, c.opts.Info}
	var res initializeResult
	if err := c.call(context.WithValue(ctx, clientNoCancelKey{}, true), mcp.MethodInitialize, &params, &res); err != nil {
		return fmt.Errorf("initialize: %w", err), nil
	}
	if !isLegacyVersion(res.ProtocolVersion) {
		return fmt.Errorf("the new session chose protocol version %q, which this client does not speak", res.ProtocolVersion), nil
	}
	c.neg.Store(&negotiated{SessionInfo: SessionInfo{
		ProtocolVersion: res.ProtocolVersion, ServerInfo: res.ServerInfo,
		Instructions: res.Instructions, Capabilities: res.Capabilities,
	}})
	// The tools may differ too: learn again which may be retried.
	c.hints.forget()
	if err := c.notify(ctx, mcp.NotificationInitialized); err != nil {
		return err, nil
	}
	r := &c.renew
	r.mu.Lock()
	uris, level := slices.Clone(r.uris), r.level
	r.mu.Unlock()
	var refused []error
	check := func(what string, err error) error {
		var rpcErr *runtime.Error
		if errors.As(err, &rpcErr) {
			refused = append(refused, fmt.Errorf("%s: %w", what, err))
			return nil
		}
		return err
	}
	caps := serverCapabilities(res.Capabilities)
	if level != "" {
		if caps.Logging == nil {
			refused = append(refused, errors.New("logging/setLevel: the new session offers no logging"))
		} else if err := check(mcp.MethodLoggingSetLevel, c.call(ctx, mcp.MethodLoggingSetLevel, &struct {
			Level string `json:"level"`
		}{level}, nil)); err != nil {
			return err, nil
		}
	}
	for _, uri := range uris {
		if caps.Resources == nil || !caps.Resources.Subscribe {
			refused = append(refused, fmt.Errorf("resources/subscribe %s: the new session offers no resource subscriptions", uri))
			continue
		}
		if err := check(mcp.MethodResourcesSubscribe+" "+uri, c.subscription(ctx, mcp.MethodResourcesSubscribe, uri)); err != nil {
			return err, nil
		}
	}
	return nil, errors.Join(refused...)
}

// offeredCaps is the part of a server's capabilities a new session needs.
type offeredCaps struct {
	Logging   json.RawMessage `json:"logging"`
	Resources *struct {
		Subscribe bool `json:"subscribe"`
	} `json:"resources"`
}

// serverCapabilities reads the capabilities a new session needs from raw.
func serverCapabilities(raw json.RawMessage) offeredCaps {
	var caps offeredCaps
	_ = json.Unmarshal(raw, &caps) // malformed: none offered
	return caps
}

// awaitSession waits, within ctx, for a renewal under way, and returns the
// error of its attempt when that failed.
func (c *Client) awaitSession(ctx context.Context) error {
	r := &c.renew
	if !r.on.Load() {
		return nil
	}
	r.mu.Lock()
	if !r.active || ctx.Value(clientRenewKey{}) != nil {
		r.mu.Unlock()
		return nil
	}
	ch := r.attempt
	r.mu.Unlock()
	select {
	case <-ch:
	case <-ctx.Done():
		return ctx.Err()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.active {
		return nil
	}
	return runtime.NotSent(r.err)
}

// subscribed records a legacy subscription's change, for a new session.
func (c *Client) subscribed(uri string, add bool) {
	r := &c.renew
	r.mu.Lock()
	defer r.mu.Unlock()
	i := slices.Index(r.uris, uri)
	switch {
	case add && i < 0:
		r.uris = append(r.uris, uri)
	case !add && i >= 0:
		r.uris = slices.Delete(r.uris, i, i+1)
	}
}

// leveled records a legacy session's log level, for a new session.
func (c *Client) leveled(level string) {
	c.renew.mu.Lock()
	c.renew.level = level
	c.renew.mu.Unlock()
}
