// Command replica is one replica of a small MCP server whose legacy
// sessions, streams and messages live on Redis (package ext/redis), for
// the tests that run three of them as processes behind a round-robin
// proxy:
//
//	replica --redis redis://127.0.0.1:6379/0 --prefix test: --name 0 --state-key HEX [--http 127.0.0.1:0]
//	replica --cluster 3 [--http 127.0.0.1:0] [--sentinel | --appendonly]
//
// A replica prints its endpoint's URL on stdout once it listens, logs to
// stderr and shuts down gracefully on SIGTERM. With --cluster N it is a
// whole deployment for the peers' tests (interop/): it starts a
// redis-server on a free loopback port, N replicas (itself, run again) on
// it with one key prefix and one 2026-07-28 state key, and a round-robin
// reverse proxy (internal/rrproxy) in front of them, prints the proxy's
// URL and, on SIGTERM, stops them all. Its tools are in tools.go, its
// task tools (run by a TaskExecutor on Redis) in tasks.go.
package main

import (
	"context"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/rpcgen/rpcgen/ext/redis"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
	"github.com/rpcgen/rpcgen/runtime/mcp/tasks"
)

func main() {
	var cfg config
	flag.StringVar(&cfg.url, "redis", "", "the Redis `URL`")
	flag.StringVar(&cfg.prefix, "prefix", "rpcgen:", "the key `prefix`")
	flag.StringVar(&cfg.addr, "http", "127.0.0.1:0", "the `address` to listen on")
	flag.StringVar(&cfg.name, "name", "", "the replica's `name`, as its tools report it")
	flag.StringVar(&cfg.stateKey, "state-key", "", "the 2026-07-28 requestState key, 32 bytes in `hex`, the same on every replica")
	flag.DurationVar(&cfg.lease, "task-lease", 3*time.Second, "how long a task stays with a worker that stopped renewing it")
	cluster := flag.Int("cluster", 0, "start redis-server and `N` replicas behind a round-robin proxy")
	var setup clusterSetup
	flag.BoolVar(&setup.sentinel, "sentinel", false, "with --cluster: a primary, a replica and three Sentinels instead of one redis-server")
	flag.BoolVar(&setup.appendOnly, "appendonly", false, "with --cluster: redis-server keeps an append-only file (appendfsync everysec)")
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	var err error
	if *cluster > 0 {
		err = runCluster(ctx, *cluster, cfg.addr, setup, logger)
	} else {
		err = run(ctx, cfg, logger)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "replica:", err)
		os.Exit(1)
	}
}

type config struct {
	url, prefix, addr, name, stateKey string
	lease                             time.Duration
}

func run(ctx context.Context, cfg config, logger *slog.Logger) error {
	key, err := hex.DecodeString(cfg.stateKey)
	if err != nil || len(key) != 32 {
		return errors.New("--state-key: want 32 bytes in hex, the same on every replica")
	}
	client, err := redis.Connect(cfg.url)
	if err != nil {
		return err
	}
	defer client.Close()
	shared := redis.New(client, redis.Options{Prefix: cfg.prefix, Logger: logger})
	defer shared.Close()
	srv := mcpserver.New(mcp.Implementation{Name: "replica", Version: "1"},
		&mcpserver.Options{Bus: shared.Bus(), Logger: logger, StateKeys: [][]byte{key}})
	r := &replica{srv: srv, name: cfg.name, rdb: client, prefix: cfg.prefix}
	srv.AddTools(r.tools()...)
	srv.AddTools(r.taskTools()...)
	// Tasks on Redis: any replica's workers run the tasks any replica
	// created, and take up those of a replica that died.
	executor := shared.TaskExecutor(redis.ExecutorOptions{Workers: 64, Lease: cfg.lease})
	tm := tasks.Enable(srv, &tasks.Options{Store: shared.Tasks(redis.TaskOptions{MaxTasks: 1 << 20, Executor: executor}),
		Executor: executor, PollInterval: 50 * time.Millisecond, Logger: logger})
	executor.Start(tm, srv)
	defer func() {
		// The tasks running get 5 s to end; those still running then are
		// taken up by the other replicas once their lease is over.
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := executor.Shutdown(sctx); err != nil {
			logger.Warn("replica: tasks still running at exit, left to the other replicas", "err", err)
		}
	}()
	srv.AddResources(mcpserver.Resource{URI: WatchedURI, Name: "watched", Handler: func(context.Context, *mcpserver.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return []mcp.ResourceContents{{URI: WatchedURI, Text: "watched"}}, nil
	}})
	h := mcphttp.NewHandler(srv, &mcphttp.Options{SessionStore: shared.Sessions(), EventStore: shared.Events(),
		Logger: logger, RetryInterval: 50 * time.Millisecond, MaxSessions: 100000})
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	mcphttp.PromptShutdown(hs) // a connection dialled and never used does not hold Shutdown
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	fmt.Printf("http://%s/mcp\n", ln.Addr())
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return errors.Join(h.Shutdown(sctx), hs.Shutdown(sctx))
}
