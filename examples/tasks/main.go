// Command tasks serves the Archive tool, whose Compact runs as a task of
// the MCP Tasks extension (docs/tasks.md): over stdio by default, over
// Streamable HTTP with --http.
//
//	go run ./examples/tasks                        # one client on stdin and stdout
//	go run ./examples/tasks --http 127.0.0.1:0     # prints its endpoint
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

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
	"github.com/rpcgen/rpcgen/runtime/mcp/tasks"
)

// newServer serves Archive, its compactions as tasks.
func newServer(step time.Duration, logger *slog.Logger) (*mcpserver.Server, *tasks.Manager) {
	srv := mcpserver.New(mcp.Implementation{Name: "archive", Version: "1.0.0"}, &mcpserver.Options{Logger: logger})
	m := tasks.Enable(srv, &tasks.Options{Logger: logger})
	srv.AddTools(ArchiveTools(&archive{step: step, log: logger})...)
	return srv, m
}

func main() {
	addr := flag.String("http", "", "serve Streamable HTTP on this address instead of stdio")
	step := flag.Duration("step", time.Second, "how long a batch takes")
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv, m := newServer(*step, logger)
	defer m.Close()
	if *addr == "" {
		if err := srv.ServeStdio(ctx); err != nil && ctx.Err() == nil {
			logger.Error("archive", "err", err)
			os.Exit(1)
		}
		return
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		logger.Error("archive", "err", err)
		os.Exit(1)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcphttp.NewHandler(srv, &mcphttp.Options{Logger: logger}))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	mcphttp.PromptShutdown(hs) // a connection dialled and never used does not hold Shutdown
	go func() {
		<-ctx.Done()
		hs.Close()
	}()
	fmt.Printf("http://%s/mcp\n", ln.Addr())
	if err := hs.Serve(ln); err != nil && ctx.Err() == nil {
		logger.Error("archive", "err", err)
		os.Exit(1)
	}
}
