package redis_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rpcgen/rpcgen/ext/redis"
	"github.com/rpcgen/rpcgen/ext/redis/redistest"
)

// A notification as replicas store them for a session: a log message of
// a short text (131 bytes).
const sampleEvent = `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"notes","data":{"added":"1234","by":"replica-a"}}}`

// usedMemory returns Redis's used_memory (INFO memory).
func usedMemory(b *testing.B, c *goredis.Client) int64 {
	b.Helper()
	info, err := c.Info(context.Background(), "memory").Result()
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(line, "used_memory:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	b.Fatal("no used_memory in INFO memory")
	return 0
}

// BenchmarkStoredMemory measures what Redis keeps for legacy sessions and
// their events: 200 sessions (each a hash and an entry in the session
// set), then 1500 events of sampleEvent each, of which a session keeps
// about Options.MaxEvents (1000 by default; the stream is trimmed with
// MAXLEN ~, a whole node of 100 entries at a time, so up to 100 more
// stay). It reports used_memory's growth per session and per event kept
// (bytes), the events kept, and MEMORY USAGE of one session's events. Run
// it with -benchtime 1x: each iteration measures anew on an empty Redis.
//
//	go test -run '^$' -bench BenchmarkStoredMemory -benchtime 1x ./ext/redis
func BenchmarkStoredMemory(b *testing.B) {
	const sessions, events = 200, 1500
	ctx := context.Background()
	for range b.N {
		b.StopTimer()
		rs := redistest.Start(b)
		c, err := redis.Connect(rs.URL())
		if err != nil {
			b.Fatal(err)
		}
		sh := redis.New(c, redis.Options{Prefix: "mem:"})
		base := usedMemory(b, c)
		b.StartTimer()
		for i := range sessions {
			id := fmt.Sprintf("%026d", i) // as long as a real session id
			if err := sh.Sessions().Create(ctx, stored(id), 1<<20, 10*time.Minute); err != nil {
				b.Fatal(err)
			}
		}
		afterSessions := usedMemory(b, c)
		for i := range sessions {
			id := fmt.Sprintf("%026d", i)
			for range events {
				if _, err := sh.Events().Append(ctx, id, "0", []byte(sampleEvent)); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.StopTimer()
		afterEvents := usedMemory(b, c)
		one, err := c.MemoryUsage(ctx, "mem:{"+fmt.Sprintf("%026d", 0)+"}:e", 0).Result()
		if err != nil {
			b.Fatal(err)
		}
		kept, _ := c.XLen(ctx, "mem:{"+fmt.Sprintf("%026d", 0)+"}:e").Result()
		b.ReportMetric(float64(afterSessions-base)/sessions, "B/session")
		b.ReportMetric(float64(afterEvents-afterSessions)/float64(sessions*kept), "B/event")
		b.ReportMetric(float64(one), "B/events-key")
		b.ReportMetric(float64(kept), "events-kept")
		sh.Close()
		c.Close()
		rs.Stop()
		b.StartTimer()
	}
}

// BenchmarkAppendPersistence measures storing one event (sampleEvent) for
// one of 64 sessions, from parallel goroutines (-cpu sets how many), with
// Redis keeping its data in memory only, in an append-only file synced
// every second (appendfsync everysec), or synced at every write (always):
// what persistence costs the path of every notification.
//
//	go test -run '^$' -bench BenchmarkAppendPersistence -benchtime 3s -count 6 ./ext/redis
func BenchmarkAppendPersistence(b *testing.B) {
	for _, mode := range []struct {
		name string
		cfg  redistest.Config
	}{
		{"memory", redistest.Config{}},
		{"aof-everysec", redistest.Config{AppendOnly: true, Fsync: "everysec"}},
		{"aof-always", redistest.Config{AppendOnly: true, Fsync: "always"}},
	} {
		b.Run("persist="+mode.name, func(b *testing.B) {
			rs := redistest.StartWith(b, mode.cfg)
			c, err := redis.Connect(rs.URL())
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			sh := redis.New(c, redis.Options{Prefix: "bench:" + rand.Text()[:8] + ":"})
			defer sh.Close()
			ctx := context.Background()
			const sessions = 64
			for i := range sessions {
				if err := sh.Sessions().Create(ctx, stored(strconv.Itoa(i)), 1<<20, 10*time.Minute); err != nil {
					b.Fatal(err)
				}
			}
			var next atomic.Int64
			b.SetParallelism(8) // 8 goroutines per -cpu
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					id := strconv.Itoa(int(next.Add(1) % sessions))
					if _, err := sh.Events().Append(ctx, id, "0", []byte(sampleEvent)); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}
