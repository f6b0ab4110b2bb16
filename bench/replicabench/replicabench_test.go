package replicabench

import (
	"context"
	"crypto/rand"
	"fmt"
	"testing"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rpcgen/rpcgen/bench/mcpbench"
	"github.com/rpcgen/rpcgen/ext/redis/redistest"
)

// impls are the columns: how many replicas, on Redis or not, behind the
// proxy or not.
var impls = []struct {
	name     string
	replicas int
	redis    bool
	proxy    bool
}{
	{"rpcgen", 1, false, false},
	{"rpcgen-proxy", 1, false, true},
	{"redis", 1, true, false},
	{"redis-3", 3, true, true},
}

var callers = []int{1, 16, 64}

// BenchmarkReplicas measures tools/call of add in one legacy session over
// Streamable HTTP, on each impl (see the package doc).
func BenchmarkReplicas(b *testing.B) {
	rs := redistest.Start(b)
	admin := goredis.NewClient(&goredis.Options{Addr: rs.Addr()})
	defer admin.Close()
	ctx := context.Background()
	for _, c := range callers {
		for _, im := range impls {
			b.Run(fmt.Sprintf("add/legacy/c=%d/impl=%s", c, im.name), func(b *testing.B) {
				url := ""
				if im.redis {
					url = rs.URL()
				}
				s, err := start(im.replicas, url, "bench:"+rand.Text()[:8]+":", im.proxy)
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				cl, err := mcpbench.DialHTTP(ctx, s.URL, mcpbench.EraLegacy, mcpbench.EncJSON)
				if err != nil {
					b.Fatal(err)
				}
				// One call before the counts start: on three replicas, each has
				// then seen the session (initialize, notifications/initialized,
				// this call).
				if err := mcpbench.Call(ctx, cl, "add", 0); err != nil {
					b.Fatal(err)
				}
				rtt0 := s.roundTrips.Load()
				cmds0, err := executed(ctx, admin)
				if err != nil {
					b.Fatal(err)
				}
				rcpu0, err := redisCPU(ctx, admin)
				if err != nil {
					b.Fatal(err)
				}
				cpu0 := mcpbench.CPUTime()
				mcpbench.RunCalls(b, cl, "add", c) // b.N calls and one untimed
				b.StopTimer()
				calls := float64(b.N + 1)
				b.ReportMetric(float64(mcpbench.CPUTime()-cpu0)/calls, "cpu-ns/op")
				if im.redis {
					cmds, err := executed(ctx, admin)
					if err != nil {
						b.Fatal(err)
					}
					rcpu, err := redisCPU(ctx, admin)
					if err != nil {
						b.Fatal(err)
					}
					b.ReportMetric(float64(rcpu-rcpu0)/calls, "redis-cpu-ns/op")
					b.ReportMetric(float64(s.roundTrips.Load()-rtt0)/calls, "redis-rtt/op")
					b.ReportMetric(float64(cmds-cmds0)/calls, "redis-cmds/op")
				}
				if err := cl.Close(); err != nil {
					b.Fatal(err)
				}
			})
		}
	}
}

// TestImpls checks every impl: calls from 16 callers in one session all
// answer right, and on three replicas each replica served some of them.
func TestImpls(t *testing.T) {
	rs := redistest.Start(t)
	ctx := context.Background()
	for _, im := range impls {
		t.Run(im.name, func(t *testing.T) {
			url := ""
			if im.redis {
				url = rs.URL()
			}
			s, err := start(im.replicas, url, "test:"+rand.Text()[:8]+":", im.proxy)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			cl, err := mcpbench.DialHTTP(ctx, s.URL, mcpbench.EraLegacy, mcpbench.EncJSON)
			if err != nil {
				t.Fatal(err)
			}
			errs := make(chan error, 16)
			for g := range 16 {
				go func() {
					for k := range 10 {
						if err := mcpbench.Call(ctx, cl, "add", g*10+k); err != nil {
							errs <- err
							return
						}
					}
					errs <- nil
				}()
			}
			for range 16 {
				if err := <-errs; err != nil {
					t.Fatal(err)
				}
			}
			if err := cl.Close(); err != nil {
				t.Fatal(err)
			}
			for i, n := range s.served {
				if n.Load() < 10 {
					t.Errorf("replica %d served %d requests of 160 calls", i, n.Load())
				}
			}
			if im.redis != (s.roundTrips.Load() > 0) {
				t.Errorf("on Redis: %v, round trips to Redis: %d", im.redis, s.roundTrips.Load())
			}
		})
	}
}
