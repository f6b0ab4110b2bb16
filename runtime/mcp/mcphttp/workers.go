package mcphttp

import (
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

// start runs c.run(&c.cctx, body) on an idle worker or a new one.
func (p *workers) start(c *call, body []byte) {
	c.body = body
	select {
	case p.calls <- c:
	default:
		go p.work(c)
	}
}

// work runs c, then every call handed to it, until it has waited about
// workerIdle for one (between once and twice that) or the handler shuts
// down. Its timer is not moved on at every call, which cost a runtime timer
// update per call: when it fires, the worker goes on for another workerIdle
// if it ran a call meanwhile.
func (p *workers) work(c *call) {
	var idle *time.Timer
	ran := true // a call since the timer was set
	for {
		body := c.body
		c.body = nil
		c.run(&c.cctx, body)
		c = nil // an idle worker holds no call
		ran = true
		if idle == nil {
			idle = time.NewTimer(workerIdle)
			ran = false
		}
		for c == nil {
			select {
			case c = <-p.calls:
			case <-idle.C:
				if !ran {
					return
				}
				ran = false
				idle.Reset(workerIdle)
			case <-p.quit:
				idle.Stop()
				return
			}
		}
	}
}

// stop ends the idle workers, and every worker once its call is done.
func (p *workers) stop() {
	p.once.Do(func() { close(p.quit) })
}
