package redis_test

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rpcgen/rpcgen/ext/redis"
	"github.com/rpcgen/rpcgen/ext/redis/redistest"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp"
)

// Touch, a busy session's hot path, pushes the expiry of every key of the
// session back unless that was done less than a second (a 64th of the
// idle timeout) ago; then it only reads the log level, and the keys
// expire at most that much early. Each Touch here is another replica's
// (a new Shared), which has not seen the session before.
func TestTouchSkipsARecentRefresh(t *testing.T) {
	rs := redistest.Start(t)
	prefix := "touch:" + rand.Text()[:8] + ":"
	sh, c := newShared(t, rs, redis.Options{Prefix: prefix})
	ctx := context.Background()
	const idle = 10 * time.Minute
	if err := sh.Sessions().Create(ctx, stored("a"), 10, idle); err != nil {
		t.Fatal(err)
	}
	if _, err := sh.Events().Append(ctx, "a", "0", nil); err != nil {
		t.Fatal(err)
	}
	keys := []string{prefix + "{a}:s", prefix + "{a}:e"}
	set := func(ttl time.Duration) {
		for _, k := range keys {
			c.PExpire(ctx, k, ttl)
		}
	}
	touch := func() error {
		replica, _ := newShared(t, rs, redis.Options{Prefix: prefix})
		_, err := replica.Sessions().Touch(ctx, "a", idle)
		return err
	}
	// Refreshed 300ms ago: left alone.
	set(idle - 300*time.Millisecond)
	if err := touch(); err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if ttl := c.PTTL(ctx, k).Val(); ttl > idle-300*time.Millisecond {
			t.Errorf("%s: TTL %v after a Touch 300ms after the last, want it left", k, ttl)
		}
	}
	// Refreshed 5s ago: pushed back, every key.
	set(idle - 5*time.Second)
	if err := touch(); err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if ttl := c.PTTL(ctx, k).Val(); ttl <= idle-time.Second {
			t.Errorf("%s: TTL %v after a Touch 5s after the last, want the idle timeout", k, ttl)
		}
	}
	// A session whose keys lost their TTL is refreshed, and a gone one is
	// not found.
	c.Persist(ctx, keys[0])
	if err := touch(); err != nil {
		t.Fatal(err)
	}
	if ttl := c.PTTL(ctx, keys[0]).Val(); ttl <= idle-time.Second {
		t.Errorf("TTL %v after a Touch of a key without one", ttl)
	}
	c.Del(ctx, keys[0])
	if err := touch(); !errors.Is(err, mcphttp.ErrSessionNotFound) {
		t.Errorf("Touch of a deleted session: %v", err)
	}
}

// A replica that pushed a session's expiry back (or saw it pushed back)
// reads only the log level (HGET) until a slack (a 64th of the idle
// timeout) has passed since, then pushes it back again; the level another
// replica set, and the session's end, are seen at once.
func TestTouchRemembersARefresh(t *testing.T) {
	rs := redistest.Start(t)
	prefix := "fresh:" + rand.Text()[:8] + ":"
	sh, c := newShared(t, rs, redis.Options{Prefix: prefix})
	other, admin := newShared(t, rs, redis.Options{Prefix: prefix})
	ctx := context.Background()
	const idle = time.Minute // slack: 937ms
	if err := other.Sessions().Create(ctx, stored("a"), 10, idle); err != nil {
		t.Fatal(err)
	}
	// The script loaded, and sh's connection open, before the count.
	if _, err := other.Sessions().Get(ctx, "a", idle); err != nil {
		t.Fatal(err)
	}
	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	var sent cmdNames
	c.AddHook(&sent)
	st := sh.Sessions()
	touch := func() (mcp.LogLevel, []string) {
		t.Helper()
		sent.take()
		lvl, err := st.Touch(ctx, "a", idle)
		if err != nil {
			t.Fatal(err)
		}
		return lvl, sent.take()
	}
	if _, cmds := touch(); len(cmds) != 1 || cmds[0] != "evalsha" {
		t.Fatalf("first Touch sent %v, want the script", cmds)
	}
	// Until the slack has passed the Touches only read (at least the one
	// right after the script), then one runs the script again.
	reads := 0
	var before time.Duration // the TTL before the last Touch
	for deadline := time.Now().Add(time.Minute); ; {
		before = admin.PTTL(ctx, prefix+"{a}:s").Val()
		_, cmds := touch()
		if len(cmds) == 1 && cmds[0] == "hget" {
			if reads++; time.Now().After(deadline) {
				t.Fatalf("%d Touches in a minute only read: the expiry is never pushed back", reads)
			}
			continue
		}
		if len(cmds) != 1 || cmds[0] != "evalsha" {
			t.Fatalf("Touch sent %v", cmds)
		}
		break
	}
	if reads == 0 {
		t.Error("no Touch only read the log level")
	}
	if ttl := admin.PTTL(ctx, prefix+"{a}:s").Val(); ttl <= before {
		t.Errorf("TTL %v after the script ran again, %v before: not pushed back", ttl, before)
	}
	// The level set elsewhere is seen at once.
	if err := other.Sessions().Update(ctx, "a", mcphttp.SessionUpdate{LogLevel: mcp.LevelNotice}); err != nil {
		t.Fatal(err)
	}
	if lvl, cmds := touch(); lvl != mcp.LevelNotice {
		t.Errorf("Touch after the level changed elsewhere = %q (sent %v), want %q", lvl, cmds, mcp.LevelNotice)
	}
	if ok, err := other.Sessions().Delete(ctx, "a"); !ok || err != nil {
		t.Fatalf("Delete = %v, %v", ok, err)
	}
	if _, err := st.Touch(ctx, "a", idle); !errors.Is(err, mcphttp.ErrSessionNotFound) {
		t.Errorf("Touch after the session was deleted elsewhere: %v", err)
	}
}

