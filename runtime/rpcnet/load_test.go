package rpcnet_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/internal/loadtest"
	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/rpcnet"
)

// loadDuration returns -load.duration, checked.
func loadDuration(t *testing.T) {
	t.Helper()
	if d := *loadtest.Duration; d <= 0 || d > loadtest.MaxDuration {
		t.Fatalf("-load.duration %v: want more than 0 and at most %v", d, loadtest.MaxDuration)
	}
}

// dialClients connects n clients to addr on network.
func dialClients(t *testing.T, network, addr string, n int) []loadtest.Client {
	t.Helper()
	clients := make([]loadtest.Client, n)
	for i := range clients {
		c, err := rpcnet.Dial(context.Background(), network, addr, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		clients[i] = c
	}
	return clients
}

// TestLoad runs 64 clients, each a connection with 4 callers on it, against
// one server over TCP and over a Unix socket for -load.duration (2 s in a
// plain go test, 30 s in .ci/run): single calls, batches and streams, every
// answer checked against its request. No call may fail or get another's
// answer, and once the clients close, the server's goroutines end.
func TestLoad(t *testing.T) {
	loadDuration(t)
	for _, network := range []string{"tcp", "unix"} {
		t.Run(network, func(t *testing.T) {
			rpctest.CheckLeaks(t)
			srv := &rpcnet.Server{Options: runtime.Options{Handler: loadtest.Handler()}}
			addr := server(t, network, srv)
			r := loadtest.Run(context.Background(), dialClients(t, network, addr, 64), loadtest.Options{Duration: *loadtest.Duration})
			t.Log(r)
			for _, e := range r.Errors {
				t.Error(e)
			}
			if r.Lost != 0 || r.Mismatched != 0 || r.Calls < 64 {
				t.Fatalf("%d calls, %d lost, %d mismatched", r.Calls, r.Lost, r.Mismatched)
			}
		})
	}
}

// TestShutdownUnderLoad shuts a server down while 64 clients × 4 callers
// call it (each call sleeping 1 to 50 ms, so that hundreds are in flight),
// three times over TCP and over a Unix socket: each call in flight ends with
// its own answer or a clear error (refused as the server shuts down, not
// sent, or lost with the connection: "it may or may not have run"), none
// with another's answer, and none hangs. Lost calls should be rare (a
// request still on its way when the connection closes, after 100 ms of
// silence): the log shows how many.
func TestShutdownUnderLoad(t *testing.T) {
	for _, network := range []string{"tcp", "unix"} {
		t.Run(network, func(t *testing.T) {
			for range 3 {
				srv := &rpcnet.Server{Options: runtime.Options{Handler: loadtest.Handler()}}
				addr := server(t, network, srv)
				clients := dialClients(t, network, addr, 64)
				r := loadtest.RunShutdown(clients, 4, func() error {
					ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
					defer cancel()
					return srv.Shutdown(ctx)
				})
				t.Log(r)
				checkShutdown(t, r)
			}
		})
	}
}

// checkShutdown fails t unless every call in r ended as it should.
func checkShutdown(t *testing.T, r loadtest.ShutdownReport) {
	t.Helper()
	for _, e := range r.Unclear {
		t.Error(e)
	}
	if r.Hung {
		t.Fatalf("a call hung 20 s after the shutdown:\n%s", r.Stacks)
	}
	if r.Mismatched != 0 || len(r.Unclear) != 0 {
		t.Fatalf("%d mismatched, %d unclear", r.Mismatched, len(r.Unclear))
	}
	if r.InFlight < int64(r.Clients*r.Callers)/2 || r.Answered == 0 {
		t.Fatalf("%d calls in flight at the shutdown, %d of them answered: the test did not shut down under load", r.InFlight, r.Answered)
	}
}

// slowReader reads from r 4 KiB every 10 ms until fast is closed.
type slowReader struct {
	r    io.Reader
	fast <-chan struct{}
}

func (s *slowReader) Read(p []byte) (int, error) {
	select {
	case <-s.fast:
		return s.r.Read(p)
	case <-time.After(10 * time.Millisecond): // the client's pace, not a synchronisation
	}
	return s.r.Read(p[:min(len(p), 4<<10)])
}

// checkBigAnswers reads n answers from f: each the result of size bytes, or
// the error saying it was not sent because the client did not read.
func checkBigAnswers(f runtime.Framer, n, size int) (results, refused int, err error) {
	for range n {
		msg, err := f.ReadMessage()
		if err != nil {
			return results, refused, fmt.Errorf("after %d results and %d errors: %w", results, refused, err)
		}
		var resp struct {
			Result *string
			Error  *runtime.Error
		}
		if err := json.Unmarshal(msg, &resp); err != nil {
			return results, refused, err
		}
		switch {
		case resp.Result != nil && len(*resp.Result) == size-2:
			results++
		case resp.Error != nil && resp.Error.Code == runtime.CodeServerError && strings.Contains(resp.Error.Message, "answer not sent"):
			refused++
		default:
			return results, refused, fmt.Errorf("an answer: %.200s", msg)
		}
	}
	return results, refused, nil
}

// TestLoadWithClientsThatDoNotRead runs TestLoad's 64 clients over TCP
// while 8 clients ask for 128 answers of 64 KiB each and never read, and 4
// ask for as many and read 400 KB/s (the write timeout is minutes here, so
// that none is cut). The 64 are all served (0 lost, 0 mismatched); what the
// server holds for the others stays within what its output budget (2 MiB
// here) allows 12 connections joining one after another (3.1 times it) plus
// one answer per connection, and the heap in use within that plus
// what the load itself takes. Afterwards each slow client reads the rest of
// its answers at full speed: each is its result or the error saying it was
// not sent.
func TestLoadWithClientsThatDoNotRead(t *testing.T) {
	loadDuration(t)
	const hogs, slow, calls, size = 8, 4, 128, 64 << 10
	const budgetLimit = 2 << 20
	budget := runtime.NewOutputBudget(budgetLimit)
	srv := &rpcnet.Server{Options: runtime.Options{Handler: loadtest.Handler(), TrustResults: true,
		MaxUnsent: 1 << 20, OutputBudget: budget}, WriteTimeout: 5 * time.Minute}
	addr := server(t, "tcp", srv)
	clients := dialClients(t, "tcp", addr, 64)
	base := heapInuse()

	var requests strings.Builder
	for i := range calls {
		fmt.Fprintf(&requests, `{"jsonrpc":"2.0","id":%d,"method":"big","params":[%d]}`+"\n", i, size)
	}
	fast := make(chan struct{})
	type tally struct {
		results, refused int
		err              error
	}
	tallies := make(chan tally, slow)
	for i := range hogs + slow {
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		if i >= slow {
			nc.(*net.TCPConn).SetReadBuffer(4 << 10) // so that the system holds little for it
		}
		if _, err := io.WriteString(nc, requests.String()); err != nil {
			t.Fatal(err)
		}
		if i < slow {
			go func() { // at its pace until the load ends, then at full speed
				f := runtime.NewLineFramer(&slowReader{nc, fast}, io.Discard, 1<<20)
				results, refused, err := checkBigAnswers(f, calls, size)
				tallies <- tally{results, refused, err}
			}()
		}
	}
	var peakUsed atomic.Int64
	stopSampling := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			peakUsed.Store(max(peakUsed.Load(), budget.Used()))
			select {
			case <-stopSampling:
				return
			case <-time.After(20 * time.Millisecond): // a sampling interval
			}
		}
	}()
	r := loadtest.Run(context.Background(), clients, loadtest.Options{Duration: *loadtest.Duration})
	close(stopSampling)
	<-sampled
	grown := int64(r.PeakHeap) - base
	t.Log(r)
	t.Logf("%d clients that never read and %d that read 400 KB/s, %d answers of %d KiB each asked: at most %d KiB held for them (budget %d KiB), heap in use at most %d MiB over the %d MiB before",
		hogs, slow, calls, size>>10, peakUsed.Load()>>10, budgetLimit>>10, grown>>20, base>>20)
	for _, e := range r.Errors {
		t.Error(e)
	}
	if r.Lost != 0 || r.Mismatched != 0 || r.Calls < 64 {
		t.Fatalf("%d calls, %d lost, %d mismatched", r.Calls, r.Lost, r.Mismatched)
	}
	// What the budget may hold for connections joining one after another
	// (loadtest.BudgetHeld), one answer per connection that does not read, the
	// load's own small messages, and the errors that replace the answers
	// refused (which always go, and are small).
	if limit := loadtest.BudgetHeld(budgetLimit, hogs+slow) + int64((hogs+slow)*(size+1024)+64*4<<10+(hogs+slow)*calls*512); peakUsed.Load() > limit {
		t.Errorf("at most %d bytes held for clients that do not read; want at most %d", peakUsed.Load(), limit)
	}
	if limit := loadtest.BudgetHeld(budgetLimit, hogs+slow) + int64(2*(hogs+slow)*size+64<<20); grown > limit {
		t.Errorf("heap in use grew by %d bytes; want at most %d", grown, limit)
	}
	close(fast)
	for range slow {
		tl := <-tallies
		if tl.err != nil {
			t.Fatalf("a slow client: %v", tl.err)
		}
		t.Logf("a slow client: %d results, %d errors", tl.results, tl.refused)
	}
}

