package redis_test

import (
	"crypto/rand"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/ext/redis"
	"github.com/rpcgen/rpcgen/ext/redis/internal/redistest"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp/replicatest"
)

// backend returns a NewBackend on the Redis server rs: each cluster gets a
// key prefix of its own, each replica a client and pub/sub connection of
// its own.
func backend(rs *redistest.Server) replicatest.NewBackend { return backendOf(rs, nil) }

// backendOf is backend, recording each replica's Shared in made.
func backendOf(rs *redistest.Server, made *[]*redis.Shared) replicatest.NewBackend {
	return func(t *testing.T) func() replicatest.Backend {
		prefix := "test:" + rand.Text()[:8] + ":"
		return func() replicatest.Backend {
			c, err := redis.Connect(rs.URL())
			if err != nil {
				t.Fatal(err)
			}
			sh := redis.New(c, redis.Options{Prefix: prefix})
			t.Cleanup(func() { sh.Close(); c.Close() })
			if made != nil {
				*made = append(*made, sh)
			}
			return replicatest.Backend{Sessions: sh.Sessions(), Events: sh.Events(), Bus: sh.Bus()}
		}
	}
}

// TestReplicas runs the multi-replica checks on three handlers sharing a
// real redis-server.
func TestReplicas(t *testing.T) {
	rs := redistest.Start(t)
	replicatest.Run(t, backend(rs))
}

// Connect bounds every command at a second unless the URL says otherwise,
// and takes go-redis's other URL options; master_name makes a failover
// client (failover_test.go connects one to real Sentinels).
func TestConnectOptions(t *testing.T) {
	for _, tc := range []struct {
		url               string
		read, write, dial time.Duration
		retries, pool     int
	}{
		{"redis://127.0.0.1:6379/0", time.Second, time.Second, time.Second, 1, 0},
		// max_retries=-1 disables retries: go-redis keeps 0.
		{"redis://127.0.0.1:6379/0?read_timeout=3s&max_retries=-1&pool_size=7", 3 * time.Second, 3 * time.Second, time.Second, 0, 7},
		{"redis://127.0.0.1:26379/0?master_name=m&addr=127.0.0.1:26380&dial_timeout=2s", time.Second, time.Second, 2 * time.Second, 1, 0},
	} {
		c, err := redis.Connect(tc.url)
		if err != nil {
			t.Errorf("%s: %v", tc.url, err)
			continue
		}
		o := c.Options()
		if o.ReadTimeout != tc.read || o.WriteTimeout != tc.write || o.DialTimeout != tc.dial || o.MaxRetries != tc.retries ||
			(tc.pool != 0 && o.PoolSize != tc.pool) || !o.ContextTimeoutEnabled {
			t.Errorf("%s: read %v, write %v, dial %v, retries %d, pool %d, context timeouts %v", tc.url,
				o.ReadTimeout, o.WriteTimeout, o.DialTimeout, o.MaxRetries, o.PoolSize, o.ContextTimeoutEnabled)
		}
		c.Close()
	}
	for _, bad := range []string{"http://x", "redis://127.0.0.1:6379/0?no_such_option=1", "redis://127.0.0.1:26379/0?master_name=m&addr=nope"} {
		if c, err := redis.Connect(bad); err == nil {
			c.Close()
			t.Errorf("Connect(%q) accepted it", bad)
		}
	}
}
