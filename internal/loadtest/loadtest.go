// Package loadtest drives many clients against a JSON-RPC 2.0 server for a
// while and checks every answer against its request: the load and fault
// tests of the socket and WebSocket transports (runtime/rpcnet,
// ext/websocket) share it. Handler is the service they serve.
package loadtest

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	goruntime "runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
)

// Duration is how long Run's clients keep calling in the load tests: short
// in a plain go test, 30 s in .ci/run (-load.duration 30s).
var Duration = flag.Duration("load.duration", 2*time.Second,
	"how long the transports' load tests call (at most 60s)")

// MaxDuration bounds -load.duration.
const MaxDuration = 60 * time.Second

// Handler serves what the load tests call:
//
//	add {"a": int, "b": int}   the sum
//	count [n, base]            streams base, base+1, … base+n-1
//	sleep [ms, tag]            tag, after ms milliseconds (or the context's end)
//	big [n]                    a JSON string of n bytes
func Handler() runtime.Handler {
	return runtime.HandlerFunc(serve)
}

func serve(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
	switch req.Method {
	case "add":
		var p struct{ A, B int64 }
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return nil, runtime.InvalidParams("%v", err)
		}
		return json.Marshal(p.A + p.B)
	case "count":
		var p [2]int64
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return nil, runtime.InvalidParams("%v", err)
		}
		return runtime.ServeStream(ctx, func(yield func(int64, error) bool) {
			for i := range p[0] {
				if !yield(p[1]+i, nil) {
					return
				}
			}
		})
	case "sleep":
		var p [2]json.RawMessage
		var ms int
		if err := json.Unmarshal(req.Params, &p); err != nil || json.Unmarshal(p[0], &ms) != nil {
			return nil, runtime.InvalidParams("want [ms, tag]")
		}
		select {
		case <-time.After(time.Duration(ms) * time.Millisecond):
			return p[1], nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	case "big":
		var p [1]int
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return nil, runtime.InvalidParams("%v", err)
		}
		return Big(p[0]), nil
	}
	return nil, runtime.ErrMethodNotFound(req.Method)
}

var bigs sync.Map // of int to json.RawMessage

// Big returns a JSON string of n bytes, quotes included (made once per n).
func Big(n int) json.RawMessage {
	if b, ok := bigs.Load(n); ok {
		return b.(json.RawMessage)
	}
	b, _ := bigs.LoadOrStore(n, json.RawMessage(`"`+strings.Repeat("x", max(n-2, 0))+`"`))
	return b.(json.RawMessage)
}

// Client is what Run drives: a *runtime.Redialer over any transport.
type Client interface {
	runtime.StreamCaller
	Batch(ctx context.Context, calls []*runtime.BatchCall) error
}

// Options configure Run.
type Options struct {
	// Callers is how many goroutines share each client's connection, their
	// calls in flight together (default 4).
	Callers int
	// Duration is how long they keep calling.
	Duration time.Duration
}

// Report is what Run saw.
type Report struct {
	Clients, Callers int
	// Calls counts every call made: plain calls, each call of a batch, and
	// each stream. Lost ones failed, mismatched ones were answered with what
	// another request asked for (or a stream with wrong items).
	Calls, Lost, Mismatched int64
	Streams, Batches        int64
	Elapsed                 time.Duration
	// PeakHeap is the most heap in use seen, sampled every 50 ms.
	PeakHeap uint64
	// Errors are the first few failures, for the test's log.
	Errors []string
}

func (r Report) String() string {
	return fmt.Sprintf("%d clients × %d callers, %v: %d calls (%.0f/s; %d streams, %d batches), %d lost, %d mismatched, peak heap in use %.1f MiB",
		r.Clients, r.Callers, r.Elapsed.Round(time.Millisecond), r.Calls, float64(r.Calls)/r.Elapsed.Seconds(),
		r.Streams, r.Batches, r.Lost, r.Mismatched, float64(r.PeakHeap)/(1<<20))
}

// Operands returns the unique operands of call i of caller g of client k, so
// that an answer to another request cannot pass the check.
func Operands(k, g, i int) (a, b int64) {
	return int64(k)<<40 | int64(g)<<32 | int64(i), int64(i)*7919 + int64(k)
}

