package loadtest

import (
	"context"
	"errors"
	"fmt"
	goruntime "runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
)

// ShutdownReport is what RunShutdown saw. A call counts as in flight when it
// began before the shutdown did and ended after.
type ShutdownReport struct {
	Clients, Callers int
	// Before counts calls answered before the shutdown began.
	Before int64
	// InFlight counts the calls in flight, and how each ended: answered
	// (with its own answer), refused by a server shutting down (an error
	// response saying so), not sent (runtime.ErrNotSent: no connection), or
	// lost with the connection (runtime.ErrConnectionLost).
	InFlight, Answered, Refused, NotSent, Lost int64
	// After counts calls begun after the shutdown began, each refused or
	// not sent.
	After int64
	// Mismatched counts answers that were not their request's; Unclear
	// lists errors of no kind above.
	Mismatched int64
	Unclear    []string
	// ShutdownTook is how long the server's shutdown took; Hung is set when
	// a caller still waited for a call 20 s after it returned.
	ShutdownTook time.Duration
	Hung         bool
	Stacks       string // of every goroutine, when one hung
}

func (r ShutdownReport) String() string {
	return fmt.Sprintf("%d clients × %d callers: %d calls answered before the shutdown; of %d in flight, %d answered, %d refused (shutting down), %d not sent, %d lost; %d begun after, refused or not sent; %d mismatched, %d unclear, hung: %v; shutdown took %v",
		r.Clients, r.Callers, r.Before, r.InFlight, r.Answered, r.Refused, r.NotSent, r.Lost, r.After,
		r.Mismatched, len(r.Unclear), r.Hung, r.ShutdownTook.Round(time.Millisecond))
}

// RunShutdown makes each client's callers call "sleep" (1 to 50 ms, each
// with a tag of its own) one after another, and once every caller has been
// answered at least once, calls shutdown with calls in flight. Each caller
// stops at its first error. It reports how each call ended, and whether any
// caller hung.
func RunShutdown(clients []Client, callers int, shutdown func() error) ShutdownReport {
	r := ShutdownReport{Clients: len(clients), Callers: callers}
	var shutting atomic.Bool
	var before, inflight, answered, refused, notSent, lost, after, mismatched atomic.Int64
	var mu sync.Mutex
	var warm sync.WaitGroup
	warm.Add(len(clients) * callers)
	done := make(chan struct{})
	var running sync.WaitGroup
	for k, c := range clients {
		for g := range callers {
			running.Go(func() {
				first := true
				for i := 0; ; i++ {
					tag := fmt.Sprintf("%d-%d-%d", k, g, i)
					begunBefore := !shutting.Load()
					var got string
					err := c.Call(context.Background(), "sleep", []any{(k*7+g*3+i)%50 + 1, tag}, &got)
					endedAfter := shutting.Load()
					if first {
						first = false
						warm.Done()
					}
					switch {
					case err == nil && got != tag:
						mismatched.Add(1)
						continue
					case err == nil && begunBefore && endedAfter:
						inflight.Add(1)
						answered.Add(1)
						continue
					case err == nil:
						before.Add(1)
						continue
					}
					var re *runtime.Error
					var kind *atomic.Int64
					switch {
					case errors.As(err, &re) && strings.Contains(re.Message, "shutting down"):
						kind = &refused
					case errors.Is(err, runtime.ErrNotSent):
						kind = &notSent
					case errors.Is(err, runtime.ErrConnectionLost):
						kind = &lost
					}
					switch {
					case kind == nil || !endedAfter:
						mu.Lock()
						r.Unclear = append(r.Unclear, fmt.Sprintf("client %d caller %d call %d: %v", k, g, i, err))
						mu.Unlock()
					case begunBefore:
						inflight.Add(1)
						kind.Add(1)
					default:
						after.Add(1)
					}
					return
				}
			})
		}
	}
	go func() { running.Wait(); close(done) }()
	warm.Wait()
	shutting.Store(true)
	start := time.Now()
	if err := shutdown(); err != nil {
		r.Unclear = append(r.Unclear, fmt.Sprintf("shutdown: %v", err))
	}
	r.ShutdownTook = time.Since(start)
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		// A caller still in its call 20 s after the server shut down waits
		// for an answer that will not come.
		buf := make([]byte, 4<<20)
		r.Stacks = string(buf[:goruntime.Stack(buf, true)])
		r.Hung = true
	}
	r.Before, r.InFlight, r.Answered = before.Load(), inflight.Load(), answered.Load()
	r.Refused, r.NotSent, r.Lost, r.After = refused.Load(), notSent.Load(), lost.Load(), after.Load()
	r.Mismatched = mismatched.Load()
	return r
}
