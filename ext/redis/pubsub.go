package redis

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	goredis "github.com/redis/go-redis/v9"
)

// pubsub multiplexes the channels a replica listens to (the bus's topics,
// the wake channels of the sessions it follows) on one Redis pub/sub
// connection. go-redis reconnects it and subscribes again after a failure;
// each such new subscription calls the channel's resync functions, since
// messages may have been lost meanwhile.
type pubsub struct {
	c      goredis.UniversalClient
	logger *slog.Logger
	ps     *goredis.PubSub
	done   chan struct{}

	mu    sync.Mutex
	chans map[string]*channel
}

type channel struct {
	subs      map[*subscriber]struct{}
	confirmed bool
	waiters   []chan struct{}
}

type subscriber struct {
	f      func(payload string)
	resync func()
}

func newPubSub(c goredis.UniversalClient, logger *slog.Logger) *pubsub {
	p := &pubsub{c: c, logger: logger, done: make(chan struct{}), chans: make(map[string]*channel)}
	p.ps = c.Subscribe(context.Background())
	go p.run(p.ps.ChannelWithSubscriptions(goredis.WithChannelSize(4096)))
	return p
}

func (p *pubsub) run(in <-chan any) {
	defer close(p.done)
	for m := range in {
		switch m := m.(type) {
		case *goredis.Message:
			p.mu.Lock()
			ch := p.chans[m.Channel]
			var subs []*subscriber
			if ch != nil {
				for s := range ch.subs {
					subs = append(subs, s)
				}
			}
			p.mu.Unlock()
			for _, s := range subs {
				s.f(m.Payload)
			}
		case *goredis.Subscription:
			if m.Kind != "subscribe" {
				continue
			}
			p.mu.Lock()
			ch := p.chans[m.Channel]
			var resync []func()
			if ch != nil {
				if ch.confirmed {
					// Subscribed again after a lost connection.
					for s := range ch.subs {
						if s.resync != nil {
							resync = append(resync, s.resync)
						}
					}
				}
				ch.confirmed = true
				for _, w := range ch.waiters {
					close(w)
				}
				ch.waiters = nil
			}
			p.mu.Unlock()
			for _, f := range resync {
				f()
			}
		}
	}
}

var errClosed = errors.New("redis: closed")

// subscribe calls f with the payload of every message on name, from when
// Redis confirms the subscription (subscribe waits for it, within ctx),
// until stop.
//
// With keep, a subscription Redis does not confirm in time (it is down) is
// kept, and made when Redis is back; without, subscribe fails then.
func (p *pubsub) subscribe(ctx context.Context, name string, f func(string), resync func(), keep bool) (func(), error) {
	s := &subscriber{f: f, resync: resync}
	p.mu.Lock()
	select {
	case <-p.done:
		p.mu.Unlock()
		return nil, errClosed
	default:
	}
	ch := p.chans[name]
	first := ch == nil
	if first {
		ch = &channel{subs: make(map[*subscriber]struct{})}
		p.chans[name] = ch
	}
	ch.subs[s] = struct{}{}
	var wait chan struct{}
	if !ch.confirmed {
		wait = make(chan struct{})
		ch.waiters = append(ch.waiters, wait)
	}
	p.mu.Unlock()
	stop := func() { p.unsubscribe(name, s) }
	if first {
		if err := p.ps.Subscribe(ctx, name); err != nil {
			// go-redis keeps the channel and subscribes when it reconnects.
			p.logger.Warn("redis: subscribe", "channel", name, "err", err)
		}
	}
	if wait != nil {
		select {
		case <-wait:
		case <-ctx.Done():
			if keep {
				p.logger.Warn("redis: a subscription is not confirmed yet; it will be once Redis answers", "channel", name)
				return stop, nil
			}
			stop()
			return nil, ctx.Err()
		}
	}
	return stop, nil
}

func (p *pubsub) unsubscribe(name string, s *subscriber) {
	p.mu.Lock()
	ch := p.chans[name]
	if ch == nil {
		p.mu.Unlock()
		return
	}
	delete(ch.subs, s)
	last := len(ch.subs) == 0
	if last {
		delete(p.chans, name)
	}
	p.mu.Unlock()
	if last {
		ctx, cancel := context.WithTimeout(context.Background(), goredisTimeout)
		defer cancel()
		if err := p.ps.Unsubscribe(ctx, name); err != nil {
			p.logger.Debug("redis: unsubscribe", "channel", name, "err", err)
		}
	}
}

func (p *pubsub) close() {
	_ = p.ps.Close()
	<-p.done
}
