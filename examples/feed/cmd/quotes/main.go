// Command quotes serves the quotes service over a Unix socket.
//
//	go run ./cmd/quotes --socket /tmp/quotes.sock
package main

import (
	"context"
	"flag"
	"log/slog"
	"os"
	"os/signal"
	"time"

	"github.com/rpcgen/rpcgen/examples/feed"
)

func main() {
	socket := flag.String("socket", "/tmp/quotes.sock", "the Unix socket to serve on")
	tick := flag.Duration("tick", 500*time.Millisecond, "time between two quotes of a stream")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := feed.ServeQuotes(ctx, *socket, &feed.Market{Tick: *tick}, log); err != nil {
		log.Error("quotes", "err", err)
		os.Exit(1)
	}
}
