// Command notes-server serves the authnotes MCP server over HTTP behind
// OAuth: every request needs an access token from the authorization server
// --issuer for this server's URL, and each tool the scope it names.
//
//	notes-server --http 127.0.0.1:8090 --issuer http://127.0.0.1:8080
//
// It prints the MCP endpoint's URL as its first line on stdout and stops on
// SIGINT or SIGTERM.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/rpcgen/rpcgen/examples/authnotes"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp"
)

func main() {
	addr := flag.String("http", "127.0.0.1:8090", "address to listen on")
	issuer := flag.String("issuer", "", "the authorization server's issuer URL (required)")
	hide := flag.Bool("hide-tools", false, "leave the tools a token cannot call out of tools/list")
	flag.Parse()
	if *issuer == "" {
		fmt.Fprintln(os.Stderr, "notes-server: --issuer is required")
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "notes-server:", err)
		os.Exit(1)
	}
	endpoint := "http://" + ln.Addr().String() + "/mcp"
	mux, h, err := authnotes.Handler(endpoint, *issuer, &authnotes.Store{}, *hide)
	if err != nil {
		fmt.Fprintln(os.Stderr, "notes-server:", err)
		os.Exit(1)
	}
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 64 << 10}
	mcphttp.PromptShutdown(hs) // a connection dialled and never used does not hold Shutdown
	fmt.Println(endpoint)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		h.Shutdown(sctx)
		hs.Shutdown(sctx)
	}()
	if err := hs.Serve(ln); err != http.ErrServerClosed {
		slog.Error("notes-server", "err", err)
		os.Exit(1)
	}
}
