package redis

import (
	"context"
	"sync"
	"time"
)

// goredisTimeout bounds the calls made outside any request.
const goredisTimeout = 2 * time.Second

// bus is the mcpserver.Bus on Redis pub/sub: a topic is the channel
// Prefix+"bus:"+topic. Each subscription gets its messages in order on a
// goroutine of its own; at most busQueue wait for a subscriber that does
// not keep up, and more are dropped.
type bus struct{ s *Shared }

const busQueue = 1 << 14

func (b *bus) channel(topic string) string { return b.s.opts.Prefix + "bus:" + topic }

func (b *bus) Publish(ctx context.Context, topic string, msg []byte) error {
	return b.s.c.Publish(ctx, b.channel(topic), msg).Err()
}

func (b *bus) Subscribe(topic string, f func(msg []byte)) (func(), error) {
	q := &queue{f: f}
	ctx, cancel := context.WithTimeout(context.Background(), goredisTimeout)
	defer cancel()
	stop, err := b.s.ps.subscribe(ctx, b.channel(topic), q.push, nil, true)
	if err != nil {
		return nil, err
	}
	return func() { stop(); q.stop() }, nil
}

type queue struct {
	f       func([]byte)
	mu      sync.Mutex
	items   [][]byte
	running bool
	stopped bool
}

func (q *queue) push(payload string) {
	q.mu.Lock()
	if q.stopped || len(q.items) >= busQueue {
		q.mu.Unlock()
		return
	}
	q.items = append(q.items, []byte(payload))
	start := !q.running
	q.running = true
	q.mu.Unlock()
	if start {
		go q.run()
	}
}

func (q *queue) run() {
	for {
		q.mu.Lock()
		if len(q.items) == 0 || q.stopped {
			q.running = false
			q.mu.Unlock()
			return
		}
		msg := q.items[0]
		q.items[0] = nil
		q.items = q.items[1:]
		q.mu.Unlock()
		q.f(msg)
	}
}

func (q *queue) stop() {
	q.mu.Lock()
	q.stopped, q.items = true, nil
	q.mu.Unlock()
}
