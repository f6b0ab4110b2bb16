// Package replicatest checks that a SessionStore, a SharedEventStore and a
// Bus let several mcphttp Handlers serve one MCP server as replicas behind
// a load balancer: Run starts replicas on a backend of your making, puts a
// round-robin proxy in front of them (each request goes to the next
// replica) and checks, over real sockets, every behaviour a legacy session
// must keep when its requests land on different replicas. Package mcphttp
// runs it on its memory stores, package ext/redis on Redis; an
// implementation of your own can run it too.
package replicatest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/ask"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// Backend is what one replica is given: its view of the shared stores and
// bus (for a networked backend, its own connections to it).
type Backend struct {
	Sessions mcphttp.SessionStore
	Events   mcphttp.SharedEventStore
	Bus      mcpserver.Bus
}

// NewBackend returns a fresh backend, empty and apart from every other one
// (for Redis, a key prefix of its own): the function it returns makes each
// replica's view of it.
type NewBackend func(t *testing.T) func() Backend

// Replicas is how many replicas a cluster has.
const Replicas = 3

// WatchedURI is the resource the cluster's servers offer for subscriptions.
const WatchedURI = "test://watched"

// Cluster is Replicas handlers on one backend behind a round-robin proxy.
type Cluster struct {
	t        *testing.T
	URL      string // the proxy's MCP endpoint
	Servers  []*mcpserver.Server
	Handlers []*mcphttp.Handler
	backends []*httptest.Server
	served   []atomic.Int64 // requests each replica got
	down     []atomic.Bool
	next     atomic.Int64

	// Started gets the replica (its index) on which a blocking tool
	// started; Cancelled the one whose blocking tool saw its context end.
	Started, Cancelled chan int
}

// NewCluster starts a cluster on nb, with opts (copied) for every handler.
func NewCluster(t *testing.T, nb NewBackend, opts mcphttp.Options) *Cluster {
	t.Helper()
	replica := nb(t)
	c := &Cluster{t: t, served: make([]atomic.Int64, Replicas), down: make([]atomic.Bool, Replicas),
		Started: make(chan int, 16), Cancelled: make(chan int, 16)}
	for i := range Replicas {
		b := replica()
		srv := mcpserver.New(mcp.Implementation{Name: "replicas", Version: "1"}, &mcpserver.Options{Bus: b.Bus})
		srv.AddTools(c.tools(i)...)
		srv.AddResources(mcpserver.Resource{URI: WatchedURI, Name: "watched", Handler: func(context.Context, *mcpserver.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{URI: WatchedURI, Text: "watched"}}, nil
		}})
		o := opts
		o.SessionStore, o.EventStore, o.Bus = b.Sessions, b.Events, b.Bus
		h := mcphttp.NewHandler(srv, &o)
		ts := httptest.NewServer(c.count(i, h))
		c.Servers = append(c.Servers, srv)
		c.Handlers = append(c.Handlers, h)
		c.backends = append(c.backends, ts)
	}
	proxy := httptest.NewServer(BufferBodies(&httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			u, _ := url.Parse(c.backends[c.pick()].URL)
			pr.SetURL(u)
		},
		FlushInterval: -1,
		ErrorLog:      nil,
	}))
	c.URL = proxy.URL + "/mcp"
	t.Cleanup(func() {
		proxy.CloseClientConnections()
		proxy.Close()
		for i, h := range c.Handlers {
			h.Close()
			c.backends[i].CloseClientConnections()
			c.backends[i].Close()
		}
	})
	return c
}

// BufferBodies reads each request's body (up to 8 MiB) before h, a reverse
// proxy, forwards it, as load balancers do by default: streamed through, a
// body still being copied when the replica's response headers are flushed
// is cut by Go's HTTP/1 server, and the response stream with it. Test and
// benchmark proxies in front of replicas wrap their httputil.ReverseProxy
// with it.
func BufferBodies(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 8<<20))
			if err != nil {
				http.Error(w, "replicatest proxy: read the request body: "+err.Error(), http.StatusBadRequest)
				return
			}
			r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		}
		h.ServeHTTP(w, r)
	})
}

// pick returns the next replica that is up, round robin.
func (c *Cluster) pick() int {
	for {
		i := int(c.next.Add(1)-1) % Replicas
		if !c.down[i].Load() {
			return i
		}
	}
}

// Next returns the replica the proxy sends the next request to.
func (c *Cluster) Next() int {
	for k := int64(0); ; k++ {
		i := int(c.next.Load()+k) % Replicas
		if !c.down[i].Load() {
			return i
		}
	}
}

func (c *Cluster) count(i int, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.served[i].Add(1)
		h.ServeHTTP(w, r)
	})
}

// Served returns how many requests replica i got.
func (c *Cluster) Served(i int) int64 { return c.served[i].Load() }

// Kill stops replica i at once: its connections are cut and the proxy
// sends it nothing more.
func (c *Cluster) Kill(i int) {
	c.down[i].Store(true)
	c.backends[i].CloseClientConnections()
	c.Handlers[i].Close()
}

// tools are the tools of replica i.
func (c *Cluster) tools(i int) []mcpserver.Tool {
	obj := json.RawMessage(`{"type":"object"}`)
	return []mcpserver.Tool{
		{Name: "whoami", InputSchema: obj, Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) {
			return fmt.Appendf(nil, `{"replica":%d}`, i), nil
		}},
		{Name: "echo", InputSchema: obj, Handler: func(_ context.Context, args json.RawMessage) (json.RawMessage, error) {
			return args, nil
		}},
		// poll reports progress 1, makes the client poll (mcpserver.CloseStream),
		// waits a little, and reports 2 and 3 before its result.
		{Name: "poll", InputSchema: obj, Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			mcpserver.Progress(ctx, 1, 3, "one")
			mcpserver.CloseStream(ctx)
			mcpserver.Progress(ctx, 2, 3, "two")
			mcpserver.Log(ctx, mcp.LevelInfo, "poll", "between")
			mcpserver.Progress(ctx, 3, 3, "three")
			return fmt.Appendf(nil, `{"replica":%d}`, i), nil
		}},
		{Name: "block", InputSchema: obj, Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			mcpserver.Progress(ctx, 1, 0, "started")
			c.Started <- i
			<-ctx.Done()
			c.Cancelled <- i
			return nil, ctx.Err()
		}},
		{Name: "ask", InputSchema: obj, Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			r, err := ask.Elicit(ctx, &mcp.ElicitParams{Message: "name?", RequestedSchema: json.RawMessage(
				`{"type":"object","properties":{"name":{"type":"string"}}}`)})
			if err != nil {
				return nil, err
			}
			return fmt.Appendf(nil, `{"replica":%d,"action":%q,"content":%s}`, i, r.Action, orNull(r.Content)), nil
		}},
		{Name: "sample", InputSchema: obj, Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			r, err := ask.Sample(ctx, &mcp.CreateMessageParams{MaxTokens: 10,
				Messages: []mcp.SamplingMessage{{Role: "user", Content: mcp.TextContent("hi")}}})
			if err != nil {
				return nil, err
			}
			return fmt.Appendf(nil, `{"replica":%d,"text":%q}`, i, r.Content.Text), nil
		}},
		// touch changes test://watched on this replica.
		{Name: "touch", InputSchema: obj, Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) {
			c.Servers[i].ResourceUpdated(WatchedURI)
			return fmt.Appendf(nil, `{"replica":%d}`, i), nil
		}},
	}
}

func orNull(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage("null")
	}
	return b
}

// recv returns the next value of ch, or fails the test after a while.
func recv[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}
