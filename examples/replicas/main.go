// Command replicas serves the notes MCP server over Streamable HTTP as one
// replica of many behind a load balancer: with --redis, its legacy
// sessions, their streams' events, the messages between replicas and the
// notes themselves live on Redis (package ext/redis), so that any request
// of a session may land on any replica; without it, everything stays in
// this process. See docs/replicas.md and docs/operations.md.
//
//	replicas --http 127.0.0.1:8081 --redis redis://127.0.0.1:6379/0 --state-keys /etc/notes/state-keys
//
// The Redis URL may name Sentinels instead (master_name=...) and carry any
// go-redis option (see ext/redis's Connect); REDIS_URL gives it when
// --redis does not, so that a password stays off the command line. The
// state keys, which seal 2026-07-28 requestState and must be the same on
// every replica, are a key ring file (mcpserver.ParseStateKeys), read again on
// SIGHUP, or STATE_KEYS.
//
// With OTEL_EXPORTER_OTLP_ENDPOINT set (or the _TRACES_ or _METRICS_
// endpoint), it exports ext/otel's spans and metrics over OTLP/HTTP.
//
// It serves MCP at /mcp, liveness at /healthz and readiness at /readyz
// (503 while it cannot reach Redis both ways), prints its endpoint on
// stdout once it listens, logs to stderr, and shuts down gracefully on
// SIGTERM or an interrupt.
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
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
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// drainTimeout bounds a graceful shutdown: the calls in flight have it to
// finish (docs/operations.md: a pod's terminationGracePeriodSeconds must
// exceed it).
const drainTimeout = 10 * time.Second

// config is what the flags say.
type config struct {
	addr, redisURL, prefix, name string
	allowedHosts                 []string
	idle, storeTimeout           time.Duration
	stateKeys                    string // the key ring file, or "" (STATE_KEYS, or none)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("replicas", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg config
	host, _ := os.Hostname()
	fs.StringVar(&cfg.addr, "http", "127.0.0.1:8080", "the `address` to listen on")
	fs.StringVar(&cfg.redisURL, "redis", os.Getenv("REDIS_URL"), "the Redis `URL` (redis://host:6379/0, or Sentinels: redis://sentinel:26379/0?master_name=NAME&addr=sentinel2:26379) the replicas share; default $REDIS_URL; none: all state in this process")
	fs.StringVar(&cfg.prefix, "prefix", "notes:", "the `prefix` of every Redis key and channel")
	fs.StringVar(&cfg.name, "name", host, "the replica's `name`, as notes report it")
	hosts := fs.String("allowed-hosts", "", "comma-separated Host `names` accepted besides localhost on a loopback listener (the load balancer's)")
	fs.DurationVar(&cfg.idle, "idle", 10*time.Minute, "a session's idle `timeout` (and its keys' TTL on Redis)")
	fs.DurationVar(&cfg.storeTimeout, "store-timeout", 2*time.Second, "how long a request waits for Redis before it gets 503")
	fs.StringVar(&cfg.stateKeys, "state-keys", "", "the `file` of the key ring that seals 2026-07-28 requestState, the same on every replica (read again on SIGHUP); default $STATE_KEYS (comma-separated keys)")
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
	keys, err := loadStateKeys(cfg.stateKeys)
	if err != nil {
		return err
	}
	if keys == nil && cfg.redisURL != "" {
		logger.Warn("no --state-keys: this replica seals 2026-07-28 requestState with a key of its own, and a retry that lands on another replica fails")
	}
	opts := mcphttp.Options{AllowedHosts: cfg.allowedHosts, SessionIdleTimeout: cfg.idle,
		StoreTimeout: cfg.storeTimeout, Logger: logger}
	var st store = &memStore{}
	ready := func(context.Context) error { return nil }
	srvOpts := &mcpserver.Options{Logger: logger, StateKeys: keys}
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
	in, stopTelemetry, err := telemetry(ctx, cfg.name)
	if err != nil {
		return err
	}
	if in != nil {
		defer func() {
			sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := stopTelemetry(sctx); err != nil {
				logger.Warn("telemetry not exported", "err", err)
			}
		}()
		srvOpts.Middleware = append(srvOpts.Middleware, in.MCPServer())
	}
	srv := mcpserver.New(mcp.Implementation{Name: "notes", Version: "1.0.0"}, srvOpts)
	srv.AddTools(NotesTools(&notes{st: st, replica: cfg.name, srv: srv})...)
	h := mcphttp.NewHandler(srv, &opts)
	if keys != nil {
		logger.Info("state keys", "keys", fingerprints(keys))
	}
	if cfg.stateKeys != "" {
		hup := make(chan os.Signal, 1)
		signal.Notify(hup, syscall.SIGHUP)
		defer signal.Stop(hup)
		go reloadStateKeys(ctx, hup, cfg.stateKeys, srv, logger)
	}

	mux := http.NewServeMux()
	if in != nil {
		mux.Handle("/mcp", in.HTTPHandler(h))
	} else {
		mux.Handle("/mcp", h)
	}
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
	mcphttp.PromptShutdown(hs) // a connection dialled and never used does not hold Shutdown
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
	sctx, cancel := context.WithTimeout(context.Background(), drainTimeout)
	defer cancel()
	go hs.Shutdown(sctx)
	h.Shutdown(sctx)
	if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// loadStateKeys reads the key ring from file, or from STATE_KEYS when file
// is ""; nil when neither gives one.
func loadStateKeys(file string) ([][]byte, error) {
	text := os.Getenv("STATE_KEYS")
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("--state-keys: %w", err)
		}
		text = string(b)
	}
	if strings.TrimSpace(text) == "" && file == "" {
		return nil, nil
	}
	keys, err := mcpserver.ParseStateKeys(text)
	if err != nil {
		return nil, fmt.Errorf("state keys: %w", err)
	}
	return keys, nil
}

// reloadStateKeys reads the key ring file again on each signal of hup and
// gives it to srv; a file that does not parse leaves the keys as they were.
func reloadStateKeys(ctx context.Context, hup <-chan os.Signal, file string, srv *mcpserver.Server, logger *slog.Logger) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
		}
		keys, err := loadStateKeys(file)
		if err == nil {
			err = srv.SetStateKeys(keys)
		}
		if err != nil {
			logger.Error("state keys not reloaded; the old ones stay", "err", err)
			continue
		}
		logger.Info("state keys reloaded", "keys", fingerprints(keys))
	}
}

// fingerprints names keys without showing them: the first 4 bytes of each
// one's SHA-256, in hex, the sealing key first; the same on every replica
// when their rings agree.
func fingerprints(keys [][]byte) string {
	out := make([]string, len(keys))
	for i, k := range keys {
		sum := sha256.Sum256(k)
		out[i] = hex.EncodeToString(sum[:4])
	}
	return strings.Join(out, ",")
}
