package mcphttp

import (
	"context"
	"sync"
	"time"
)

// The goroutines of the legacy calls that do not run on their POST's own
// goroutine (inline.go). A goroutine starts with a small stack, and a call
// (decoding its params, running its tool, encoding its result) needs more:
// a fresh goroutine per call grew and copied its stack on every call. A
// worker keeps the stack it grew: once its call is done it waits a while
// for the next one, handed to it directly, and ends when none comes.

// workerIdle is how long an idle worker waits for a call before it ends.
const workerIdle = time.Second

// workers hands calls to idle workers, or starts new ones.
type workers struct {
	calls chan *call    // unbuffered: a call goes to a worker waiting for one
	quit  chan struct{} // closed by Shutdown: idle workers end at once
	once  sync.Once
}

func (p *workers) init() {
	p.calls = make(chan *call)
	p.quit = make(chan struct{})
}

// start runs c.run(ctx, body) on an idle worker or a new one.
func (p *workers) start(c *call, ctx context.Context, body []byte) {
	c.ctx, c.body = ctx, body
	select {
	case p.calls <- c:
	default:
		go p.work(c)
	}
}

// work runs c, then every call handed to it, until it has waited
// workerIdle for one or the handler shuts down.
func (p *workers) work(c *call) {
	var idle *time.Timer
	for {
		ctx, body := c.ctx, c.body
		c.ctx, c.body = nil, nil
		c.run(ctx, body)
		c = nil // an idle worker holds no call
		if idle == nil {
			idle = time.NewTimer(workerIdle)
		} else {
			idle.Reset(workerIdle)
		}
		select {
		case c = <-p.calls:
		case <-idle.C:
			return
		case <-p.quit:
			idle.Stop()
			return
		}
	}
}

// stop ends the idle workers, and every worker once its call is done.
func (p *workers) stop() {
	p.once.Do(func() { close(p.quit) })
}
