package mcphttp

import (
	"context"
	"time"

	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// A change made on a replica (a log message, a resource update, a list
// change) is stored, for every legacy session it concerns, by that replica,
// off the path of the call that made it: onChange queues it and fanOut
// stores the queue in order. A call's response waits until the changes
// queued before its handler returned are stored (waitStored), so a client
// that has the answer finds the call's notifications in the store even if
// the replica dies the next instant; with nothing queued that costs two
// atomic loads.

// seqChange is a change and its number in the order of fan.
type seqChange struct {
	n int64
	c mcpserver.Change
}

// onChange queues a change made on this replica for fanOut.
func (rep *replica) onChange(c mcpserver.Change) {
	rep.fanStart.Do(func() { go rep.fanOut() })
	rep.fanMu.Lock()
	n := rep.queued.Load() + 1
	select {
	case rep.fan <- seqChange{n, c}:
		rep.queued.Store(n)
		rep.fanMu.Unlock()
	default:
		rep.fanMu.Unlock()
		rep.h.logger.Warn("mcphttp: too many changes wait to be stored for their sessions; dropping one", "method", c.Method)
	}
}

// fanOut stores each queued change for every session it concerns.
func (rep *replica) fanOut() {
	for sc := range rep.fan {
		c := sc.c
		msg := notification(c.Method, c.Params)
		ctx, cancel := context.WithTimeout(context.Background(), 10*rep.timeout)
		n := 0
		err := rep.sessions.Match(ctx, Audience{URI: c.URI, Feature: c.Feature, Level: c.Level}, func(id string) bool {
			if _, err := rep.events.Append(ctx, id, standaloneName, msg); err != nil {
				rep.h.logger.Warn("mcphttp: store a notification for a session", "session", id, "method", c.Method, "err", err)
			}
			n++
			return ctx.Err() == nil
		})
		cancel()
		if err != nil {
			rep.h.logger.Warn("mcphttp: find the sessions a notification concerns", "method", c.Method, "err", err)
		}
		rep.h.logger.Debug("mcphttp: notification stored", "method", c.Method, "sessions", n)
		rep.stored.Store(sc.n)
		rep.storedMu.Lock()
		close(rep.storedCh)
		rep.storedCh = make(chan struct{})
		rep.storedMu.Unlock()
	}
}

// waitStored waits until the changes queued so far are stored, or
// StoreTimeout has passed (a store that is down delays a response by that
// much at most; the change is stored later or lost with it).
func (rep *replica) waitStored() {
	upto := rep.queued.Load()
	if rep.stored.Load() >= upto {
		return
	}
	timer := time.NewTimer(rep.timeout)
	defer timer.Stop()
	for {
		rep.storedMu.Lock()
		ch := rep.storedCh
		rep.storedMu.Unlock()
		if rep.stored.Load() >= upto {
			return
		}
		select {
		case <-ch:
		case <-timer.C:
			rep.h.logger.Warn("mcphttp: a response went out before the notifications made before it were stored", "waiting", upto-rep.stored.Load())
			return
		}
	}
}
