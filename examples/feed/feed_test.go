package feed_test

import (
	"context"
	"iter"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rpcgen/rpcgen/examples/feed"
	"github.com/rpcgen/rpcgen/ext/websocket"
	"github.com/rpcgen/rpcgen/runtime/rpchttp"
)

// watched wraps a Market and signals when a Watch loop has ended.
type watched struct {
	feed.Market
	ended chan int // the quotes the loop produced
}

func (w *watched) Watch(ctx context.Context, symbol string, count int) iter.Seq2[feed.Quote, error] {
	inner := w.Market.Watch(ctx, symbol, count)
	return func(yield func(feed.Quote, error) bool) {
		n := 0
		defer func() { w.ended <- n }()
		for q, err := range inner {
			n++
			if !yield(q, err) {
				return
			}
		}
	}
}

// onMessage is a slog.Handler that calls f for each record whose message is msg.
type onMessage struct {
	msg string
	f   func()
}

func (h onMessage) Enabled(context.Context, slog.Level) bool { return true }
func (h onMessage) Handle(_ context.Context, r slog.Record) error {
	if r.Message == h.msg {
		h.f()
	}
	return nil
}
func (h onMessage) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h onMessage) WithGroup(string) slog.Handler      { return h }

// TestServicesEndToEnd runs both services: quotes on a Unix socket, the
// gateway in front of it. A WebSocket client and an HTTP client call the
// gateway through the generated client; breaking out of the stream at the
// browser's end stops the loop in the quotes service, two hops away.
func TestServicesEndToEnd(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	log := slog.New(slog.DiscardHandler)
	sock := filepath.Join(t.TempDir(), "quotes.sock")
	impl := &watched{ended: make(chan int, 4)}
	quotesDone := make(chan error, 1)
	// ServeQuotes logs once it listens: the socket exists from then on.
	listening := make(chan struct{})
	quotesLog := slog.New(onMessage{"serving quotes over a Unix socket", sync.OnceFunc(func() { close(listening) })})
	go func() { quotesDone <- feed.ServeQuotes(ctx, sock, impl, quotesLog) }()
	select {
	case <-listening:
	case err := <-quotesDone:
		t.Fatalf("ServeQuotes: %v", err)
	}
	g, err := feed.NewGateway(ctx, sock, log)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gwDone := make(chan error, 1)
	go func() { gwDone <- g.Serve(ctx, ln) }()
	base := ln.Addr().String()

	ws, err := websocket.Dial(ctx, "ws://"+base+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	client := feed.NewQuotesClient(ws)
	q, err := client.Price(ctx, "ACME")
	if err != nil || q.Symbol != "ACME" || q.Price != 100 {
		t.Fatalf("Price: %+v, %v", q, err)
	}
	n := 0
	for q, err := range client.Watch(ctx, "ACME", 0) {
		if err != nil || q.Seq != n+1 {
			t.Fatalf("quote %d: %+v, %v", n, q, err)
		}
		if n++; n == 5 {
			break
		}
	}
	if got := <-impl.ended; got < 5 {
		t.Fatalf("the quotes service's loop ended after %d quotes", got)
	}

	var seqs []int
	for q, err := range feed.NewQuotesClient(rpchttp.NewClient("http://"+base+"/rpc")).Watch(ctx, "XYZ", 3) {
		if err != nil {
			t.Fatal(err)
		}
		seqs = append(seqs, q.Seq)
	}
	if len(seqs) != 3 || seqs[2] != 3 {
		t.Fatalf("over HTTP: %v", seqs)
	}
	<-impl.ended

	cancel()
	if err := <-gwDone; err != nil && !strings.Contains(err.Error(), "closed") {
		t.Errorf("gateway: %v", err)
	}
	<-quotesDone
}
