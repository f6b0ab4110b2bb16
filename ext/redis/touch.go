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
// a goroutine of their own, one command per session: every Touch of a
// batch came before the batch went out, so one answer about their session,
// read after each of them came, serves them all (a client's parallel calls
// in one session cost one command). A waiting Touch still gives up when
// its context ends.
type toucher struct {
	s     *Shared
	mu    sync.Mutex
	busy  bool
	queue []*touchReq
}

type touchReq struct {
	ctx    context.Context
	id     string
	ttl    time.Duration
	lvl    mcp.LogLevel
	err    error
	queued bool          // it waits on done
	done   chan struct{} // buffered: run never blocks on a Touch that gave up
	same   *touchReq     // in a batch, the first Touch of the same session and ttl
}

// touchReqs are reused: a Touch puts its request back once it has its
// answer (not when it gave up: run may still write to it).
var touchReqs = sync.Pool{New: func() any { return &touchReq{done: make(chan struct{}, 1)} }}

func (t *toucher) touch(ctx context.Context, id string, ttl time.Duration) (mcp.LogLevel, error) {
	r := touchReqs.Get().(*touchReq)
	r.ctx, r.id, r.ttl = ctx, id, ttl
	t.mu.Lock()
	if t.busy {
		r.queued = true
		t.queue = append(t.queue, r)
		t.mu.Unlock()
		select {
		case <-r.done:
			return r.result()
		case <-ctx.Done():
			return "", fmt.Errorf("redis: touch a session: %w", ctx.Err())
		}
	}
	t.busy = true
	t.mu.Unlock()
	t.run([]*touchReq{r})
	t.next()
	return r.result()
}

// result returns r's answer and puts r back in the pool.
func (r *touchReq) result() (mcp.LogLevel, error) {
	lvl, err := r.lvl, r.err
	*r = touchReq{done: r.done}
	touchReqs.Put(r)
	return lvl, err
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

// answer sets r's result and wakes it when it waits.
func (r *touchReq) answer(lvl mcp.LogLevel, err error) {
	r.lvl, r.err = lvl, err
	if r.queued {
		r.done <- struct{}{}
	}
}

// run sends batch, one command per session, and sets each request's
// result.
func (t *toucher) run(batch []*touchReq) {
	s := t.s
	// A request is not read again once answered: it may be reused.
	live := make([]*touchReq, 0, len(batch))
	for _, r := range batch {
		if err := r.ctx.Err(); err != nil {
			r.answer("", fmt.Errorf("redis: touch a session: %w", err))
		} else {
			live = append(live, r)
		}
	}
	// The first Touch of each session (and idle timeout) is sent; the
	// others take its answer.
	var firsts []*touchReq
	var index map[touchKey]*touchReq // for big batches; small ones are scanned
	if len(live) > 8 {
		index = make(map[touchKey]*touchReq, len(live))
	}
	for _, r := range live {
		r.same = nil
		if index != nil {
			k := touchKey{r.id, r.ttl}
			if f := index[k]; f != nil {
				r.same = f
				continue
			}
			index[k] = r
		} else {
			for _, f := range firsts {
				if f.id == r.id && f.ttl == r.ttl {
					r.same = f
					break
				}
			}
			if r.same != nil {
				continue
			}
		}
		firsts = append(firsts, r)
	}
	if len(firsts) == 0 {
		return
	}
	ctx := firsts[0].ctx
	if len(live) > 1 {
		// The batch outlives any one request's context; each waiter still
		// gives up on its own.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.Background(), goredisTimeout)
		defer cancel()
	}
	cmds := make([]*goredis.Cmd, len(firsts))
	if len(firsts) == 1 {
		cmds[0] = touchScript.Run(ctx, s.c, s.touchKeys(firsts[0].id), s.touchArgs(firsts[0].id, firsts[0].ttl, false)...)
	} else {
		pipe := s.c.Pipeline()
		for i, r := range firsts {
			cmds[i] = touchScript.EvalSha(ctx, pipe, s.touchKeys(r.id), s.touchArgs(r.id, r.ttl, false)...)
		}
		_, _ = pipe.Exec(ctx)
		for i, r := range firsts {
			// Redis lost its scripts (a restart): load it, once, with Run.
			if err := cmds[i].Err(); err != nil && strings.HasPrefix(err.Error(), "NOSCRIPT") {
				cmds[i] = touchScript.Run(ctx, s.c, s.touchKeys(r.id), s.touchArgs(r.id, r.ttl, false)...)
			}
		}
	}
	for i, r := range firsts {
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
	}
	// The others first: once answered, a first's request may be reused.
	for _, o := range live {
		if o.same != nil {
			o.answer(o.same.lvl, o.same.err)
		}
	}
	for _, r := range firsts {
		r.answer(r.lvl, r.err)
	}
}

// touchKey is a session and idle timeout, the Touches one command answers.
type touchKey struct {
	id  string
	ttl time.Duration
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