// TestLoadWithClientsVanishingMidCall runs TestLoad's 64 clients over TCP
// and over a Unix socket while 8 other clients at a time connect, send a
// call that would run a minute, one asking for 256 KiB, a stream of a
// million items and a quick call, and vanish: at once, once an answer has
// begun, or halfway through a request; over TCP every other one with a
// reset. The 64 are all served (0 lost, 0 mismatched), the heap stays
// bounded, and once the vanishing stops, every handler of the clients gone
// ends (the minute-long ones cancelled, at the latest after the grace
// period a connection gets to answer what its peer sent) and the server
// serves the 64 connections left.
func TestLoadWithClientsVanishingMidCall(t *testing.T) {
	loadDuration(t)
	for _, network := range []string{"tcp", "unix"} {
		t.Run(network, func(t *testing.T) {
			rpctest.CheckLeaks(t)
			h, running := loadtest.Counting(loadtest.Handler())
			srv := &rpcnet.Server{Options: runtime.Options{Handler: h}}
			addr := server(t, network, srv)
			clients := dialClients(t, network, addr, 64)
			base := heapInuse()
			ctx, stop := context.WithCancel(context.Background())
			type vanished struct {
				r   loadtest.VanishReport
				err error
			}
			done := make(chan vanished, 1)
			go func() {
				r, err := loadtest.Vanish(ctx, 8, func(ctx context.Context) (net.Conn, error) {
					return (&net.Dialer{}).DialContext(ctx, network, addr)
				}, func(msg []byte) []byte { return append(msg, '\n') })
				done <- vanished{r, err}
			}()
			r := loadtest.Run(context.Background(), clients, loadtest.Options{Duration: *loadtest.Duration})
			stop()
			v := <-done
			t.Log(r)
			t.Log(v.r)
			t.Logf("heap in use at most %d MiB over the %d MiB before", (int64(r.PeakHeap)-base)>>20, base>>20)
			for _, e := range r.Errors {
				t.Error(e)
			}
			if v.err != nil {
				t.Fatalf("the vanishing clients: %v", v.err)
			}
			if r.Lost != 0 || r.Mismatched != 0 || r.Calls < 64 {
				t.Fatalf("%d calls, %d lost, %d mismatched", r.Calls, r.Lost, r.Mismatched)
			}
			if v.r.Connections < 8 || v.r.MidAnswer == 0 || v.r.MidMessage == 0 {
				t.Fatalf("%v: too few to test anything", v.r)
			}
			// 64 MiB for the load itself, and 32 MiB for the vanished
			// clients' connections, which end as soon as an answer cannot
			// be written. (When each waited out its grace period, over a
			// Unix socket in 30 s they held 180 MiB.)
			if grown, limit := int64(r.PeakHeap)-base, int64(96<<20); grown > limit {
				t.Errorf("heap in use grew by %d MiB; want at most %d MiB", grown>>20, limit>>20)
			}
			waitFor(t, 30*time.Second, "the vanished clients' handlers end and their connections close", func() string {
				if n, c := running.Load(), srv.Conns(); n != 0 || c != 64 {
					return fmt.Sprintf("%d handlers running, %d connections served", n, c)
				}
				return ""
			})
		})
	}
}

// waitFor checks cond until it returns "" or patience runs out, and then
// fails t with what cond said last. It polls: what it waits for (a
// connection's grace period, a cancelled handler's return) signals nothing.
func waitFor(t *testing.T, patience time.Duration, what string, cond func() string) {
	t.Helper()
	deadline := time.Now().Add(patience)
	for {
		state := cond()
		if state == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v, still waiting for %s: %s", patience, what, state)
		}
		time.Sleep(10 * time.Millisecond) // a polling interval
	}
}
