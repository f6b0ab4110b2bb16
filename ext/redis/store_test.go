package redis_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rpcgen/rpcgen/ext/redis"
	"github.com/rpcgen/rpcgen/ext/redis/internal/redistest"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

func newShared(t *testing.T, rs *redistest.Server, opts redis.Options) (*redis.Shared, *goredis.Client) {
	t.Helper()
	c, err := redis.Connect(rs.URL())
	if err != nil {
		t.Fatal(err)
	}
	if opts.Prefix == "" {
		opts.Prefix = "test:" + rand.Text()[:8] + ":"
	}
	sh := redis.New(c, opts)
	t.Cleanup(func() { sh.Close(); c.Close() })
	return sh, c
}

// keyEvents has Redis (the test's own redis-server) publish its keyevents,
// and returns them: how a test sees keys expire on Redis's own clock.
func keyEvents(t *testing.T, c *goredis.Client) <-chan *goredis.Message {
	t.Helper()
	ctx := context.Background()
	if err := c.ConfigSet(ctx, "notify-keyspace-events", "EA").Err(); err != nil {
		t.Fatal(err)
	}
	sub := c.PSubscribe(ctx, "__keyevent@0__:*")
	t.Cleanup(func() { sub.Close() })
	if _, err := sub.Receive(ctx); err != nil { // the subscription is live
		t.Fatal(err)
	}
	return sub.Channel()
}

// waitGone waits until key no longer exists, looking again at each keyevent
// (an expiry, a deletion, any write), and fails after 5s.
func waitGone(t *testing.T, c *goredis.Client, events <-chan *goredis.Message, key string) {
	t.Helper()
	timeout := time.NewTimer(5 * time.Second)
	defer timeout.Stop()
	for c.Exists(context.Background(), key).Val() == 1 {
		select {
		case <-events:
		case <-timeout.C:
			t.Fatalf("%s did not expire within 5s", key)
		}
	}
}

func stored(id string) *mcphttp.StoredSession {
	return &mcphttp.StoredSession{ID: id, State: mcpserver.SessionState{ProtocolVersion: mcp.Version20251125, Features: []string{"resources"}}, Created: time.Now()}
}

