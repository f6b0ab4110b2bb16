// Command replicas serves the notes MCP server over Streamable HTTP as one
// replica of many behind a load balancer: with --redis, its legacy
// sessions, their streams' events, the messages between replicas and the
// notes themselves live on Redis (package ext/redis), so that any request
// of a session may land on any replica; without it, everything stays in
// this process. See docs/replicas.md.
//
//	replicas --http 127.0.0.1:8081 --redis redis://127.0.0.1:6379/0
//
// It serves MCP at /mcp, liveness at /healthz and readiness at /readyz
// (503 while it cannot reach Redis both ways), prints its endpoint on
// stdout once it listens, logs to stderr, and shuts down gracefully on
// SIGTERM or an interrupt.
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
	"strings"
	"syscall"
	"time"

	"github.com/rpcgen/rpcgen/ext/redis"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// config is what the flags say.
type config struct {
	addr, redisURL, prefix, name string
	allowedHosts                 []string
	idle, storeTimeout           time.Duration
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("replicas", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg config
	host, _ := os.Hostname()
	fs.StringVar(&cfg.addr, "http", "127.0.0.1:8080", "the `address` to listen on")
	fs.StringVar(&cfg.redisURL, "redis", "", "the Redis `URL` (redis://host:6379/0) the replicas share; none: all state in this process")
	fs.StringVar(&cfg.prefix, "prefix", "notes:", "the `prefix` of every Redis key and channel")
	fs.StringVar(&cfg.name, "name", host, "the replica's `name`, as notes report it")
	hosts := fs.String("allowed-hosts", "", "comma-separated Host `names` accepted besides localhost on a loopback listener (the load balancer's)")
	fs.DurationVar(&cfg.idle, "idle", 10*time.Minute, "a session's idle `timeout` (and its keys' TTL on Redis)")
	fs.DurationVar(&cfg.storeTimeout, "store-timeout", 2*time.Second, "how long a request waits for Redis before it gets 503")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *hosts != "" {
		cfg.allowedHosts = strings.Split(*hosts, ",")
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil)).With("replica", cfg.name)
	if err := serve(ctx, cfg, stdout, logger); err != nil {
		logger.Error("replicas", "err", err)
		return 1
	}
	return 0
}

// serve runs one replica until ctx ends.
func serve(ctx context.Context, cfg config, stdout io.Writer, logger *slog.Logger) error {
	opts := mcphttp.Options{AllowedHosts: cfg.allowedHosts, SessionIdleTimeout: cfg.idle,
		StoreTimeout: cfg.storeTimeout, Logger: logger}
	var st store = &memStore{}
	ready := func(context.Context) error { return nil }
	srvOpts := &mcp.ServerOptions{Logger: logger}
	if cfg.redisURL != "" {
		client, err := redis.Connect(cfg.redisURL)
		if err != nil {
			return err
		}
		defer client.Close()
		shared := redis.New(client, redis.Options{Prefix: cfg.prefix, Logger: logger})
		defer shared.Close()
		opts.SessionStore, opts.EventStore, opts.Bus = shared.Sessions(), shared.Events(), shared.Bus()
		srvOpts.Bus = shared.Bus()
		st = &redisStore{c: client, prefix: cfg.prefix}
		ready = shared.Healthy
	}
	srv := mcp.NewServer(mcp.Implementation{Name: "notes", Version: "1.0.0"}, srvOpts)
	srv.AddTools(NotesTools(&notes{st: st, replica: cfg.name, srv: srv})...)
	h := mcphttp.NewHandler(srv, &opts)

	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok\n") })
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		rctx, cancel := context.WithTimeout(r.Context(), time.Second)
		defer cancel()
		if err := ready(rctx); err != nil {
			http.Error(w, "not ready: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "ready\n")
	})
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	fmt.Fprintf(stdout, "http://%s/mcp\n", ln.Addr())
	logger.Info("serving", "url", "http://"+ln.Addr().String()+"/mcp", "redis", cfg.redisURL != "")

	select {
	case err := <-done:
		h.Close()
		return err
	case <-ctx.Done():
	}
	// Graceful: no new requests, calls in flight finish, streams end (their
	// clients resume on another replica).
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	go hs.Shutdown(sctx)
	h.Shutdown(sctx)
	if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
