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
// the toucher's worker goroutine (which keeps the stack go-redis grew; it
// ends after a second without work), one command per session: every Touch of a
// batch came before the batch went out, so one answer about their session,
// read after each of them came, serves them all (a client's parallel calls
// in one session cost one command). A waiting Touch still gives up when
// its context ends.
//
// A session's keys need their expiry pushed back only once per slack
// (touchSlack): the toucher remembers until when what it last saw of each
// session's expiry holds, and until then reads only the log level, one
// HGET, which also finds a session that is gone (deleted elsewhere, or
// expired: its hash is). After that, or for a session it has not seen,
// it runs touchScript, which pushes the expiry back unless another
// replica did so within slack.
type toucher struct {
	s     *Shared
	mu    sync.Mutex
	busy  bool
	queue []*touchReq
	fresh map[string]fresh // by session id
	prune time.Time        // when fresh is next swept of what expired

	working bool             // the worker runs
	work    chan []*touchReq // to the worker; sent to with mu held, holds at most one batch
}

// fresh is what a replica knows of a session's keys: until (on this
// process's clock) they expire no sooner than ttl less slack from then.
type fresh struct {
	until time.Time
	ttl   time.Duration
	key   string // the session's hash
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

// next hands the Touches that queued meanwhile to the worker, or marks the
// toucher idle.
func (t *toucher) next() {
	t.mu.Lock()
	defer t.mu.Unlock()
	batch := t.queue
	t.queue = nil
	if len(batch) == 0 {
		t.busy = false
		return
	}
	if !t.working {
		t.working = true
		if t.work == nil {
			t.work = make(chan []*touchReq, 1)
		}
		go t.worker()
	}
	t.work <- batch // one batch is out at a time: never blocks
}

// worker sends the batches next hands it, until none comes for a second.
func (t *toucher) worker() {
	idle := time.NewTimer(time.Second)
	defer idle.Stop()
	for {
		select {
		case batch := <-t.work:
			t.run(batch)
			t.next()
			idle.Reset(time.Second)
		case <-idle.C:
			t.mu.Lock()
			if len(t.work) > 0 {
				t.mu.Unlock()
				idle.Reset(time.Second)
				continue
			}
			t.working = false
			t.mu.Unlock()
			return
		}
	}
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
	// Each first is read (HGET) when its keys are known fresh, else
	// touched (the script).
	reads := make([]*goredis.StringCmd, len(firsts))
	touches := make([]*goredis.Cmd, len(firsts))
	sent := time.Now()
	t.mu.Lock()
	for i, r := range firsts {
		if f, ok := t.fresh[r.id]; ok && f.ttl == r.ttl && sent.Before(f.until) {
			reads[i] = goredis.NewStringCmd(ctx, "hget", f.key, "lvl")
		} else {
			touches[i] = goredis.NewCmd(ctx, touchArgs(s, r.id, r.ttl, false)...)
		}
	}
	t.mu.Unlock()
	cmd := func(i int) goredis.Cmder {
		if reads[i] != nil {
			return reads[i]
		}
		return touches[i]
	}
	if len(firsts) == 1 {
		_ = s.c.Process(ctx, cmd(0))
	} else {
		pipe := s.c.Pipeline()
		for i := range firsts {
			_ = pipe.Process(ctx, cmd(i))
		}
		_, _ = pipe.Exec(ctx)
	}
	for i, r := range firsts {
		// Redis lost its scripts (a restart): load it, once, with Run.
		if touches[i] != nil {
			if err := touches[i].Err(); err != nil && strings.HasPrefix(err.Error(), "NOSCRIPT") {
				touches[i] = touchScript.Run(ctx, s.c, s.touchKeys(r.id), s.touchArgs(r.id, r.ttl, false)...)
			}
		}
	}
	t.mu.Lock()
	for i, r := range firsts {
		var err error
		if reads[i] != nil {
			var lvl string
			lvl, err = reads[i].Result()
			r.lvl = mcp.LogLevel(lvl)
		} else {
			var v any
			v, err = touches[i].Result()
			if err == nil {
				// The log level, and how long ago the expiry was pushed back.
				parts, _ := v.([]any)
				if len(parts) != 2 {
					err = errors.New("the touch script's answer is malformed")
				} else {
					lvl, _ := parts[0].(string)
					r.lvl = mcp.LogLevel(lvl)
					if ago, ok := parts[1].(int64); ok {
						t.remember(r.id, r.ttl, sent.Add(-time.Duration(ago)*time.Millisecond))
					}
				}
			}
		}
		switch {
		case errors.Is(err, goredis.Nil):
			r.err = mcphttp.ErrSessionNotFound
			delete(t.fresh, r.id)
		case err != nil:
			r.err = fmt.Errorf("redis: touch a session: %w", err)
			delete(t.fresh, r.id)
		}
	}
	t.mu.Unlock()
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

// remember records, with t.mu held, that the keys of session id were last
// pushed back to ttl at refreshed (on this process's clock, no later than
// Redis did it): they are fresh for slack from then.
func (t *toucher) remember(id string, ttl time.Duration, refreshed time.Time) {
	slack := time.Duration(touchSlack(ttl)) * time.Millisecond
	until := refreshed.Add(slack)
	now := time.Now()
	if !now.Before(until) {
		return
	}
	if t.fresh == nil {
		t.fresh = map[string]fresh{}
	}
	if now.After(t.prune) {
		// What expired goes, at most once a second: fresh holds the
		// sessions seen within the last slack (at most a second) or two.
		for k, f := range t.fresh {
			if !now.Before(f.until) {
				delete(t.fresh, k)
			}
		}
		t.prune = now.Add(time.Second)
	}
	key := t.fresh[id].key
	if key == "" {
		key = t.s.hashKey(id)
	}
	t.fresh[id] = fresh{until: until, ttl: ttl, key: key}
}

// touchKey is a session and idle timeout, the Touches one command answers.
type touchKey struct {
	id  string
	ttl time.Duration
}

// touchArgs is the command that runs touchScript (EVALSHA) for session id:
// its name, the script's hash, its keys and its arguments.
func touchArgs(s *Shared, id string, ttl time.Duration, full bool) []any {
	keys := s.touchKeys(id)
	args := s.touchArgs(id, ttl, full)
	cmd := make([]any, 0, 3+len(keys)+len(args))
	cmd = append(cmd, "evalsha", touchScript.Hash(), len(keys))
	for _, k := range keys {
		cmd = append(cmd, k)
	}
	return append(cmd, args...)
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
