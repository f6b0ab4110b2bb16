package streambench

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net"
	"net/http/httptest"
	goruntime "runtime"
	"strings"
	"testing"

	"github.com/creachadair/jrpc2"
	"github.com/creachadair/jrpc2/channel"
	"github.com/creachadair/jrpc2/handler"
	gethrpc "github.com/ethereum/go-ethereum/rpc"

	wsrpc "github.com/rpcgen/rpcgen/ext/websocket"
	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/rpcnet"
)

// Item is one element of the streams.
type Item struct {
	N int `json:"n"`
}

const streamLen = 10_000

// peer is one implementation's client, connected to its server.
type peer struct {
	echo   func(ctx context.Context, v int) (int, error)
	stream func(ctx context.Context, n int, each func(Item)) error
}

// rpcgenHandler serves echo and the count stream as generated code does.
var rpcgenHandler = runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
	var p [1]int
	if err := json.Unmarshal(req.Params, &p); err != nil {
		return nil, runtime.InvalidParams("%v", err)
	}
	switch req.Method {
	case "echo":
		return runtime.EncodeResult(p[0])
	case "count":
		return runtime.ServeStream(ctx, count(p[0]))
	}
	return nil, runtime.ErrMethodNotFound(req.Method)
})

func count(n int) iter.Seq2[Item, error] {
	return func(yield func(Item, error) bool) {
		for i := range n {
			if !yield(Item{N: i}, nil) {
				return
			}
		}
	}
}

func rpcgenPeer(c runtime.Caller) peer {
	return peer{
		echo: func(ctx context.Context, v int) (int, error) { return runtime.Call[int](ctx, c, "echo", []int{v}) },
		stream: func(ctx context.Context, n int, each func(Item)) error {
			for it, err := range runtime.Stream[Item](ctx, c, "count", []int{n}) {
				if err != nil {
					return err
				}
				each(it)
			}
			return nil
		},
	}
}

func rpcgenWS(tb testing.TB) peer {
	h := wsrpc.NewHandler(rpcgenHandler, nil)
	srv := httptest.NewServer(h)
	c, err := wsrpc.Dial(context.Background(), "ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close(); h.Close(); srv.Close() })
	return rpcgenPeer(c)
}

func rpcgenTCP(tb testing.TB) peer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	srv := &rpcnet.Server{Options: runtime.Options{Handler: rpcgenHandler}}
	go srv.Serve(ln)
	c, err := rpcnet.Dial(context.Background(), "tcp", ln.Addr().String(), nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close(); srv.Close() })
	return rpcgenPeer(c)
}

// gethService is the same service on go-ethereum's rpc: bench_echo, and
// bench_subscribe("count", n).
type gethService struct{}

func (gethService) Echo(v int) int { return v }

func (gethService) Count(ctx context.Context, n int) (*gethrpc.Subscription, error) {
	notifier, ok := gethrpc.NotifierFromContext(ctx)
	if !ok {
		return nil, gethrpc.ErrNotificationsUnsupported
	}
	sub := notifier.CreateSubscription()
	go func() {
		for i := range n {
			if err := notifier.Notify(sub.ID, Item{N: i}); err != nil {
				return
			}
		}
	}()
	return sub, nil
}

func gethWS(tb testing.TB) peer {
	s := gethrpc.NewServer()
	if err := s.RegisterName("bench", gethService{}); err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewServer(s.WebsocketHandler([]string{"*"}))
	c, err := gethrpc.DialWebsocket(context.Background(), "ws"+strings.TrimPrefix(srv.URL, "http"), "")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close(); s.Stop(); srv.Close() })
	return peer{
		echo: func(ctx context.Context, v int) (int, error) {
			var out int
			err := c.CallContext(ctx, &out, "bench_echo", v)
			return out, err
		},
		stream: func(ctx context.Context, n int, each func(Item)) error {
			ch := make(chan Item, 128)
			sub, err := c.Subscribe(ctx, "bench", ch, "count", n)
			if err != nil {
				return err
			}
			defer sub.Unsubscribe()
			for range n {
				select {
				case it := <-ch:
					each(it)
				case err := <-sub.Err():
					return err
				}
			}
			return nil
		},
	}
}

