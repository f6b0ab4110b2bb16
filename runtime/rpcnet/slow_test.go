package rpcnet_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/rpcnet"
)

// pipeServer serves srv on an in-memory listener, in a synctest bubble, and
// returns its dialer; the server is closed when the bubble's test ends.
func pipeServer(t *testing.T, srv *rpcnet.Server) rpctest.PipeDialer {
	t.Helper()
	ln, dial := rpctest.NewPipeListener()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	t.Cleanup(func() {
		srv.Close()
		if err := <-served; !errors.Is(err, rpcnet.ErrServerClosed) {
			t.Errorf("Serve: %v", err)
		}
	})
	return dial
}

// framed frames msg as framing does on the wire.
func framed(framing runtime.Framing, msg string) string {
	if framing == runtime.ContentLength {
		return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(msg), msg)
	}
	return msg + "\n"
}

// call dials the server, calls echo and returns the answer's error.
func call(dial rpctest.PipeDialer, framing runtime.Framing) error {
	c, err := rpcnet.Dial(context.Background(), "pipe", "", &rpcnet.DialOptions{Dialer: dial,
		Options: runtime.Options{Framing: framing}, Redial: runtime.RedialOptions{Retry: runtime.RetryPolicy{Attempts: 1}}})
	if err != nil {
		return err
	}
	defer c.Close()
	var got []int
	if err := c.Call(context.Background(), "echo", []int{7}, &got); err != nil {
		return err
	}
	if len(got) != 1 || got[0] != 7 {
		return fmt.Errorf("echo answered %v", got)
	}
	return nil
}

// refused dials the server and reports whether the connection was refused:
// its first message is the busy error, and then it is closed.
func refused(t *testing.T, dial rpctest.PipeDialer, framing runtime.Framing) bool {
	t.Helper()
	nc, err := dial(context.Background(), "pipe", "")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	f := runtime.NewFramer(framing, nc, nc, 0)
	msg, err := f.ReadMessage()
	if err != nil || !strings.Contains(string(msg), "server busy") {
		return false
	}
	_, err = f.ReadMessage()
	return err != nil
}

// TestTrickledMessagesDoNotHoldSlots fills every slot of a server with
// connections that send a message one byte every 5 s (in a synctest bubble,
// so the minutes pass at once): a new client is refused while they hold
// them, and each is disconnected 30 s after its first byte, with the reason
// as its Err, so that the new client is then served. Before MessageTimeout
// each byte kept its connection alive for ever.
func TestTrickledMessagesDoNotHoldSlots(t *testing.T) {
	for _, framing := range []runtime.Framing{runtime.NewlineDelimited, runtime.ContentLength} {
		t.Run(framing.String(), func(t *testing.T) {
			rpctest.Synctest(t, func(t *testing.T) {
				const slots = rpcnet.DefaultMaxConns
				ended := make(chan error, slots)
				srv := &rpcnet.Server{Options: runtime.Options{Handler: newService(), Framing: framing},
					OnConnect: func(c *runtime.Conn) {
						go func() { <-c.Done(); ended <- c.Err() }()
					}}
				dial := pipeServer(t, srv)
				msg := framed(framing, `{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]}`)
				start := time.Now()
				cut := make(chan time.Duration, slots)
				var wg sync.WaitGroup
				for range slots {
					nc, err := dial(context.Background(), "pipe", "")
					if err != nil {
						t.Fatal(err)
					}
					wg.Go(func() {
						defer nc.Close()
						for i := 0; ; i = (i + 1) % len(msg) {
							if _, err := nc.Write([]byte{msg[i]}); err != nil {
								cut <- time.Since(start)
								return
							}
							time.Sleep(5 * time.Second)
						}
					})
				}
				synctest.Wait()
				if n := srv.Conns(); n != slots {
					t.Fatalf("%d connections served, want %d", n, slots)
				}
				if !refused(t, dial, framing) {
					t.Fatal("a new client while every slot trickles is not refused as busy")
				}
				time.Sleep(rpcnet.DefaultMessageTimeout + time.Second)
				synctest.Wait()
				if err := call(dial, framing); err != nil {
					t.Fatalf("a new client once the trickling connections were cut: %v", err)
				}
				for range slots {
					if d := <-cut; d < rpcnet.DefaultMessageTimeout || d > rpcnet.DefaultMessageTimeout+5*time.Second {
						t.Fatalf("a trickling connection was cut after %v, want %v", d, rpcnet.DefaultMessageTimeout)
					}
					if err := <-ended; err == nil || !strings.Contains(err.Error(), "a message took over 30s to arrive") {
						t.Fatalf("a trickling connection ended with %v", err)
					}
				}
				wg.Wait()
			})
		})
	}
}

