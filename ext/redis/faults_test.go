package redis_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/ext/redis"
	"github.com/rpcgen/rpcgen/ext/redis/internal/redistest"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp/replicatest"
)

// modernCall is a 2026-07-28 tools/call, which needs no shared state.
func modernCall(t *testing.T, c *replicatest.Cluster) (int, string) {
	x := c.NewWire(t)
	x.Version = mcp.Version20260728
	resp := x.Do(http.MethodPost, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"whoami","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
		"Mcp-Method", "tools/call", "Mcp-Name", "whoami")
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// With Redis hung (SIGSTOP) and then gone (killed), a session's requests
// get 503 with a JSON-RPC error within a bounded time, 2026-07-28
// requests are served, nothing panics; a Redis that answers again serves
// the same session, and one restarted empty serves new sessions, across
// replicas (pub/sub subscribed again).
func TestRedisDown(t *testing.T) {
	rs := redistest.Start(t)
	const timeout = 500 * time.Millisecond
	var shared []*redis.Shared
	c := replicatest.NewCluster(t, backendOf(rs, &shared), mcphttp.Options{StoreTimeout: timeout})
	w := c.NewWire(t)
	w.Initialize(mcp.Version20251125, `{}`)
	down := func(what string) {
		t.Helper()
		for k := range replicatest.Replicas {
			start := time.Now()
			st, body := w.Call(100+k, "whoami", `{}`)
			if took := time.Since(start); took > timeout+3*time.Second {
				t.Errorf("%s: the 503 took %v", what, took)
			}
			if st != http.StatusServiceUnavailable || !strings.Contains(string(body), `"error"`) {
				t.Errorf("%s: %d %s, want 503 with a JSON-RPC error", what, st, body)
			}
		}
		if st, body := modernCall(t, c); st != http.StatusOK || !strings.Contains(body, "replica") {
			t.Errorf("%s: a 2026-07-28 call got %d %s", what, st, body)
		}
	}

	rs.Pause()
	down("Redis hung")
	rs.Resume()
	for k := range replicatest.Replicas {
		if st, body := w.Call(200+k, "whoami", `{}`); st != http.StatusOK {
			t.Fatalf("after Redis answered again: %d %s", st, body)
		}
	}

	rs.Stop()
	down("Redis down")
	rs.Restart() // empty: the session is gone
	if st, body := w.Call(300, "whoami", `{}`); st != http.StatusNotFound {
		t.Errorf("a session Redis lost: %d %s, want 404", st, body)
	}
	// Each replica's pub/sub connection subscribes again (what a readiness
	// probe waits for); then new sessions work on every replica, and the
	// replicas hear each other again: the bus and the wake channels.
	for _, sh := range shared {
		deadline := time.Now().Add(20 * time.Second)
		for {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			err := sh.Healthy(ctx)
			cancel()
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("a replica did not reach Redis again: %v", err)
			}
		}
	}
	replicatest.CheckAnswer(t, c)
	replicatest.CheckStandalone(t, c)
	x := c.NewWire(t)
	x.Initialize(mcp.Version20251125, `{}`)
	for k := range replicatest.Replicas {
		if st, body := x.Call(400+k, "whoami", `{}`); st != http.StatusOK {
			t.Errorf("a new session after the restart: %d %s", st, body)
		}
	}
}
