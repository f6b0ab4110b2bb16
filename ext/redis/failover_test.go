package redis_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/ext/redis"
	"github.com/rpcgen/rpcgen/ext/redis/redistest"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp/replicatest"
)

// sentinelBackend is backendOf on the failover client of ss.
func sentinelBackend(ss *redistest.Sentinels, made *[]*redis.Shared) replicatest.NewBackend {
	return func(t *testing.T) func() replicatest.Backend {
		prefix := "test:" + rand.Text()[:8] + ":"
		return func() replicatest.Backend {
			c, err := redis.Connect(ss.URL())
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

// logText is the text of a notifications/message the tests send.
func logText(m replicatest.Message) string {
	var p struct {
		Data string `json:"data"`
	}
	_ = json.Unmarshal(m.Params, &p)
	return p.Data
}

// TestSentinelFailover: three replicas on a failover client, a primary,
// its replica and three Sentinels. A session's standalone stream has
// delivered a log message that the replica never got (replication held
// back, as when a primary dies before replicating its last writes); the
// Sentinels fail over to the replica. The stream goes on (resumed with
// Last-Event-ID if it broke, answered 200, not 400 "unknown
// Last-Event-ID"), delivers what the replicas log after the failover, and
// the session keeps working.
func TestSentinelFailover(t *testing.T) {
	ss := redistest.StartSentinels(t)
	var shared []*redis.Shared
	c := replicatest.NewCluster(t, sentinelBackend(ss, &shared), mcphttp.Options{StoreTimeout: time.Second})
	w := c.NewWire(t)
	w.Initialize(mcp.Version20251125, `{}`)
	sw := *w
	sw.HTTP = &http.Client{}
	s := replicatest.NewStream(sw.Do(http.MethodGet, ""))
	if m, err := s.Next(); err != nil || m.Raw != "" {
		t.Fatalf("the stream's priming event: %+v, %v", m, err)
	}
	// A reader delivers the stream's log messages, resuming the stream
	// with Last-Event-ID whenever it ends; it stops at a resume not
	// answered 200, or when the test ends.
	texts, failed := make(chan string, 64), make(chan string, 1)
	stop, done := make(chan struct{}), make(chan struct{})
	var mu sync.Mutex // guards s, which the cleanup closes
	go func() {
		defer close(done)
		for {
			mu.Lock()
			cur := s
			mu.Unlock()
			m, err := cur.Next()
			if err == nil {
				if m.Method == "notifications/message" {
					texts <- logText(m)
				}
				continue
			}
			select {
			case <-stop:
				return
			default:
			}
			last := cur.LastEventID()
			cur.Close()
			resp := sw.Do(http.MethodGet, "", "Last-Event-ID", last)
			if resp.StatusCode != http.StatusOK {
				b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
				resp.Body.Close()
				failed <- fmt.Sprintf("resuming from %s after %v: %d %s", last, err, resp.StatusCode, b)
				return
			}
			mu.Lock()
			s = replicatest.NewStream(resp)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		close(stop)
		mu.Lock()
		s.Close()
		mu.Unlock()
		<-done
	})
	next := func(what string) string {
		t.Helper()
		select {
		case text := <-texts:
			return text
		case msg := <-failed:
			t.Fatal(msg)
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: nothing within 20s", what)
		}
		return ""
	}
	c.Servers[0].Log(mcp.LevelWarning, "ops", "before")
	if got := next("before"); got != "before" {
		t.Fatalf("got %q, want before", got)
	}
	ss.HoldReplication()
	c.Servers[1].Log(mcp.LevelWarning, "ops", "held")
	if got := next("held"); got != "held" {
		t.Fatalf("got %q, want held", got)
	}
	if err := ss.Failover(); err != nil {
		t.Fatal(err)
	}
	// The replicas reach the new primary: a log message each until one
	// comes through.
	deadline := time.Now().Add(30 * time.Second)
	for k := 0; ; k++ {
		c.Servers[k%replicatest.Replicas].Log(mcp.LevelWarning, "ops", fmt.Sprintf("after%d", k))
		select {
		case g := <-texts:
			if !strings.HasPrefix(g, "after") {
				t.Fatalf("got %q after the failover", g)
			}
			t.Logf("after the failover the stream delivered %s", g)
			goto delivered
		case msg := <-failed:
			t.Fatal(msg)
		case <-time.After(2 * time.Second):
		}
		if time.Now().After(deadline) {
			t.Fatal("nothing logged after the failover reached the stream within 30s")
		}
	}
delivered:
	for k := range replicatest.Replicas {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		for ctx.Err() == nil {
			if st, _ := w.Call(100+k, "whoami", `{}`); st == http.StatusOK {
				break
			}
		}
		if ctx.Err() != nil {
			t.Errorf("the session does not work on replica %d after the failover", k)
		}
		cancel()
	}
	// The replicas hear each other on the new primary: the bus (an
	// answer to an elicitation, POSTed to another replica) and the wake
	// channels (a standalone stream hearing every replica).
	replicatest.CheckAnswer(t, c)
	replicatest.CheckStandalone(t, c)
	for i, sh := range shared {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := sh.Healthy(ctx); err != nil {
			t.Errorf("replica %d is not ready after the failover: %v", i, err)
		}
		cancel()
	}
}
