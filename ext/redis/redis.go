// Package redis lets the replicas of an MCP server behind a load balancer
// share, on Redis, what package mcphttp needs shared: the legacy sessions
// (mcphttp.SessionStore), the events of their streams
// (mcphttp.SharedEventStore) and the messages between replicas (mcpserver.Bus).
// It is a module of its own, on github.com/redis/go-redis/v9, so that
// programs that do not use it never download a Redis client.
//
//	client, err := redis.Connect("redis://127.0.0.1:6379/0")
//	shared := redis.New(client, redis.Options{Prefix: "notes:"})
//	srv := mcpserver.New(info, &mcpserver.Options{Bus: shared.Bus(), StateKeys: keys})
//	h := mcphttp.NewHandler(srv, &mcphttp.Options{
//		SessionStore: shared.Sessions(), EventStore: shared.Events()})
//
// Tasks (SEP-2663, package runtime/mcp/tasks) live on Redis too: Tasks is
// their Store, TaskExecutor a queue every replica's workers read, so that
// any replica runs a task and takes up those of a replica that died
// (docs/tasks.md).
//
// Connect takes a Redis URL, or one naming Sentinels (master_name), and
// any go-redis option as a URL parameter.
//
// Every key starts with Options.Prefix; a session's keys share a hash tag
// ({id}) and expire with the session's idle timeout, which every request
// pushes back (a busy session's at most once a second, by a script: its
// hot path is one HGET of the log level; the Touches that overlap go out
// as one pipeline, one command per session). A session's events are one Redis stream, trimmed to
// Options.MaxEvents (XADD MAXLEN ~). The session limit, the event ids and
// the first answer to a server's request are each decided by one Lua
// script or command, atomically. Pub/sub carries the bus and wakes the
// replicas that follow a session's streams.
//
// # Tests
//
// The multi-replica tests run against a real redis-server (the Debian
// package redis-server), which they start on free loopback ports. One
// command, from the repository's root, runs them all:
//
//	bash ext/redis/replicas.sh
//
// It runs this module's tests (go test -race ./... here): package
// replicatest's checks on three handlers in the test process, the faults
// (Redis hung, Redis killed and restarted), and three replicas as
// processes (internal/replica) behind a round-robin reverse proxy
// (internal/rrproxy) that sends each request to the next one: rpcgen's
// client through it in a legacy session and in 2026-07-28; 64 clients
// (legacy and 2026-07-28, with progress and elicitation) for 30 seconds
// with no answer lost or mismatched; a replica killed (SIGKILL) while
// streams are open on it. Then the peers' clients, from interop/: the
// official Go SDK (legacy and 2026-07-28) and TypeScript SDK through the
// proxy to internal/replica --cluster 3, which starts redis-server, three
// replicas and the proxy in one process tree (and kills the replica with
// the most streams open on SIGUSR1, for each SDK's client to resume its
// stream elsewhere). Tasks: the store's contract, its round trips, a
// task taken up when its worker died, and three replica processes with
// tasks followed through the proxy while a replica is killed, the client
// reconnects and Redis restarts, then 64 clients creating tasks for 30
// seconds with two replicas killed (none lost). The Sentinel tests (TestSentinelFailover here,
// TestGoSDKReplicaFailover in interop) run a primary, a replica and three
// Sentinels (package redistest's Sentinels) and fail over with SENTINEL
// FAILOVER; TestRedisRestart restarts Redis, with and without an
// append-only file, under load.
package redis

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	neturl "net/url"
	"sync"
	"sync/atomic"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// Options configures a Shared.
type Options struct {
	// Prefix starts every key and channel name, so that several servers (or
	// tests) share one Redis database apart. Default "rpcgen:".
	Prefix string
	// MaxEvents bounds the events kept per session (about: the stream is
	// trimmed with MAXLEN ~); a client can no longer resume from an event
	// trimmed off. Default 1000.
	MaxEvents int64
	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
}

// Shared is the Redis side of one replica: a client and one pub/sub
// connection, behind a SessionStore, a SharedEventStore and a Bus.
type Shared struct {
	c      goredis.UniversalClient
	opts   Options
	logger *slog.Logger
	ps     *pubsub
	index  any // indexPrefix(), boxed once for touchArgs

	tokenPrefix string        // of appendToken: random, and this Shared's own
	appends     atomic.Uint64 // Appends so far

	sessions *sessionStore
	events   *eventStore
	bus      *bus
	closeMu  sync.Once
}

