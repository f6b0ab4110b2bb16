package taskbench

import (
	"context"
	"crypto/rand"
	"sync/atomic"
	"testing"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rpcgen/rpcgen/bench/mcpbench"
	"github.com/rpcgen/rpcgen/ext/redis"
	"github.com/rpcgen/rpcgen/ext/redis/redistest"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
	"github.com/rpcgen/rpcgen/runtime/mcp/tasks"
)

// roundTrips counts a go-redis client's round trips: its commands and
// pipelines (pub/sub aside, which has a connection of its own).
type roundTrips struct{ n atomic.Int64 }

func (h *roundTrips) DialHook(next goredis.DialHook) goredis.DialHook { return next }

func (h *roundTrips) ProcessHook(next goredis.ProcessHook) goredis.ProcessHook {
	return func(ctx context.Context, cmd goredis.Cmder) error { h.n.Add(1); return next(ctx, cmd) }
}

func (h *roundTrips) ProcessPipelineHook(next goredis.ProcessPipelineHook) goredis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []goredis.Cmder) error { h.n.Add(1); return next(ctx, cmds) }
}

// setupRedis is setup with the tasks on a redis-server it starts
// (ext/redis: the TaskStore, and the TaskExecutor whose workers, in this
// server, run them), and the counter of the server's round trips to it.
func setupRedis(b *testing.B) (*mcpclient.Client, *tasks.Manager, *roundTrips) {
	rs := redistest.Start(b)
	c, err := redis.Connect(rs.URL())
	if err != nil {
		b.Fatal(err)
	}
	rtt := &roundTrips{}
	c.AddHook(rtt)
	sh := redis.New(c, redis.Options{Prefix: "bench:" + rand.Text()[:8] + ":"})
	exec := sh.TaskExecutor(redis.ExecutorOptions{})
	cl, m := setupWith(b, &tasks.Options{Store: sh.Tasks(redis.TaskOptions{MaxTasks: 1 << 22, Executor: exec}), Executor: exec},
		func(m *tasks.Manager, srv *mcpserver.Server) { exec.Start(m, srv) })
	b.Cleanup(func() { exec.Close(); sh.Close(); c.Close() })
	return cl, m, rtt
}

// benchRedis is task-get and task-follow with the tasks on Redis; the
// tasks are not deleted (the store holds 4M). redis-rtt/op counts the
// server's round trips per task, the benchmark's own reads of the store
// (which wait for the task's end) taken off.
func benchRedis(b *testing.B, follow bool) {
	c, m, rtt := setupRedis(b)
	ctx := b.Context()
	// One task first, which loads the scripts (EVALSHA's NOSCRIPT
	// fallback costs one more round trip, once per Redis).
	h, _, err := c.StartTool(ctx, "task", result{0})
	if err != nil || h == nil {
		b.Fatalf("StartTool: %v, %v", h, err)
	}
	if err := ended(ctx, m.Store(), h.ID()); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	rtt0 := rtt.n.Load()
	var own int64
	cpu0 := mcpbench.CPUTime()
	n := 0
	for b.Loop() {
		n++
		h, _, err := c.StartTool(ctx, "task", result{n})
		if err != nil || h == nil {
			b.Fatalf("StartTool: %v, %v", h, err)
		}
		if !follow {
			gets, err := endedGets(ctx, m.Store(), h.ID())
			if err != nil {
				b.Fatal(err)
			}
			own += int64(gets)
			if t, err := h.Refresh(ctx); err != nil || t.Status != mcp.TaskCompleted {
				b.Fatalf("tasks/get: %+v, %v", t, err)
			}
		}
		var r result
		if err := h.Decode(ctx, &r); err != nil || r.N != n {
			b.Fatalf("result: %+v, %v", r, err)
		}
	}
	b.ReportMetric(float64(mcpbench.CPUTime()-cpu0)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(rtt.n.Load()-rtt0-own)/float64(b.N), "redis-rtt/op")
}

func BenchmarkTaskOverheadRedis(b *testing.B) {
	b.Run("task-get", func(b *testing.B) { benchRedis(b, false) })
	b.Run("task-follow", func(b *testing.B) { benchRedis(b, true) })
}
