package redis_test

import (
	"context"
	"crypto/rand"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/ext/redis"
	"github.com/rpcgen/rpcgen/ext/redis/redistest"
)

// Touch, a busy session's hot path, pushes the expiry of every key of the
// session back unless that was done less than a second (a 64th of the
// idle timeout) ago; then it only reads the log level, and the keys
// expire at most that much early.
func TestTouchSkipsARecentRefresh(t *testing.T) {
	rs := redistest.Start(t)
	prefix := "touch:" + rand.Text()[:8] + ":"
	sh, c := newShared(t, rs, redis.Options{Prefix: prefix})
	ctx := context.Background()
	st := sh.Sessions()
	const idle = 10 * time.Minute
	if err := st.Create(ctx, stored("a"), 10, idle); err != nil {
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
	touch := func() {
		if _, err := st.Touch(ctx, "a", idle); err != nil {
			t.Fatal(err)
		}
	}
	// Refreshed 300ms ago: left alone.
	set(idle - 300*time.Millisecond)
	touch()
	for _, k := range keys {
		if ttl := c.PTTL(ctx, k).Val(); ttl > idle-300*time.Millisecond {
			t.Errorf("%s: TTL %v after a Touch 300ms after the last, want it left", k, ttl)
		}
	}
	// Refreshed 5s ago: pushed back, every key.
	set(idle - 5*time.Second)
	touch()
	for _, k := range keys {
		if ttl := c.PTTL(ctx, k).Val(); ttl <= idle-time.Second {
			t.Errorf("%s: TTL %v after a Touch 5s after the last, want the idle timeout", k, ttl)
		}
	}
	// A session whose keys lost their TTL is refreshed, and a gone one is
	// not found.
	c.Persist(ctx, keys[0])
	touch()
	if ttl := c.PTTL(ctx, keys[0]).Val(); ttl <= idle-time.Second {
		t.Errorf("TTL %v after a Touch of a key without one", ttl)
	}
	c.Del(ctx, keys[0])
	if _, err := st.Touch(ctx, "a", idle); err == nil {
		t.Error("Touch of a deleted session: no error")
	}
}
