package redis_test

import (
	"context"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/ext/redis/internal/redistest"
	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
)

// TestKillListenReplica: a 2026-07-28 client subscribed to a resource has
// its subscriptions/listen stream on one replica process, which is killed
// (SIGKILL). The client opens the stream again on another replica, and a
// change made by a call on a third replica reaches its handler, as do the
// later ones, each once. (Updates made while no stream was open are not
// replayed: that revision's streams are not resumable.)
func TestKillListenReplica(t *testing.T) {
	rs := redistest.Start(t)
	c := startProcs(t, rs)
	updates := make(chan string, 64)
	cl := connect(t, c.URL, mcpclient.Options{ProtocolVersion: mcp.Version20260728,
		OnResourceUpdated: func(uri string) { updates <- uri },
		Retry:             runtime.RetryPolicy{MinDelay: 10 * time.Millisecond, MaxDelay: 200 * time.Millisecond},
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := cl.Subscribe(ctx, "test://watched"); err != nil {
		t.Fatal(err)
	}
	touch := func() {
		t.Helper()
		if err := cl.CallTool(ctx, "touch", nil, nil); err != nil {
			t.Fatalf("touch: %v", err)
		}
	}
	hear := func(within time.Duration) bool {
		select {
		case uri := <-updates:
			if uri != "test://watched" {
				t.Fatalf("update of %q", uri)
			}
			return true
		case <-time.After(within):
			return false
		}
	}
	touch()
	if !hear(10 * time.Second) {
		t.Fatal("no update before the kill")
	}
	victim := -1
	for i := range 3 {
		if c.proxy.Listens(i) == 1 {
			victim = i
		}
	}
	if victim < 0 {
		t.Fatal("no replica holds the listen stream")
	}
	c.kill(t, victim)
	t.Logf("killed replica %d, which held the listen stream", victim)

	// The stream is open again once an update made elsewhere is heard;
	// until then a touch may fall in the gap, unheard.
	heard := false
	for n := 0; n < 40 && !heard; n++ {
		touch()
		heard = hear(500 * time.Millisecond)
	}
	if !heard {
		t.Fatal("no update reached the client after the kill: the listen stream was not opened again")
	}
	for len(updates) > 0 { // a late update of a touch made in the gap
		<-updates
	}
	open := int64(0)
	for i := range 3 {
		if i != victim {
			open += c.proxy.Listens(i)
		}
	}
	if open != 1 {
		t.Errorf("%d listen streams open on the live replicas, want 1", open)
	}
	for k := range 5 {
		touch()
		if !hear(10 * time.Second) {
			t.Fatalf("update %d after the re-open not heard", k)
		}
	}
	if hear(200 * time.Millisecond) {
		t.Error("an update heard twice")
	}
}