// The session limit holds under concurrent creates: exactly max succeed.
func TestLimitAtomic(t *testing.T) {
	rs := redistest.Start(t)
	sh, _ := newShared(t, rs, redis.Options{})
	ctx := context.Background()
	var ok, full atomic.Int32
	var wg sync.WaitGroup
	for range 40 {
		wg.Go(func() {
			switch err := sh.Sessions().Create(ctx, stored(rand.Text()), 7, time.Minute); err {
			case nil:
				ok.Add(1)
			case mcphttp.ErrTooManySessions:
				full.Add(1)
			default:
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if ok.Load() != 7 || full.Load() != 33 {
		t.Errorf("%d created, %d refused; want 7 and 33", ok.Load(), full.Load())
	}
}

// A session's keys expire with its idle timeout, which Touch pushes back;
// an expired session is gone, and frees its slot.
func TestTTLFollowsIdleTimeout(t *testing.T) {
	rs := redistest.Start(t)
	prefix := "ttl:" + rand.Text()[:8] + ":"
	sh, c := newShared(t, rs, redis.Options{Prefix: prefix})
	ctx := context.Background()
	st := sh.Sessions()
	if err := st.Create(ctx, stored("a"), 1, 10*time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := sh.Events().Append(ctx, "a", "0", nil); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{prefix + "{a}:s", prefix + "{a}:e"} {
		if ttl := c.PTTL(ctx, key).Val(); ttl <= 9*time.Minute || ttl > 10*time.Minute {
			t.Errorf("%s: TTL %v, want the idle timeout", key, ttl)
		}
	}
	events := keyEvents(t, c) // Redis expires keys on its own clock, and says so
	if _, err := st.Touch(ctx, "a", 50*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if ttl := c.PTTL(ctx, prefix+"{a}:s").Val(); ttl > 50*time.Millisecond {
		t.Errorf("after Touch: TTL %v", ttl)
	}
	waitGone(t, c, events, prefix+"{a}:s")
	if _, err := st.Touch(ctx, "a", time.Minute); err != mcphttp.ErrSessionNotFound {
		t.Errorf("Touch of an expired session: %v", err)
	}
	if err := st.Create(ctx, stored("b"), 1, time.Minute); err != nil {
		t.Errorf("the expired session still takes its slot: %v", err)
	}
}

// A session's events are bounded (XADD MAXLEN ~): old ones go, and a
// resume from one of them replays those kept, and logs that the others
// are lost to the client.
func TestEventsBounded(t *testing.T) {
	rs := redistest.Start(t)
	prefix := "max:" + rand.Text()[:8] + ":"
	var logs bytes.Buffer
	sh, c := newShared(t, rs, redis.Options{Prefix: prefix, MaxEvents: 100, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	ctx := context.Background()
	if err := sh.Sessions().Create(ctx, stored("a"), 10, time.Minute); err != nil {
		t.Fatal(err)
	}
	ev := sh.Events()
	first, err := ev.Append(ctx, "a", "s1", []byte(`{"n":0}`))
	if err != nil {
		t.Fatal(err)
	}
	var last string
	for i := range 5000 {
		if last, err = ev.Append(ctx, "a", "s1", []byte(`{"n":1}`)); err != nil {
			t.Fatal(i, err)
		}
	}
	if n := c.XLen(ctx, prefix+"{a}:e").Val(); n > 300 {
		t.Errorf("%d events kept, want about 100", n)
	}
	kept := c.XLen(ctx, prefix+"{a}:e").Val()
	n := 0
	if _, err := ev.Replay(ctx, "a", first, func(string, []byte) error { n++; return nil }); err != nil || int64(n) != kept {
		t.Errorf("resume from a trimmed event: %d events, %v; want the %d kept", n, err, kept)
	}
	if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "trimmed off") {
		t.Errorf("the resume from a trimmed event is not logged as a warning: %s", logs.String())
	}
	n = 0
	if _, err := ev.Replay(ctx, "a", last, func(string, []byte) error { n++; return nil }); err != nil || n != 0 {
		t.Errorf("resume from the last event: %d events, %v", n, err)
	}
	// Nothing is stored for a session that is gone.
	if _, err := ev.Append(ctx, "gone", "s1", []byte(`{}`)); err == nil {
		t.Error("Append for a session that does not exist succeeded")
	}
}

// Of two claims of one answer, the first wins.
func TestClaimFirstWins(t *testing.T) {
	rs := redistest.Start(t)
	sh, _ := newShared(t, rs, redis.Options{})
	ctx := context.Background()
	var wins atomic.Int32
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			if ok, err := sh.Sessions().Claim(ctx, "a", `"r.1"`, time.Minute); err != nil {
				t.Error(err)
			} else if ok {
				wins.Add(1)
			}
		})
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Errorf("%d claims won, want 1", wins.Load())
	}
}

// An event id of the right form that Redis does not have (a failover to a
// replica that lacked the primary's last writes, a crash before the
// append-only file synced them) is a position in its stream: a resume
// from it replays that stream's later events, not 400 "unknown
// Last-Event-ID", and never another stream's. An id of another stream's
// event, or of no form Append makes, is unknown.
func TestReplayFromAMissingEvent(t *testing.T) {
	rs := redistest.Start(t)
	prefix := "lost:" + rand.Text()[:8] + ":"
	var logs bytes.Buffer
	sh, c := newShared(t, rs, redis.Options{Prefix: prefix, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	ctx := context.Background()
	if err := sh.Sessions().Create(ctx, stored("a"), 10, time.Minute); err != nil {
		t.Fatal(err)
	}
	ev := sh.Events()
	appendTo := func(stream, msg string) string {
		t.Helper()
		id, err := ev.Append(ctx, "a", stream, []byte(msg))
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	appendTo("s1", `{"n":1}`)
	other := appendTo("s2", `{"other":1}`)
	lost := appendTo("s1", `{"n":2}`)
	// The last write is lost, as the new primary of a failover lacks it.
	_, entry, _ := strings.Cut(lost, "_")
	if err := c.XDel(ctx, prefix+"{a}:e", entry).Err(); err != nil {
		t.Fatal(err)
	}
	appendTo("s2", `{"other":2}`)
	appendTo("s1", `{"n":3}`)
	appendTo("s1", "") // a priming event: never replayed
	var got []string
	name, err := ev.Replay(ctx, "a", lost, func(_ string, msg []byte) error { got = append(got, string(msg)); return nil })
	if err != nil || name != "s1" || fmt.Sprint(got) != `[{"n":3}]` {
		t.Errorf("resume from a lost event: stream %q, %v, %v; want s1's later event", name, got, err)
	}
	if !strings.Contains(logs.String(), "level=INFO") || !strings.Contains(logs.String(), "does not have") {
		t.Errorf("the resume from a lost event is not logged: %s", logs.String())
	}
	// An id past every entry (the lost tail of a stream that got nothing
	// since): nothing yet, and the stream goes on from there.
	_, last, _ := strings.Cut(appendTo("s1", `{"n":4}`), "_")
	ms, _, _ := strings.Cut(last, "-")
	future := fmt.Sprintf("s1_%s-%d", ms, 1<<40)
	got = nil
	if name, err := ev.Replay(ctx, "a", future, func(_ string, msg []byte) error { got = append(got, string(msg)); return nil }); err != nil || name != "s1" || len(got) != 0 {
		t.Errorf("resume from past the last event: stream %q, %v, %v; want s1, nothing", name, got, err)
	}
	for _, bad := range []string{"s1" + other[2:], "s1", "s1_12", "s1_a-1", "_1-1", ""} {
		if _, err := ev.Replay(ctx, "a", bad, func(string, []byte) error { return nil }); err != mcphttp.ErrUnknownEvent {
			t.Errorf("resume from %q: %v, want ErrUnknownEvent", bad, err)
		}
	}
}