// jrpc2TCP is jrpc2 over TCP with newline framing; the stream is its server
// push, enabled with AllowPush.
func jrpc2TCP(tb testing.TB) peer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	assigner := handler.Map{
		"echo": handler.New(func(_ context.Context, p [1]int) (int, error) { return p[0], nil }),
		"count": handler.New(func(ctx context.Context, p [1]int) (any, error) {
			srv := jrpc2.ServerFromContext(ctx)
			for i := range p[0] {
				if err := srv.Notify(ctx, "item", Item{N: i}); err != nil {
					return nil, err
				}
			}
			return nil, nil
		}),
	}
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			jrpc2.NewServer(assigner, &jrpc2.ServerOptions{AllowPush: true}).Start(channel.Line(nc, nc))
		}
	}()
	nc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		tb.Fatal(err)
	}
	items := make(chan Item, 128)
	cli := jrpc2.NewClient(channel.Line(nc, nc), &jrpc2.ClientOptions{OnNotify: func(req *jrpc2.Request) {
		var it Item
		if req.UnmarshalParams(&it) == nil {
			items <- it
		}
	}})
	tb.Cleanup(func() { cli.Close(); ln.Close() })
	return peer{
		echo: func(ctx context.Context, v int) (int, error) {
			var out int
			err := cli.CallResult(ctx, "echo", [1]int{v}, &out)
			return out, err
		},
		stream: func(ctx context.Context, n int, each func(Item)) error {
			done := make(chan error, 1)
			go func() { _, err := cli.Call(ctx, "count", [1]int{n}); done <- err }()
			for range n {
				each(<-items)
			}
			return <-done
		},
	}
}

var peers = []struct {
	transport, impl string
	connect         func(testing.TB) peer
}{
	{"ws", "rpcgen", rpcgenWS},
	{"ws", "geth", gethWS},
	{"tcp", "rpcgen", rpcgenTCP},
	{"tcp", "jrpc2", jrpc2TCP},
}

func BenchmarkSocketCall(b *testing.B) {
	for _, p := range peers {
		b.Run(p.transport+"/impl="+p.impl, func(b *testing.B) {
			c := p.connect(b)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if v, err := c.echo(ctx, 7); err != nil || v != 7 {
					b.Fatalf("echo: %d, %v", v, err)
				}
			}
		})
	}
}

func BenchmarkStream10k(b *testing.B) {
	for _, p := range peers {
		b.Run(p.transport+"/impl="+p.impl, func(b *testing.B) {
			c := p.connect(b)
			ctx := context.Background()
			b.ReportAllocs()
			var before, after goruntime.MemStats
			goruntime.ReadMemStats(&before)
			seen := make([]bool, streamLen)
			for b.Loop() {
				clear(seen)
				got := 0
				err := c.stream(ctx, streamLen, func(it Item) {
					if it.N < 0 || it.N >= streamLen || seen[it.N] {
						panic(fmt.Sprintf("item %d twice or out of range", it.N))
					}
					seen[it.N] = true
					got++
				})
				if err != nil || got != streamLen {
					b.Fatalf("stream: %d items, %v", got, err)
				}
			}
			goruntime.ReadMemStats(&after)
			items := float64(b.N) * streamLen
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/items, "ns/item")
			b.ReportMetric(float64(after.Mallocs-before.Mallocs)/items, "allocs/item")
		})
	}
}

// TestPeers runs each peer once, so go test (and .ci/run's build of the
// bench module) checks that every implementation works.
func TestPeers(t *testing.T) {
	for _, p := range peers {
		t.Run(p.transport+"/"+p.impl, func(t *testing.T) {
			c := p.connect(t)
			if v, err := c.echo(context.Background(), 7); err != nil || v != 7 {
				t.Fatalf("echo: %d, %v", v, err)
			}
			seen := map[int]bool{}
			if err := c.stream(context.Background(), 100, func(it Item) { seen[it.N] = true }); err != nil || len(seen) != 100 {
				t.Fatalf("stream: %d distinct items of 100, %v", len(seen), err)
			}
		})
	}
}