// TestMessageTimeoutCountsOnlyMessages: time between messages, and white
// space before one, does not count; a message that arrives in pieces within
// the timeout is served; one that stops halfway is cut at the timeout.
func TestMessageTimeoutCountsOnlyMessages(t *testing.T) {
	rpctest.Synctest(t, func(t *testing.T) {
		conns := make(chan *runtime.Conn, 1)
		dial := pipeServer(t, &rpcnet.Server{Options: runtime.Options{Handler: newService()}, MessageTimeout: 10 * time.Second,
			OnConnect: func(c *runtime.Conn) { conns <- c }})
		nc, err := dial(context.Background(), "pipe", "")
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		sc := <-conns
		f := runtime.NewLineFramer(nc, nc, 0)
		send := func(s string) {
			t.Helper()
			if _, err := io.WriteString(nc, s); err != nil {
				t.Fatal(err)
			}
		}
		// answers reads the answers to ids, in any order (requests run
		// concurrently).
		answers := func(ids ...int) {
			t.Helper()
			want := map[string]bool{}
			for _, id := range ids {
				want[fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":[%d]}`, id, id)] = true
			}
			for range ids {
				got, err := f.ReadMessage()
				if err != nil || !want[string(got)] {
					t.Fatalf("answers %v: %s, %v", ids, got, err)
				}
				delete(want, string(got))
			}
		}
		send(`{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]}` + "\n")
		answers(1)
		time.Sleep(time.Hour) // idle between messages
		send("\n\r\n  ")
		time.Sleep(time.Hour) // white space starts no message
		send(`{"jsonrpc":"2.0","id":2,`)
		time.Sleep(4 * time.Second)
		send(`"method":"echo",`)
		time.Sleep(4 * time.Second)
		send(`"params":[2]}` + "\n" + `{"jsonrpc":"2.0","id":3,"method":"echo","params":[3]}` + "\n" + `{"jsonrpc":"2.0","id":4,`)
		answers(2, 3)
		// The start of message 4 came with message 3: its clock runs now.
		time.Sleep(11 * time.Second)
		synctest.Wait()
		select {
		case <-sc.Done():
		default:
			t.Fatal("a message stalled halfway for 11s is not cut at 10s")
		}
		if err := sc.Err(); err == nil || !strings.Contains(err.Error(), "a message took over 10s to arrive") {
			t.Fatalf("the stalled connection ended with %v", err)
		}
		if _, err := f.ReadMessage(); err == nil {
			t.Fatal("the stalled connection is still open")
		}
	})
}

// TestIdleConnectionMakesRoom: at the connection limit, a new connection
// takes the place of the one idle longest once it has been idle for
// EvictIdle; a connection with a call in flight, or one that was used
// lately, is not closed, and before any has been idle that long the new one
// is refused.
func TestIdleConnectionMakesRoom(t *testing.T) {
	rpctest.Synctest(t, func(t *testing.T) {
		svc := newService()
		conns := make(chan *runtime.Conn, 8)
		dial := pipeServer(t, &rpcnet.Server{Options: runtime.Options{Handler: svc}, MaxConns: 3,
			OnConnect: func(c *runtime.Conn) { conns <- c }})
		client := func() *runtime.Redialer {
			c, err := rpcnet.Dial(context.Background(), "pipe", "", &rpcnet.DialOptions{Dialer: dial})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			if err := c.Call(context.Background(), "echo", []int{1}, nil); err != nil {
				t.Fatal(err)
			}
			return c
		}
		busy, used, idle := client(), client(), client()
		_ = idle
		busyConn, _, idleConn := <-conns, <-conns, <-conns
		blocked := make(chan error, 1)
		go func() { blocked <- busy.Call(context.Background(), "block", nil, nil) }()
		<-svc.blocked

		time.Sleep(30 * time.Second)
		if !refused(t, dial, runtime.NewlineDelimited) {
			t.Fatal("a new client before any connection was idle a minute is not refused as busy")
		}
		if err := used.Call(context.Background(), "echo", []int{2}, nil); err != nil {
			t.Fatal(err)
		}
		time.Sleep(40 * time.Second)
		// idle: 70s idle; used: 40s; busy: a call in flight for 70s.
		if err := call(dial, runtime.NewlineDelimited); err != nil {
			t.Fatalf("a new client once a connection was idle 70s: %v", err)
		}
		<-conns
		<-idleConn.Done()
		if err := idleConn.Err(); err == nil || !strings.Contains(err.Error(), "idle to make room") {
			t.Fatalf("the idle connection ended with %v", err)
		}
		select {
		case <-busyConn.Done():
			t.Fatal("the connection with a call in flight was closed")
		default:
		}
		close(svc.release)
		if err := <-blocked; err != nil {
			t.Fatalf("the call in flight: %v", err)
		}
		if err := used.Call(context.Background(), "echo", []int{3}, nil); err != nil {
			t.Fatalf("the connection used lately: %v", err)
		}
	})
}

// TestVanishedClientsHandlersCancelled: a client sends a call that runs
// until cancelled and a quick one, and vanishes without reading: the quick
// call's answer cannot be written, which shows the client gone, so the long
// call's handler is cancelled at once and the connection closes, rather than
// after the five seconds a peer that only closed its sending side gets for
// its answers. A client that closes only its sending side still gets them
// (TestHalfClosedClientAnswered).
func TestVanishedClientsHandlersCancelled(t *testing.T) {
	rpctest.Synctest(t, func(t *testing.T) {
		started, cancelled := make(chan struct{}), make(chan time.Time, 1)
		h := runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
			if req.Method == "wait" {
				close(started)
				<-ctx.Done()
				cancelled <- time.Now()
				return nil, ctx.Err()
			}
			return req.Params, nil
		})
		srv := &rpcnet.Server{Options: runtime.Options{Handler: h}}
		dial := pipeServer(t, srv)
		nc, err := dial(context.Background(), "pipe", "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(nc, `{"jsonrpc":"2.0","id":1,"method":"wait"}`+"\n"+`{"jsonrpc":"2.0","id":2,"method":"echo","params":[2]}`+"\n"); err != nil {
			t.Fatal(err)
		}
		<-started
		nc.Close()
		vanished := time.Now()
		if waited := (<-cancelled).Sub(vanished); waited != 0 {
			t.Fatalf("the vanished client's handler was cancelled %v after it vanished, want at once", waited)
		}
		synctest.Wait()
		if n := srv.Conns(); n != 0 {
			t.Fatalf("%d connections served after the client vanished", n)
		}
	})
}

// TestHalfClosedClientAnswered: a client that sends a call and closes its
// sending side, still reading, gets the answer of the call, which ends after
// the server has read the end of its stream.
func TestHalfClosedClientAnswered(t *testing.T) {
	svc := newService()
	conns := make(chan *runtime.Conn, 1)
	addr := server(t, "unix", &rpcnet.Server{Options: runtime.Options{Handler: svc}, OnConnect: func(c *runtime.Conn) { conns <- c }})
	nc, err := net.Dial("unix", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	sc := <-conns
	if _, err := io.WriteString(nc, `{"jsonrpc":"2.0","id":1,"method":"block"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	<-svc.blocked
	if err := nc.(*net.UnixConn).CloseWrite(); err != nil {
		t.Fatal(err)
	}
	<-sc.Done() // the server has read the end of the stream
	close(svc.release)
	got, err := io.ReadAll(nc)
	if want := `{"jsonrpc":"2.0","id":1,"result":"released"}` + "\n"; err != nil || string(got) != want {
		t.Fatalf("the half-closed client read %q, %v; want %q and the end of the stream", got, err, want)
	}
}
