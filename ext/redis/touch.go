package redis

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp"
)

// toucher sends the Touches that overlap as one pipeline: Touch is the
// hot path of every request of a shared session, so with many requests in
// flight a replica sends one write, and Redis one reply, for many of them,
// rather than one each. A Touch with none in flight goes out at once; the
// ones that come while it is out wait for it and then go out together, on
// a goroutine of their own. A waiting Touch still gives up when its context
// ends.
type toucher struct {
	s     *Shared
	mu    sync.Mutex
	busy  bool
	queue []*touchReq
}

type touchReq struct {
	ctx  context.Context
	id   string
	ttl  time.Duration
	lvl  mcp.LogLevel
	err  error
	done chan struct{}
}

func (t *toucher) touch(ctx context.Context, id string, ttl time.Duration) (mcp.LogLevel, error) {
	r := &touchReq{ctx: ctx, id: id, ttl: ttl}
	t.mu.Lock()
	if t.busy {
		r.done = make(chan struct{})
		t.queue = append(t.queue, r)
		t.mu.Unlock()
		select {
		case <-r.done:
			return r.lvl, r.err
		case <-ctx.Done():
			return "", fmt.Errorf("redis: touch a session: %w", ctx.Err())
		}
	}
	t.busy = true
	t.mu.Unlock()
	t.run([]*touchReq{r})
	t.next()
	return r.lvl, r.err
}

// next sends the Touches that queued meanwhile, on a goroutine, or marks
// the toucher idle.
func (t *toucher) next() {
	t.mu.Lock()
	batch := t.queue
	t.queue = nil
	if len(batch) == 0 {
		t.busy = false
		t.mu.Unlock()
		return
	}
	t.mu.Unlock()
	go func() {
		t.run(batch)
		t.next()
	}()
}

// run sends batch and sets each request's result.
func (t *toucher) run(batch []*touchReq) {
	s := t.s
	live := batch[:0:0]
	for _, r := range batch {
		if r.ctx.Err() == nil {
			live = append(live, r)
		} else {
			r.err = fmt.Errorf("redis: touch a session: %w", r.ctx.Err())
			if r.done != nil {
				close(r.done)
			}
		}
	}
	if len(live) == 0 {
		return
	}
	ctx := live[0].ctx
	if len(live) > 1 {
		// The batch outlives any one request's context; each waiter still
		// gives up on its own.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.Background(), goredisTimeout)
		defer cancel()
	}
	cmds := make([]*goredis.Cmd, len(live))
	if len(live) == 1 {
		cmds[0] = touchScript.Run(ctx, s.c, s.touchKeys(live[0].id), s.touchArgs(live[0].id, live[0].ttl, false)...)
	} else {
		pipe := s.c.Pipeline()
		for i, r := range live {
			cmds[i] = touchScript.EvalSha(ctx, pipe, s.touchKeys(r.id), s.touchArgs(r.id, r.ttl, false)...)
		}
		_, _ = pipe.Exec(ctx)
		for i, r := range live {
			// Redis lost its scripts (a restart): load it, once, with Run.
			if err := cmds[i].Err(); err != nil && strings.HasPrefix(err.Error(), "NOSCRIPT") {
				cmds[i] = touchScript.Run(ctx, s.c, s.touchKeys(r.id), s.touchArgs(r.id, r.ttl, false)...)
			}
		}
	}
	for i, r := range live {
		v, err := cmds[i].Result()
		switch {
		case errors.Is(err, goredis.Nil):
			r.err = mcphttp.ErrSessionNotFound
		case err != nil:
			r.err = fmt.Errorf("redis: touch a session: %w", err)
		default:
			lvl, _ := v.(string)
			r.lvl = mcp.LogLevel(lvl)
		}
		if r.done != nil {
			close(r.done)
		}
	}
}

// touchKeys and touchArgs are touchScript's keys and arguments.
func (s *Shared) touchKeys(id string) []string {
	return []string{s.hashKey(id), s.subsKey(id), s.eventsKey(id), s.zsetKey()}
}

func (s *Shared) touchArgs(id string, ttl time.Duration, full bool) []any {
	f := "0"
	if full {
		f = "1"
	}
	return []any{ms(ttl), id, f, touchSlack(ttl), s.index}
}
