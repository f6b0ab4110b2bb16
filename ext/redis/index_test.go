package redis_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/ext/redis"
	"github.com/rpcgen/rpcgen/ext/redis/internal/redistest"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp"
)

// TestSubscriptionIndexBounded: the per-resource subscription indexes
// (<prefix>u:<uri>) are bounded by the live sessions. A client that
// subscribes to many resources and vanishes (no DELETE, no notification)
// leaves no index behind once its session expires; a session that expired
// leaves an index still used by others when the next one subscribes; and
// a Touch that refreshes a session pushes back its indexes' TTLs.
func TestSubscriptionIndexBounded(t *testing.T) {
	rs := redistest.Start(t)
	prefix := "idx:" + rand.Text()[:8] + ":"
	sh, c := newShared(t, rs, redis.Options{Prefix: prefix})
	ctx := context.Background()
	events := keyEvents(t, c) // Redis expires keys on its own clock, and says so
	st := sh.Sessions()
	create := func(id string, ttl time.Duration, uris ...string) {
		t.Helper()
		if err := st.Create(ctx, stored(id), 100, ttl); err != nil {
			t.Fatal(err)
		}
		for _, u := range uris {
			if err := st.Update(ctx, id, mcphttp.SessionUpdate{Subscribe: u}); err != nil {
				t.Fatal(err)
			}
		}
	}
	indexes := func() []string {
		t.Helper()
		keys, err := c.Keys(ctx, prefix+"u:*").Result()
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(keys)
		return keys
	}
	subscribed := func(uri string) []string {
		t.Helper()
		var ids []string
		if err := st.Match(ctx, mcphttp.Audience{URI: uri}, func(id string) bool { ids = append(ids, id); return true }); err != nil {
			t.Fatal(err)
		}
		slices.Sort(ids)
		return ids
	}
	// gone waits, on Redis's clock, for key to expire.
	gone := func(key string) {
		t.Helper()
		waitGone(t, c, events, key)
	}

	// A session subscribed to 50 resources: each index has a TTL no
	// longer than the session's.
	var many []string
	for i := range 50 {
		many = append(many, fmt.Sprintf("test://many/%d", i))
	}
	create("vanishing", 300*time.Millisecond, many...)
	if n := len(indexes()); n != 50 {
		t.Fatalf("%d indexes, want 50", n)
	}
	for _, u := range many[:3] {
		if ttl := c.PTTL(ctx, prefix+"u:"+u).Val(); ttl <= 0 || ttl > 300*time.Millisecond {
			t.Errorf("index of %s: TTL %v, want at most the session's 300ms", u, ttl)
		}
	}
	// Each index expires with the session, or a millisecond after it: the
	// script reads the session's PTTL and sets the index's PEXPIRE at two
	// moments of Redis's clock, which a millisecond may divide (1 run in 5
	// on Redis 7.0). So wait for each, on Redis's clock; one without a TTL
	// would fail here after 5s.
	gone(prefix + "{vanishing}:s")
	for _, u := range many {
		gone(prefix + "u:" + u)
	}
	if keys := indexes(); len(keys) != 0 {
		t.Errorf("after the session expired: %d indexes left (%s, ...)", len(keys), keys[0])
	}

	// A long session and a short one on one resource; the short one
	// expires, and the next subscription drops its entry.
	create("long", time.Minute, "test://shared")
	create("short", 100*time.Millisecond, "test://shared")
	gone(prefix + "{short}:s")
	create("next", time.Minute, "test://shared")
	members := c.ZRange(ctx, prefix+"u:test://shared", 0, -1).Val()
	slices.Sort(members)
	if !slices.Equal(members, []string{"long", "next"}) {
		t.Errorf("index of test://shared holds %v, want [long next]", members)
	}
	if ttl := c.PTTL(ctx, prefix+"u:test://shared").Val(); ttl < 50*time.Second {
		t.Errorf("index of test://shared: TTL %v, want about the live sessions' minute", ttl)
	}
	if got := subscribed("test://shared"); !slices.Equal(got, []string{"long", "next"}) {
		t.Errorf("Match: %v", got)
	}

	// Touch refreshes a session's indexes with it.
	create("touched", 500*time.Millisecond, "test://touched")
	if _, err := st.Touch(ctx, "touched", time.Minute); err != nil {
		t.Fatal(err)
	}
	key := prefix + "u:test://touched"
	if ttl := c.PTTL(ctx, key).Val(); ttl < 50*time.Second {
		t.Errorf("after Touch: index TTL %v, want about a minute", ttl)
	}
	score := c.ZScore(ctx, key, "touched").Val()
	hashExpiry := c.PExpireTime(ctx, prefix+"{touched}:s").Val()
	if d := time.Duration(float64(time.Millisecond) * (score - float64(hashExpiry.Milliseconds()))); d < -time.Second || d > time.Second {
		t.Errorf("the index entry expires %v from the session", d)
	}
	// Unsubscribe and DELETE remove entries at once.
	if err := st.Update(ctx, "touched", mcphttp.SessionUpdate{Unsubscribe: "test://touched"}); err != nil {
		t.Fatal(err)
	}
	if n := c.ZCard(ctx, key).Val(); n != 0 {
		t.Errorf("after Unsubscribe: %d entries", n)
	}
	if _, err := st.Delete(ctx, "long"); err != nil {
		t.Fatal(err)
	}
	if got := subscribed("test://shared"); !slices.Equal(got, []string{"next"}) {
		t.Errorf("after DELETE: %v", got)
	}
	if typ := c.Type(ctx, prefix+"u:test://shared").Val(); typ != "zset" {
		t.Errorf("index type %q", typ)
	}
}