// cmdNames records the names of the commands sent, a pipeline's too.
type cmdNames struct {
	mu    sync.Mutex
	names []string
}

func (h *cmdNames) take() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := h.names
	h.names = nil
	return n
}

func (h *cmdNames) add(cmds ...goredis.Cmder) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, c := range cmds {
		h.names = append(h.names, c.Name())
	}
}

func (*cmdNames) DialHook(next goredis.DialHook) goredis.DialHook { return next }
func (h *cmdNames) ProcessHook(next goredis.ProcessHook) goredis.ProcessHook {
	return func(ctx context.Context, cmd goredis.Cmder) error { h.add(cmd); return next(ctx, cmd) }
}
func (h *cmdNames) ProcessPipelineHook(next goredis.ProcessPipelineHook) goredis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []goredis.Cmder) error { h.add(cmds...); return next(ctx, cmds) }
}

// Touches that overlap go out together, in fewer round trips than
// Touches, and each gets its own session's answer: its log level, or
// ErrSessionNotFound for a session that is gone.
func TestTouchesBatched(t *testing.T) {
	rs := redistest.Start(t)
	prefix := "batch:" + rand.Text()[:8] + ":"
	sh, c := newShared(t, rs, redis.Options{Prefix: prefix})
	ctx := context.Background()
	st := sh.Sessions()
	levels := []mcp.LogLevel{mcp.LevelDebug, mcp.LevelInfo, mcp.LevelError, ""}
	for i, lvl := range levels {
		id := fmt.Sprint("s", i)
		if err := st.Create(ctx, stored(id), 100, time.Minute); err != nil {
			t.Fatal(err)
		}
		if lvl != "" {
			if err := st.Update(ctx, id, mcphttp.SessionUpdate{LogLevel: lvl}); err != nil {
				t.Fatal(err)
			}
		}
	}
	var trips atomic.Int64
	c.AddHook(tripCounter{&trips})
	const callers, each = 32, 20
	var wg sync.WaitGroup
	errs := make(chan error, callers)
	for g := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range each {
				i := (g + k) % (len(levels) + 1)
				if i == len(levels) {
					if _, err := st.Touch(ctx, "gone", time.Minute); !errors.Is(err, mcphttp.ErrSessionNotFound) {
						errs <- fmt.Errorf("Touch of no session: %v", err)
						return
					}
					continue
				}
				lvl, err := st.Touch(ctx, fmt.Sprint("s", i), time.Minute)
				if err != nil || lvl != levels[i] {
					errs <- fmt.Errorf("Touch of s%d = %q, %v; want %q", i, lvl, err, levels[i])
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := trips.Load(); n >= callers*each {
		t.Errorf("%d round trips for %d overlapping Touches: none batched", n, callers*each)
	} else {
		t.Logf("%d round trips for %d Touches", n, callers*each)
	}
	// A Touch whose context has ended gives up, batched or not.
	done, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := st.Touch(done, "s0", time.Minute); err == nil {
		t.Error("a Touch with an ended context succeeded")
	}
}

// The Touches of one session that overlap cost one command per batch, and
// none is answered with what Redis said before it came: a Touch that
// begins after another replica deleted the session finds it gone.
func TestTouchesOfOneSessionShareACommand(t *testing.T) {
	rs := redistest.Start(t)
	prefix := "same:" + rand.Text()[:8] + ":"
	sh, c := newShared(t, rs, redis.Options{Prefix: prefix})
	other, _ := newShared(t, rs, redis.Options{Prefix: prefix}) // another replica
	ctx := context.Background()
	st := sh.Sessions()
	if err := st.Create(ctx, stored("a"), 10, time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := st.Update(ctx, "a", mcphttp.SessionUpdate{LogLevel: mcp.LevelWarning}); err != nil {
		t.Fatal(err)
	}
	var cmds atomic.Int64
	c.AddHook(cmdCounter{&cmds})
	const callers, each = 32, 20
	var wg sync.WaitGroup
	errs := make(chan error, callers)
	for range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				lvl, err := st.Touch(ctx, "a", time.Minute)
				if err != nil || lvl != mcp.LevelWarning {
					errs <- fmt.Errorf("Touch = %q, %v; want %q", lvl, err, mcp.LevelWarning)
					return
				}
			}
		}()
	}
	wg.Wait()
	if n := cmds.Load(); n >= callers*each/2 {
		t.Errorf("%d commands for %d overlapping Touches of one session", n, callers*each)
	} else {
		t.Logf("%d commands for %d Touches", n, callers*each)
	}

	// Touches run until the session is deleted elsewhere, and on after:
	// one that began after the delete returned never finds it.
	var deleted atomic.Bool
	stop := make(chan struct{})
	for range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				after := deleted.Load()
				_, err := st.Touch(ctx, "a", time.Minute)
				switch {
				case after && err == nil:
					errs <- errors.New("a Touch that began after the session was deleted found it")
					return
				case err != nil && !errors.Is(err, mcphttp.ErrSessionNotFound):
					errs <- fmt.Errorf("Touch: %v", err)
					return
				}
			}
		}()
	}
	if _, err := st.Touch(ctx, "a", time.Minute); err != nil {
		t.Fatal(err)
	}
	if ok, err := other.Sessions().Delete(ctx, "a"); !ok || err != nil {
		t.Fatalf("Delete = %v, %v", ok, err)
	}
	deleted.Store(true)
	// The callers go on touching a while after the delete.
	for range 2 * callers {
		if _, err := st.Touch(ctx, "a", time.Minute); !errors.Is(err, mcphttp.ErrSessionNotFound) {
			t.Fatalf("Touch after the delete: %v", err)
		}
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// cmdCounter counts the commands sent, each of a pipeline too.
type cmdCounter struct{ n *atomic.Int64 }

func (cmdCounter) DialHook(next goredis.DialHook) goredis.DialHook { return next }
func (h cmdCounter) ProcessHook(next goredis.ProcessHook) goredis.ProcessHook {
	return func(ctx context.Context, cmd goredis.Cmder) error { h.n.Add(1); return next(ctx, cmd) }
}
func (h cmdCounter) ProcessPipelineHook(next goredis.ProcessPipelineHook) goredis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []goredis.Cmder) error {
		h.n.Add(int64(len(cmds)))
		return next(ctx, cmds)
	}
}

// tripCounter counts round trips: commands and pipelines.
type tripCounter struct{ n *atomic.Int64 }

func (tripCounter) DialHook(next goredis.DialHook) goredis.DialHook { return next }
func (h tripCounter) ProcessHook(next goredis.ProcessHook) goredis.ProcessHook {
	return func(ctx context.Context, cmd goredis.Cmder) error { h.n.Add(1); return next(ctx, cmd) }
}
func (h tripCounter) ProcessPipelineHook(next goredis.ProcessPipelineHook) goredis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []goredis.Cmder) error { h.n.Add(1); return next(ctx, cmds) }
}
