// Command conformance is the server the official MCP conformance suite
// (@modelcontextprotocol/conformance) is run against in CI: the tools,
// resources, prompts and completions of the Conformance interface, generated
// by rpcgen, served over Streamable HTTP (and the legacy transports) by
// package mcphttp, or over stdio.
//
//	go run ./examples/conformance                  # listens on a free port of 127.0.0.1
//	go run ./examples/conformance --addr 127.0.0.1:3001
//	go run ./examples/conformance --stdio          # one client on stdin and stdout
//
// Over HTTP, once it listens it prints its MCP endpoint,
// http://127.0.0.1:PORT/mcp, on stdout (one line, nothing else); logs go to
// stderr. interop/conformance/run.sh starts it and runs the suite's scenarios
// against that URL; the interop tests use both modes.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
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

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on (port 0: any free port)")
	step := flag.Duration("step", 50*time.Millisecond, "pause between the progress reports and log messages of a call")
	verbose := flag.Bool("v", false, "log every request's diagnostics (debug level)")
	stdio := flag.Bool("stdio", false, "serve one client over stdin and stdout instead of HTTP")
	flag.Parse()

	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	if *stdio {
		err = newServer(*step, logger).ServeStdio(ctx)
		if ctx.Err() != nil {
			err = nil // stopped by a signal
		}
	} else {
		err = run(ctx, *addr, *step, logger, os.Stdout)
	}
	if err != nil {
		logger.Error("conformance server", "err", err)
		os.Exit(1)
	}
}

// newServer serves the conformance fixture: its tools, resources, prompts
// and completions (Conformance and Stateless), and the tools of Tasks, run
// as tasks by package tasks. test_touch_watched_resource
// tells the server's subscribers about the change; the trigger tools add
// tools and prompts to the server.
func newServer(step time.Duration, logger *slog.Logger) *mcpserver.Server {
	srv := mcpserver.New(mcp.Implementation{Name: "rpcgen-conformance", Title: "rpcgen conformance fixture", Version: "1.0.0"},
		&mcpserver.Options{Logger: logger})
	f := newFixture(step)
	f.updated = srv.ResourceUpdated
	RegisterConformance(srv, f)
	srv.AddSkills(ConformanceSkills) // skills/mcp-conformance, served by the Skills extension
	RegisterStateless(srv, &stateless{step: step, srv: srv})
	tasks.Enable(srv, &tasks.Options{Logger: logger})
	srv.AddTools(TasksTools(&taskTools{step: step})...)
	return srv
}

// run serves on addr until ctx ends, then shuts down: calls in flight get
// five seconds to finish. It writes the endpoint's URL as a line to out once
// it listens.
func run(ctx context.Context, addr string, step time.Duration, logger *slog.Logger, out io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	h := mcphttp.NewHandler(newServer(step, logger), &mcphttp.Options{Logger: logger})
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 64 << 10, ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)}
	mcphttp.PromptShutdown(hs) // a connection dialled and never used does not hold Shutdown

	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	fmt.Fprintf(out, "http://%s/mcp\n", ln.Addr())
	logger.Info("serving MCP", "url", "http://"+ln.Addr().String()+"/mcp")

	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err = errors.Join(h.Shutdown(shutdownCtx), hs.Shutdown(shutdownCtx))
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return err
}
