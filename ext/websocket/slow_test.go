package websocket_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	wsrpc "github.com/rpcgen/rpcgen/ext/websocket"
	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime"
)

// TestTrickledMessageIsCut sends a message in one-byte fragments, one
// every 5 s (each pushed out by a ping), from a client that answers pings
// (so the keepalive never cuts it): the server disconnects it 30 s after the message began, with the
// reason as the connection's Err (in a synctest bubble, over in-memory
// connections). Before MessageTimeout such a client held its connection
// for ever. A message in fragments that comes within the timeout is served.
func TestTrickledMessageIsCut(t *testing.T) {
	rpctest.Synctest(t, func(t *testing.T) {
		conns := make(chan *runtime.Conn, 2)
		dial, _, _ := pipeServe(t, &wsrpc.Options{OnConnect: func(c *runtime.Conn, _ *http.Request) { conns <- c }})
		ws := dial()
		defer ws.CloseNow()
		sc := <-conns
		ctx := ws.CloseRead(context.Background()) // answers pings
		msg := `{"jsonrpc":"2.0","id":1,"method":"big","params":[10]}`
		w, err := ws.Writer(ctx, websocket.MessageText)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		for i := 0; ; i = (i + 1) % len(msg) {
			// A fragment goes out with the next control frame: a ping.
			if _, err := w.Write([]byte{msg[i]}); err != nil || ws.Ping(ctx) != nil {
				break
			}
			select {
			case <-sc.Done():
			case <-time.After(5 * time.Second):
				continue
			}
			break
		}
		<-sc.Done()
		if d := time.Since(start); d < wsrpc.DefaultMessageTimeout || d > wsrpc.DefaultMessageTimeout+time.Second {
			t.Fatalf("the trickling connection was cut after %v, want %v: %v", d, wsrpc.DefaultMessageTimeout, sc.Err())
		}
		if err := sc.Err(); err == nil || !strings.Contains(err.Error(), "a message took over 30s to arrive") {
			t.Fatalf("the trickling connection ended with %v", err)
		}

		// Fragments within the timeout make one message, answered.
		ws2 := dial()
		defer ws2.CloseNow()
		<-conns
		answer := make(chan string, 1)
		go func() { // reads the answer, and the pongs meanwhile
			_, got, err := ws2.Read(context.Background())
			if err != nil {
				answer <- err.Error()
			}
			answer <- string(got)
		}()
		w, err = ws2.Writer(context.Background(), websocket.MessageText)
		if err != nil {
			t.Fatal(err)
		}
		for _, part := range []string{msg[:10], msg[10:30], msg[30:]} {
			if _, err := w.Write([]byte(part)); err != nil {
				t.Fatal(err)
			}
			if err := ws2.Ping(context.Background()); err != nil {
				t.Fatal(err)
			}
			time.Sleep(9 * time.Second)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if got := <-answer; !rpctest.SameJSON(t, got, `{"jsonrpc":"2.0","id":1,"result":"xxxxxxxx"}`) {
			t.Fatalf("a message in fragments over 27s: %s", got)
		}
	})
}

// TestVanishedClientsHandlersCancelled: a client sends a call that runs
// until cancelled and vanishes without a closing handshake: its handler is
// cancelled at once (in a synctest bubble, over in-memory connections),
// rather than after the five seconds a connection gets to answer what its
// peer sent.
func TestVanishedClientsHandlersCancelled(t *testing.T) {
	rpctest.Synctest(t, func(t *testing.T) {
		started, cancelled := make(chan struct{}), make(chan time.Time, 1)
		h := wsrpc.NewHandler(runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
			close(started)
			<-ctx.Done()
			cancelled <- time.Now()
			return nil, ctx.Err()
		}), nil)
		ts := rpctest.NewPipeServer(t, h, nil)
		t.Cleanup(func() { h.Close() })
		ws, _, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(ts.URL, "http"), &websocket.DialOptions{HTTPClient: ts.Client()})
		if err != nil {
			t.Fatal(err)
		}
		if err := ws.Write(context.Background(), websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":1,"method":"wait"}`)); err != nil {
			t.Fatal(err)
		}
		<-started
		ws.CloseNow()
		vanished := time.Now()
		if waited := (<-cancelled).Sub(vanished); waited != 0 {
			t.Fatalf("the vanished client's handler was cancelled %v after it vanished, want at once", waited)
		}
	})
}