// Run makes each client's callers call until opts.Duration has passed: one
// call in 16 a batch of two adds, one in 16 a stream of three items, the
// rest single adds, each with operands no other call has, checking every
// answer.
func Run(ctx context.Context, clients []Client, opts Options) Report {
	if opts.Callers <= 0 {
		opts.Callers = 4
	}
	r := Report{Clients: len(clients), Callers: opts.Callers}
	var calls, lost, mismatched, streams, batches atomic.Int64
	var mu sync.Mutex
	fail := func(kind *atomic.Int64, format string, args ...any) {
		kind.Add(1)
		mu.Lock()
		if len(r.Errors) < 10 {
			r.Errors = append(r.Errors, fmt.Sprintf(format, args...))
		}
		mu.Unlock()
	}
	stop := SamplePeakHeap()
	start := time.Now()
	deadline := start.Add(opts.Duration)
	var wg sync.WaitGroup
	for k, c := range clients {
		for g := range opts.Callers {
			wg.Go(func() {
				for i := 0; time.Now().Before(deadline) && ctx.Err() == nil; i++ {
					a, b := Operands(k, g, i)
					switch i % 16 {
					case 7:
						batches.Add(1)
						a2, b2 := a^1<<39, b+1
						var s1, s2 int64
						calls.Add(2)
						batch := []*runtime.BatchCall{
							{Method: "add", Params: map[string]int64{"a": a, "b": b}, Result: &s1},
							{Method: "add", Params: map[string]int64{"a": a2, "b": b2}, Result: &s2},
						}
						if err := c.Batch(ctx, batch); err != nil {
							fail(&lost, "client %d caller %d batch %d: %v", k, g, i, err)
							lost.Add(1) // both calls of the batch
							continue
						}
						for j, want := range []int64{a + b, a2 + b2} {
							got := []int64{s1, s2}[j]
							switch {
							case batch[j].Err != nil:
								fail(&lost, "client %d caller %d batch %d call %d: %v", k, g, i, j, batch[j].Err)
							case got != want:
								fail(&mismatched, "client %d caller %d batch %d call %d: %d, want %d", k, g, i, j, got, want)
							}
						}
					case 15:
						streams.Add(1)
						calls.Add(1)
						n := int64(0)
						var err error
						for v, e := range runtime.Stream[int64](ctx, c, "count", []int64{3, a}) {
							if e != nil {
								err = e
								break
							}
							if v != a+n {
								fail(&mismatched, "client %d caller %d stream %d item %d: %d, want %d", k, g, i, n, v, a+n)
								err = errMismatch
								break
							}
							n++
						}
						switch {
						case err == errMismatch:
						case err != nil:
							fail(&lost, "client %d caller %d stream %d: %v", k, g, i, err)
						case n != 3:
							fail(&mismatched, "client %d caller %d stream %d: %d items, want 3", k, g, i, n)
						}
					default:
						calls.Add(1)
						var sum int64
						if err := c.Call(ctx, "add", map[string]int64{"a": a, "b": b}, &sum); err != nil {
							fail(&lost, "client %d caller %d call %d: %v", k, g, i, err)
						} else if sum != a+b {
							fail(&mismatched, "client %d caller %d call %d: %d, want %d", k, g, i, sum, a+b)
						}
					}
				}
			})
		}
	}
	wg.Wait()
	r.Elapsed = time.Since(start)
	r.PeakHeap = stop()
	r.Calls, r.Lost, r.Mismatched = calls.Load(), lost.Load(), mismatched.Load()
	r.Streams, r.Batches = streams.Load(), batches.Load()
	return r
}

var errMismatch = fmt.Errorf("mismatched")

// SamplePeakHeap samples the heap in use every 50 ms until the returned
// function is called, which returns the most it saw.
func SamplePeakHeap() func() uint64 {
	done := make(chan struct{})
	peak := make(chan uint64)
	go func() {
		var m goruntime.MemStats
		var most uint64
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			goruntime.ReadMemStats(&m)
			most = max(most, m.HeapInuse)
			select {
			case <-t.C:
			case <-done:
				peak <- most
				return
			}
		}
	}()
	return func() uint64 {
		close(done)
		return <-peak
	}
}

// BudgetHeld is the most a runtime.OutputBudget of limit bytes holds for n
// connections that do not read and begin to hold one after another, not
// counting one message each: the limit times 1 + 1/2 + ... + 1/n (see
// runtime.OutputBudget).
func BudgetHeld(limit int64, n int) int64 {
	h := 0.0
	for k := 1; k <= n; k++ {
		h += 1 / float64(k)
	}
	return int64(h * float64(limit))
}
