// Command probe serves package probe's service over JSON-RPC on HTTP for the
// tests of clients in other languages (interop/tsclient). It listens on the
// address of --http (port 0 picks a free one), logs the address it got to
// stderr as `"serving JSON-RPC over HTTP" addr=HOST:PORT`, and serves until
// interrupted. --cors-origin lets the pages of an origin call it from a
// browser (interop/browser).
package main

import (
	"context"
	"flag"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"

	"github.com/rpcgen/rpcgen/internal/probe"
	"github.com/rpcgen/rpcgen/runtime/rpchttp"
)

func main() {
	addr := flag.String("http", "127.0.0.1:0", "address to serve JSON-RPC over HTTP on")
	var cors []string
	flag.Func("cors-origin", "let the browser pages of this `origin` call the server (CORS; repeatable)", func(o string) error {
		cors = append(cors, o)
		return nil
	})
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		logger.Error("listen", "err", err)
		os.Exit(1)
	}
	opts := rpchttp.Options{}
	if len(cors) > 0 {
		opts.CORS = &rpchttp.CORS{AllowedOrigins: cors}
	}
	srv := &http.Server{Handler: probe.WithHeaders(rpchttp.NewHandler(probe.NewProbeHandler(&probe.Impl{}), opts))}
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	logger.Info("serving JSON-RPC over HTTP", "addr", ln.Addr().String())
	if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
		logger.Error("serve", "err", err)
		os.Exit(1)
	}
}
