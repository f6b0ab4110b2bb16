package mcpbench

import (
	"context"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// RunCalls makes b.N calls of tool through cl from n goroutines that share
// the count, so exactly n calls are in flight on the connection at a time
// (b.RunParallel would tie the number to GOMAXPROCS). Every answer is checked.
// One untimed call comes first, so that no peer's first timed call waits for
// a subprocess to start (a client that skips the handshake would otherwise
// pay for it). Package replicabench measures its replicas with it too.
func RunCalls(b *testing.B, cl Caller, tool string, n int) {
	ctx := context.Background()
	if err := Call(ctx, cl, tool, 0); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	if n == 1 {
		for i := range b.N {
			if err := Call(ctx, cl, tool, i); err != nil {
				b.Fatal(err)
			}
		}
		return
	}
	var (
		next     atomic.Int64
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
	)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1))
				if i > b.N {
					return
				}
				if err := Call(ctx, cl, tool, i); err != nil {
					errOnce.Do(func() { firstErr = err })
					next.Store(int64(b.N)) // stop the others
					return
				}
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		b.Fatal(firstErr)
	}
}

// CPUTime returns the CPU time (user and system) the process has used.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