// New returns the Redis side of a replica on client: a *redis.Client or a
// failover (Sentinel) client. Neither a ring nor Redis Cluster is
// supported: the scripts that create and touch a session use the global
// session set and the session's own keys together, which a ring or a
// cluster may place on different shards.
func New(client goredis.UniversalClient, opts Options) *Shared {
	if opts.Prefix == "" {
		opts.Prefix = "rpcgen:"
	}
	if opts.MaxEvents <= 0 {
		opts.MaxEvents = 1000
	}
	s := &Shared{c: client, opts: opts, logger: opts.Logger, tokenPrefix: rand.Text()[:8] + "."}
	s.index = s.indexPrefix()
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	s.ps = newPubSub(client, s.logger)
	s.sessions = &sessionStore{s: s, toucher: toucher{s: s}}
	s.events = &eventStore{s: s}
	s.bus = &bus{s: s}
	return s
}

// Sessions returns the SessionStore (Options.SessionStore of mcphttp).
func (s *Shared) Sessions() mcphttp.SessionStore { return s.sessions }

// Events returns the SharedEventStore (Options.EventStore of mcphttp).
func (s *Shared) Events() mcphttp.SharedEventStore { return s.events }

// Bus returns the Bus (ServerOptions.Bus of mcp, which mcphttp uses too).
func (s *Shared) Bus() mcpserver.Bus { return s.bus }

// Close closes the pub/sub connection; the client is the caller's.
func (s *Shared) Close() error {
	s.closeMu.Do(s.ps.close)
	return nil
}

// Connect returns a client for a redis:// (or rediss://, unix://) URL, set
// up for serving requests: unless the URL says otherwise, every command
// gives up within a second (dial, read, write, and the wait for a free
// connection) and is tried once more, so that a Redis that is down or slow
// costs a request a quick error rather than a hang, and contexts'
// deadlines are honoured.
//
// A URL with a master_name parameter names Redis Sentinels instead (a
// failover client, which follows the primary the Sentinels name): its
// host is a Sentinel, and each addr parameter another one; credentials in
// it are the Sentinels', the username and password parameters the
// primary's:
//
//	redis://10.0.0.1:26379/0?master_name=mymaster&addr=10.0.0.2:26379&addr=10.0.0.3:26379
//
// Every other go-redis option a URL can carry (pool_size, client_name,
// read_timeout, max_retries, ...; see go-redis's ParseURL and
// ParseFailoverURL) may be added as a parameter.
func Connect(url string) (*goredis.Client, error) {
	u, err := neturl.Parse(url)
	if err != nil {
		return nil, fmt.Errorf("redis: %w", err)
	}
	q := u.Query()
	if q.Has("master_name") {
		o, err := goredis.ParseFailoverURL(url)
		if err != nil {
			return nil, err
		}
		bound(q, &o.DialTimeout, &o.ReadTimeout, &o.WriteTimeout, &o.PoolTimeout, &o.MaxRetries, &o.ContextTimeoutEnabled)
		return goredis.NewFailoverClient(o), nil
	}
	o, err := goredis.ParseURL(url)
	if err != nil {
		return nil, err
	}
	bound(q, &o.DialTimeout, &o.ReadTimeout, &o.WriteTimeout, &o.PoolTimeout, &o.MaxRetries, &o.ContextTimeoutEnabled)
	return goredis.NewClient(o), nil
}

// bound sets Connect's defaults for the options q leaves unset.
func bound(q neturl.Values, dial, read, write, pool *time.Duration, retries *int, ctxTimeout *bool) {
	for name, d := range map[string]*time.Duration{"dial_timeout": dial, "read_timeout": read, "pool_timeout": pool} {
		if !q.Has(name) {
			*d = time.Second
		}
	}
	if !q.Has("write_timeout") && !q.Has("read_timeout") { // else go-redis has it follow read_timeout
		*write = time.Second
	}
	if !q.Has("max_retries") {
		*retries = 1
	}
	if !q.Has("context_timeout_enabled") {
		*ctxTimeout = true
	}
}

// Healthy reports whether the replica reaches Redis both ways: a command
// answers, and its pub/sub connection is subscribed (Redis confirms a new
// subscription on it, which it does only once the connection, after a
// failure, has subscribed again to everything). What replicas tell each
// other while a replica's pub/sub connection is down is lost to it: a
// readiness probe can use Healthy to take such a replica out of the load
// balancer until it is back.
func (s *Shared) Healthy(ctx context.Context) error {
	if err := s.c.Ping(ctx).Err(); err != nil {
		return err
	}
	stop, err := s.ps.subscribe(ctx, s.opts.Prefix+"health", func(string) {}, nil, false)
	if err != nil {
		return err
	}
	stop()
	return nil
}
