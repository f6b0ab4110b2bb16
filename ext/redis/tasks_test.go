package redis_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rpcgen/rpcgen/ext/redis"
	"github.com/rpcgen/rpcgen/ext/redis/internal/redistest"
	"github.com/rpcgen/rpcgen/runtime/mcp/tasks"
	"github.com/rpcgen/rpcgen/runtime/mcp/tasks/taskstest"
)

// TestTaskStoreContract runs the contract of every tasks.Store against
// the one on Redis.
func TestTaskStoreContract(t *testing.T) {
	rs := redistest.Start(t)
	taskstest.Run(t, taskstest.Config{New: func(t *testing.T, max int) tasks.Store {
		sh, _ := newShared(t, rs, redis.Options{})
		return sh.Tasks(redis.TaskOptions{MaxTasks: max})
	}})
}

// roundTrips counts the commands and pipelines a client sends Redis: its
// round trips.
type roundTrips struct{ n atomic.Int64 }

func (h *roundTrips) DialHook(next goredis.DialHook) goredis.DialHook { return next }

func (h *roundTrips) ProcessHook(next goredis.ProcessHook) goredis.ProcessHook {
	return func(ctx context.Context, cmd goredis.Cmder) error {
		h.n.Add(1)
		return next(ctx, cmd)
	}
}

func (h *roundTrips) ProcessPipelineHook(next goredis.ProcessPipelineHook) goredis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []goredis.Cmder) error {
		h.n.Add(1)
		return next(ctx, cmds)
	}
}

// TestTaskExpiresOnRedis: a task's hash carries its time to live as a
// Redis key TTL, so Redis drops it on its own.
func TestTaskExpiresOnRedis(t *testing.T) {
	rs := redistest.Start(t)
	sh, c := newShared(t, rs, redis.Options{Prefix: "expiry:"})
	events := keyEvents(t, c)
	store := sh.Tasks(redis.TaskOptions{})
	ctx := context.Background()
	r := &tasks.Record{ID: "short", Status: "working", CreatedAt: time.Now(), TTL: 300 * time.Millisecond}
	if err := store.Create(ctx, r); err != nil {
		t.Fatal(err)
	}
	if ttl := c.PTTL(ctx, "expiry:task:{short}").Val(); ttl <= 0 || ttl > 300*time.Millisecond {
		t.Fatalf("the task's key has TTL %v, want (0, 300ms]", ttl)
	}
	waitGone(t, c, events, "expiry:task:{short}")
	if _, err := store.Get(ctx, "short"); err != tasks.ErrNotFound {
		t.Fatalf("Get of an expired task: %v, want ErrNotFound", err)
	}
	if n, err := store.Len(ctx); err != nil || n != 0 {
		t.Fatalf("Len = %d, %v after the only task expired; want 0", n, err)
	}
}
