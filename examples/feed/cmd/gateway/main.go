// Command gateway calls the quotes service over its Unix socket and serves
// it to browsers over WebSocket, with a page at /.
//
//	go run ./cmd/quotes --socket /tmp/quotes.sock &
//	go run ./cmd/gateway --socket /tmp/quotes.sock --http 127.0.0.1:8080
//	# open http://127.0.0.1:8080
package main

import (
	"context"
	"flag"
	"log/slog"
	"net"
	"os"
	"os/signal"

	"github.com/rpcgen/rpcgen/examples/feed"
)

func main() {
	socket := flag.String("socket", "/tmp/quotes.sock", "the quotes service's Unix socket")
	addr := flag.String("http", "127.0.0.1:8080", "where to serve the page and WebSocket (loopback only)")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	g, err := feed.NewGateway(ctx, *socket, log)
	if err != nil {
		log.Error("dial the quotes service", "err", err)
		os.Exit(1)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Error("listen", "err", err)
		os.Exit(1)
	}
	log.Info("serving JSON-RPC over HTTP", "addr", ln.Addr().String(), "page", "http://"+ln.Addr().String()+"/", "websocket", "/ws", "http", "/rpc")
	if err := g.Serve(ctx, ln); err != nil {
		log.Error("gateway", "err", err)
		os.Exit(1)
	}
}
