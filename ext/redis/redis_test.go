package redis_test

import (
	"crypto/rand"
	"testing"

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
