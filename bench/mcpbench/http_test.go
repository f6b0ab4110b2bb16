package mcpbench

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	goruntime "runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var encodings = []string{EncJSON, EncSSE}

// BenchmarkToolsCallHTTP measures one tools/call round trip over Streamable
// HTTP on a 127.0.0.1 listener, client and server together, for every tool,
// response encoding, era, number of concurrent callers and peer. Every peer
// is called through the same client (httpCaller), so the columns differ only
// by their servers; impl=reference is the hand-written net/http server
// (reference_http.go). cpu-ns/op is the CPU time (user and system) the
// process spent per call, client and server together: unlike ns/op it does
// not grow when other processes take the cores.
func BenchmarkToolsCallHTTP(b *testing.B) {
	for _, tool := range Tools {
		for _, enc := range encodings {
			for _, era := range eras {
				for _, c := range concurrency {
					prefix := fmt.Sprintf("%s/%s/%s/c=%d/", tool, enc, era, c)
					for _, p := range HTTPPeers {
						b.Run(prefix+"impl="+p.Name, func(b *testing.B) {
							cl, err := p.ConnectHTTP(context.Background(), era, enc)
							if err != nil {
								b.Fatal(err)
							}
							cpu0 := CPUTime()
							RunCalls(b, cl, tool, c)
							b.StopTimer()
							b.ReportMetric(float64(CPUTime()-cpu0)/float64(b.N), "cpu-ns/op")
							if err := cl.Close(); err != nil {
								b.Fatal(err)
							}
						})
					}
				}
			}
		}
	}
}

// TestHTTPPeers checks every Streamable HTTP peer in every era with both
// response encodings: both tools answer correctly with the expected media
// type, one call at a time and 16 at once, and the session ends cleanly.
func TestHTTPPeers(t *testing.T) {
	for _, p := range HTTPPeers {
		for _, era := range eras {
			for _, enc := range encodings {
				t.Run(p.Name+"/"+era+"/"+enc, func(t *testing.T) {
					cl, err := p.ConnectHTTP(context.Background(), era, enc)
					if err != nil {
						t.Fatal(err)
					}
					checkCalls(t, cl)
					if err := cl.Close(); err != nil {
						t.Errorf("close: %v", err)
					}
				})
			}
		}
	}
}

// idleSessions is how many legacy sessions BenchmarkIdleSessions opens.
const idleSessions = 1000

// BenchmarkIdleSessions measures what an idle legacy Streamable HTTP session
// costs a server: each operation starts a server, opens idleSessions sessions
// (initialize, notifications/initialized) from 8 clients, closes every
// connection, and compares the live heap (after two runtime.GC) and the
// number of goroutines with their values before the first session, once no
// connection is open. The metrics are the medians over the operations:
// heap-B/session and goroutines/session (issue 6's target: at most 1 KiB and
// none). A warm-up session, opened and deleted before the baseline, keeps
// first-use allocations out of the count; the client keeps the session ids
// in memory allocated before the baseline.
func BenchmarkIdleSessions(b *testing.B) {
	for _, p := range HTTPPeers {
		b.Run(fmt.Sprintf("legacy/sessions=%d/impl=%s", idleSessions, p.Name), func(b *testing.B) {
			var heap, gor []float64
			for range b.N {
				h, g, err := measureIdleSessions(p, idleSessions)
				if err != nil {
					b.Fatal(err)
				}
				heap, gor = append(heap, h), append(gor, g)
			}
			b.ReportMetric(medianOf(heap), "heap-B/session")
			b.ReportMetric(medianOf(gor), "goroutines/session")
		})
	}
}

func medianOf(vs []float64) float64 {
	s := slices.Clone(vs)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else {
		return (s[n/2-1] + s[n/2]) / 2
	}
}

// sessionID holds one session id without allocating.
type sessionID struct {
	n int
	b [128]byte
}

func (s *sessionID) String() string { return string(s.b[:s.n]) }

// measureIdleSessions opens n idle legacy sessions on a fresh server of peer
// p and returns the live heap bytes and goroutines each one adds.
func measureIdleSessions(p *HTTPPeer, n int) (heapPerSession, goroutinesPerSession float64, err error) {
	h, release := p.handler(EraLegacy, EncJSON)
	s, err := serveHTTP(h, release)
	if err != nil {
		return 0, 0, err
	}
	defer s.Close()
	tr := newHTTPTransport()
	hc := &http.Client{Transport: tr}
	defer tr.CloseIdleConnections()
	ctx := context.Background()
	ids := make([]sessionID, n)

	// Warm up: one session opened and ended.
	sid, err := httpInitialize(ctx, hc, s.URL)
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %w", p.Name, err)
	}
	if err := httpDelete(ctx, hc, s.URL, sid); err != nil {
		return 0, 0, fmt.Errorf("%s: %w", p.Name, err)
	}
	sid = ""
	tr.CloseIdleConnections()
	g0, err := quiesce(s)
	if err != nil {
		return 0, 0, err
	}
	heap0 := liveHeap()

	var (
		next     atomic.Int64
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
	)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				sid, err := httpInitialize(ctx, hc, s.URL)
				if err == nil && len(sid) > len(ids[i].b) {
					err = fmt.Errorf("session id of %d bytes", len(sid))
				}
				if err != nil {
					errOnce.Do(func() { firstErr = fmt.Errorf("%s: %w", p.Name, err) })
					next.Store(int64(n))
					return
				}
				ids[i].n = copy(ids[i].b[:], sid)
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return 0, 0, firstErr
	}
	tr.CloseIdleConnections()
	g1, err := quiesce(s)
	if err != nil {
		return 0, 0, err
	}
	heap1 := liveHeap()
	heapPerSession = (float64(heap1) - float64(heap0)) / float64(n)
	goroutinesPerSession = float64(g1-g0) / float64(n)

	// End the sessions, so that a peer whose sessions outlive its server
	// does not carry them into the next measurement.
	for i := range ids {
		if err := httpDelete(ctx, hc, s.URL, ids[i].String()); err != nil {
			return 0, 0, err
		}
	}
	goruntime.KeepAlive(ids)
	return heapPerSession, goroutinesPerSession, nil
}

// liveHeap returns the bytes of live heap objects after two collections.
func liveHeap() uint64 {
	goruntime.GC()
	goruntime.GC()
	var ms goruntime.MemStats
	goruntime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// quiesce waits until s has no open connection and the number of goroutines
// has stopped changing (the same in 5 samples 10 ms apart), and returns it.
func quiesce(s *httpServer) (int, error) {
	deadline := time.Now().Add(10 * time.Second)
	timeout := time.NewTimer(10 * time.Second)
	defer timeout.Stop()
	for {
		changed := s.connsChanged() // before the count, so no change is missed
		if s.conns.Load() == 0 {
			break
		}
		select {
		case <-changed:
		case <-timeout.C:
			return 0, errors.New("connections still open after 10s")
		}
	}
	// This sampling stays: it measures when the goroutine count settles
	// (the peers' own goroutines end on no signal of theirs), and the
	// figure it returns is a measurement, not a verdict.
	last, same := goruntime.NumGoroutine(), 0
	for same < 5 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
		n := goruntime.NumGoroutine()
		if n == last {
			same++
		} else {
			last, same = n, 0
		}
	}
	return last, nil
}
