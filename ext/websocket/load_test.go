package websocket_test

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	wsrpc "github.com/rpcgen/rpcgen/ext/websocket"
	"github.com/rpcgen/rpcgen/internal/loadtest"
	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime"
)

// loadServer serves the load tests' service over WebSocket on a loopback
// listener with opts, and returns its URL and handler.
func loadServer(t *testing.T, opts *wsrpc.Options) (string, *wsrpc.Handler) {
	t.Helper()
	h := wsrpc.NewHandler(loadtest.Handler(), opts)
	srv := httptest.NewServer(h)
	t.Cleanup(func() { h.Close(); srv.Close() })
	return "ws" + strings.TrimPrefix(srv.URL, "http"), h
}

// smallBuffers makes connections whose system receive buffer is small, so
// that a client that does not read has the server hold what it sends.
var smallBuffers = &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
	nc, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err == nil {
		nc.(*net.TCPConn).SetReadBuffer(4 << 10)
	}
	return nc, err
}}}

func dialClients(t *testing.T, url string, n int) []loadtest.Client {
	t.Helper()
	clients := make([]loadtest.Client, n)
	for i := range clients {
		c, err := wsrpc.Dial(context.Background(), url, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		clients[i] = c
	}
	return clients
}

func loadDuration(t *testing.T) {
	t.Helper()
	if d := *loadtest.Duration; d <= 0 || d > loadtest.MaxDuration {
		t.Fatalf("-load.duration %v: want more than 0 and at most %v", d, loadtest.MaxDuration)
	}
}

// TestLoad runs 64 WebSocket clients, each a connection with 4 callers on
// it, against one server for -load.duration (2 s in a plain go test, 30 s in
// .ci/run): single calls, batches and streams, every answer checked against
// its request. No call may fail or get another's answer.
func TestLoad(t *testing.T) {
	loadDuration(t)
	rpctest.CheckLeaks(t)
	url, _ := loadServer(t, nil)
	r := loadtest.Run(context.Background(), dialClients(t, url, 64), loadtest.Options{Duration: *loadtest.Duration})
	t.Log(r)
	for _, e := range r.Errors {
		t.Error(e)
	}
	if r.Lost != 0 || r.Mismatched != 0 || r.Calls < 64 {
		t.Fatalf("%d calls, %d lost, %d mismatched", r.Calls, r.Lost, r.Mismatched)
	}
}

// TestShutdownUnderLoad shuts the handler down while 64 clients × 4
// callers call it (each call sleeping 1 to 50 ms), three times: each call in
// flight ends with its own answer or a clear error (refused as the server
// shuts down, not sent, or lost with the connection), none with another's
// answer, and none hangs.
func TestShutdownUnderLoad(t *testing.T) {
	for range 3 {
		url, h := loadServer(t, nil)
		r := loadtest.RunShutdown(dialClients(t, url, 64), 4, func() error {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			return h.Shutdown(ctx)
		})
		t.Log(r)
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
}

// TestLoadWithClientsThatDoNotRead runs TestLoad's 64 clients while 8
// WebSocket clients ask for 128 answers of 64 KiB each and never read, and 4
// ask for as many and read 4 KiB every 10 ms (the write timeout is minutes
// here, so that none is cut). The 64 are all served (0 lost, 0 mismatched);
// what the server holds for the others stays within what its output budget
// (2 MiB here) allows 12 connections joining one after another (3.1 times
// it) plus one answer per connection, and the heap in use within
// that plus what the load itself takes. Afterwards each slow client reads the
// rest at full speed: each answer is its result or the error saying it was
// not sent.
func TestLoadWithClientsThatDoNotRead(t *testing.T) {
	loadDuration(t)
	const hogs, slow, calls, size = 8, 4, 128, 64 << 10
	const budgetLimit = 2 << 20
	budget := runtime.NewOutputBudget(budgetLimit)
	url, _ := loadServer(t, &wsrpc.Options{Options: runtime.Options{TrustResults: true,
		MaxUnsent: 1 << 20, OutputBudget: budget}, WriteTimeout: 5 * time.Minute, PingInterval: -1})
	clients := dialClients(t, url, 64)
	base := heapInuse()
	fast := make(chan struct{})
	type tally struct {
		results, refused int
		err              error
	}
	tallies := make(chan tally, slow)
	for i := range hogs + slow {
		var dopts websocket.DialOptions
		if i >= slow {
			dopts.HTTPClient = smallBuffers // so that the system holds little for it
		}
		ws, _, err := websocket.Dial(context.Background(), url, &dopts)
		if err != nil {
			t.Fatal(err)
		}
		defer ws.CloseNow()
		ws.SetReadLimit(-1)
		for j := range calls {
			req := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"big","params":[%d]}`, j, size)
			if err := ws.Write(context.Background(), websocket.MessageText, []byte(req)); err != nil {
				t.Fatal(err)
			}
		}
		if i < slow {
			go func() {
				var tl tally
				defer func() { tallies <- tl }()
				buf := make([]byte, 4<<10)
				for range calls {
					_, r, err := ws.Reader(context.Background())
					if err != nil {
						tl.err = err
						return
					}
					var msg []byte
					for {
						select {
						case <-fast:
						case <-time.After(10 * time.Millisecond): // the client's pace
						}
						n, err := r.Read(buf)
						msg = append(msg, buf[:n]...)
						if err == io.EOF {
							break
						}
						if err != nil {
							tl.err = err
							return
						}
					}
					var resp struct {
						Result *string
						Error  *runtime.Error
					}
					switch {
					case json.Unmarshal(msg, &resp) != nil:
						tl.err = fmt.Errorf("not JSON: %.200s", msg)
						return
					case resp.Result != nil && len(*resp.Result) == size-2:
						tl.results++
					case resp.Error != nil && strings.Contains(resp.Error.Message, "answer not sent"):
						tl.refused++
					default:
						tl.err = fmt.Errorf("an answer: %.200s", msg)
						return
					}
				}
			}()
		}
	}
	var peakUsed atomic.Int64
	stopSampling, sampled := make(chan struct{}), make(chan struct{})
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
	t.Logf("%d clients that never read and %d that read slowly, %d answers of %d KiB each asked: at most %d KiB held for them (budget %d KiB), heap in use at most %d MiB over the %d MiB before",
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

// TestLoadWithClientsVanishingMidCall runs TestLoad's 64 clients while 8
// other WebSocket clients at a time connect, send a call that would run a
// minute, one asking for 256 KiB, a stream of a million items and a quick
// call, and vanish without a closing handshake: at once, once an answer has
// begun, or halfway through a request's frame; every other one with a TCP
// reset. The 64 are all served (0 lost, 0 mismatched), the heap stays
// bounded, and once the vanishing stops, every handler of the clients gone
// ends (the minute-long ones cancelled, at the latest after the grace
// period a connection gets to answer what its peer sent).
func TestLoadWithClientsVanishingMidCall(t *testing.T) {
	loadDuration(t)
	rpctest.CheckLeaks(t)
	h, running := loadtest.Counting(loadtest.Handler())
	ws := wsrpc.NewHandler(h, nil)
	srv := httptest.NewServer(ws)
	t.Cleanup(func() { ws.Close(); srv.Close() })
	url := "ws" + strings.TrimPrefix(srv.URL, "http")
	clients := dialClients(t, url, 64)
	base := heapInuse()
	ctx, stop := context.WithCancel(context.Background())
	type vanished struct {
		r   loadtest.VanishReport
		err error
	}
	done := make(chan vanished, 1)
	go func() {
		r, err := loadtest.Vanish(ctx, 8, func(ctx context.Context) (net.Conn, error) {
			return handshake(ctx, srv.Listener.Addr().String())
		}, maskedTextFrame)
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
	// 64 MiB for the load itself, and 32 MiB for the vanished clients'
	// connections, which end as soon as the peer is seen gone.
	if grown, limit := int64(r.PeakHeap)-base, int64(96<<20); grown > limit {
		t.Errorf("heap in use grew by %d MiB; want at most %d MiB", grown>>20, limit>>20)
	}
	deadline := time.Now().Add(30 * time.Second)
	for n := running.Load(); n != 0; n = running.Load() {
		if time.Now().After(deadline) {
			t.Fatalf("30 s after the vanishing stopped, %d handlers of clients gone still run", n)
		}
		time.Sleep(10 * time.Millisecond) // a polling interval: nothing signals a handler's end
	}
	for _, c := range clients[:4] {
		var sum int64
		if err := c.Call(context.Background(), "add", map[string]int64{"a": 2, "b": 3}, &sum); err != nil || sum != 5 {
			t.Fatalf("a client after the vanishing: %d, %v", sum, err)
		}
	}
}

// handshake opens a WebSocket connection to addr by hand, so that the test
// holds the raw TCP connection under it and can drop it without a closing
// handshake.
func handshake(ctx context.Context, addr string) (net.Conn, error) {
	nc, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(nc, "GET / HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", addr)
	br := bufio.NewReader(nc)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("handshake: %w", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSwitchingProtocols {
		nc.Close()
		return nil, fmt.Errorf("handshake: %s", resp.Status)
	}
	return &bufferedConn{nc.(*net.TCPConn), br}, nil
}

// bufferedConn reads through the reader that read the handshake's answer,
// which may hold the first frames.
type bufferedConn struct {
	*net.TCPConn
	r *bufio.Reader
}

func (c *bufferedConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// maskedTextFrame frames msg as a client's text frame (masked, with the
// mask key 0, which leaves the payload as it is).
func maskedTextFrame(msg []byte) []byte {
	f := []byte{0x81}
	switch n := len(msg); {
	case n < 126:
		f = append(f, 0x80|byte(n))
	case n < 1<<16:
		f = append(f, 0x80|126, byte(n>>8), byte(n))
	default:
		f = binary.BigEndian.AppendUint64(append(f, 0x80|127), uint64(n))
	}
	return append(append(f, 0, 0, 0, 0), msg...)
}
