package replicabench

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rpcgen/rpcgen/bench/mcpbench/service"
	"github.com/rpcgen/rpcgen/ext/redis"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp/replicatest"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// setup is one impl's servers: its replicas, and the proxy in front of
// them when there is one.
type setup struct {
	URL        string // the endpoint the client calls
	servers    []*http.Server
	handlers   []*mcphttp.Handler
	closers    []func() error
	served     []*atomic.Int64 // requests each replica got
	roundTrips atomic.Int64    // to Redis, over every replica's client
}

// listen serves h on a new loopback listener and returns its base URL.
func (s *setup) listen(h http.Handler) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	s.servers = append(s.servers, hs)
	return "http://" + ln.Addr().String(), nil
}

// replica starts one replica: in memory when redisURL is "", else on Redis
// with its own client under prefix.
func (s *setup) replica(redisURL, prefix string) (string, error) {
	srvOpts := &mcpserver.Options{}
	var opts mcphttp.Options
	if redisURL != "" {
		c, err := redis.Connect(redisURL)
		if err != nil {
			return "", err
		}
		c.AddHook(counter{&s.roundTrips})
		sh := redis.New(c, redis.Options{Prefix: prefix})
		s.closers = append(s.closers, sh.Close, c.Close)
		opts.SessionStore, opts.EventStore, opts.Bus = sh.Sessions(), sh.Events(), sh.Bus()
		srvOpts.Bus = sh.Bus()
	}
	srv := mcpserver.New(mcp.Implementation{Name: "bench", Version: "1.0.0"}, srvOpts)
	srv.AddTools(service.BenchTools(service.Impl{})...)
	h := mcphttp.NewHandler(srv, &opts)
	s.handlers = append(s.handlers, h)
	n := new(atomic.Int64)
	s.served = append(s.served, n)
	return s.listen(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		h.ServeHTTP(w, r)
	}))
}

// start starts n replicas (on Redis when redisURL is set), behind a
// round-robin proxy when proxy is set.
func start(n int, redisURL, prefix string, proxy bool) (*setup, error) {
	s := &setup{}
	var bases []*url.URL
	for range n {
		base, err := s.replica(redisURL, prefix)
		if err != nil {
			s.Close()
			return nil, err
		}
		u, _ := url.Parse(base)
		bases = append(bases, u)
	}
	if !proxy {
		s.URL = bases[0].String() + "/mcp"
		return s, nil
	}
	var next atomic.Int64
	base, err := s.listen(replicatest.BufferBodies(&httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(bases[int(next.Add(1)-1)%len(bases)])
		},
		// Enough idle connections to each replica for 64 callers, as a
		// load balancer keeps.
		Transport:     &http.Transport{MaxIdleConns: 1024, MaxIdleConnsPerHost: 256, IdleConnTimeout: time.Minute, DisableCompression: true},
		FlushInterval: -1,
		BufferPool:    bufferPool{},
	}))
	if err != nil {
		s.Close()
		return nil, err
	}
	s.URL = base + "/mcp"
	return s, nil
}

// Close stops the servers and handlers and closes the Redis clients.
func (s *setup) Close() error {
	var errs []error
	for _, hs := range s.servers {
		errs = append(errs, hs.Close())
	}
	for _, h := range s.handlers {
		errs = append(errs, h.Close())
	}
	for _, c := range s.closers {
		errs = append(errs, c())
	}
	return errors.Join(errs...)
}

// bufferPool reuses the proxy's copy buffers (without one, ReverseProxy
// allocates 32 KiB per request).
type bufferPool struct{}

var buffers = sync.Pool{New: func() any { return make([]byte, 32<<10) }}

func (bufferPool) Get() []byte { return buffers.Get().([]byte) }

//lint:ignore SA6002 a slice header per Put is cheap next to 32 KiB
func (bufferPool) Put(b []byte) { buffers.Put(b) }

// counter is a go-redis hook that counts round trips: a command, or a
// pipeline of them.
type counter struct{ n *atomic.Int64 }

func (counter) DialHook(next goredis.DialHook) goredis.DialHook { return next }

func (c counter) ProcessHook(next goredis.ProcessHook) goredis.ProcessHook {
	return func(ctx context.Context, cmd goredis.Cmder) error {
		c.n.Add(1)
		return next(ctx, cmd)
	}
}

func (c counter) ProcessPipelineHook(next goredis.ProcessPipelineHook) goredis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []goredis.Cmder) error {
		c.n.Add(1)
		return next(ctx, cmds)
	}
}

// executed returns how many commands Redis has executed, INFO aside
// (INFO commandstats; a script's commands count as well as the script).
func executed(ctx context.Context, c *goredis.Client) (int64, error) {
	info, err := c.Info(ctx, "commandstats").Result()
	if err != nil {
		return 0, err
	}
	var total int64
	for line := range strings.SplitSeq(info, "\n") {
		name, rest, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || !strings.HasPrefix(name, "cmdstat_") || name == "cmdstat_info" {
			continue
		}
		calls, _, _ := strings.Cut(strings.TrimPrefix(rest, "calls="), ",")
		n, err := strconv.ParseInt(calls, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("INFO commandstats: %q: %w", line, err)
		}
		total += n
	}
	return total, nil
}

// redisCPU returns the CPU time redis-server has used (INFO cpu: user and
// system, its main thread and the others).
func redisCPU(ctx context.Context, c *goredis.Client) (time.Duration, error) {
	info, err := c.Info(ctx, "cpu").Result()
	if err != nil {
		return 0, err
	}
	var total float64
	for line := range strings.SplitSeq(info, "\n") {
		name, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || (name != "used_cpu_sys" && name != "used_cpu_user") {
			continue
		}
		secs, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return 0, fmt.Errorf("INFO cpu: %q: %w", line, err)
		}
		total += secs
	}
	return time.Duration(total * float64(time.Second)), nil
}
