package mcphttp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
)

func replayAll(t *testing.T, s EventStore, session, last string) (string, []string, error) {
	t.Helper()
	var got []string
	name, err := s.Replay(context.Background(), session, last, func(id string, msg []byte) error {
		got = append(got, id+"="+string(msg))
		return nil
	})
	return name, got, err
}

func TestMemoryEventStore(t *testing.T) {
	ctx := context.Background()
	s := NewMemoryEventStore(0)
	add := func(session, stream, msg string) string {
		id, err := s.Append(ctx, session, stream, []byte(msg))
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	p1 := add("s", "1", "")
	a := add("s", "1", "a")
	p2 := add("s", "2", "")
	x := add("s", "2", "x")
	b := add("s", "1", "b")
	other := add("t", "1", "o")
	ids := map[string]bool{}
	for _, id := range []string{p1, a, p2, x, b} {
		if ids[id] {
			t.Fatalf("duplicate id %s", id)
		}
		ids[id] = true
	}
	if streamOf(t, a) != "1" || streamOf(t, x) != "2" {
		t.Fatalf("ids %s %s do not name their streams", a, x)
	}
	// Replay sends the stream's later events only, skipping priming events.
	name, got, err := replayAll(t, s, "s", p1)
	if err != nil || name != "1" || strings.Join(got, ",") != a+"=a,"+b+"=b" {
		t.Fatalf("replay from %s: %q %v %v", p1, name, got, err)
	}
	name, got, err = replayAll(t, s, "s", x)
	if err != nil || name != "2" || len(got) != 0 {
		t.Fatalf("replay from %s: %q %v %v", x, name, got, err)
	}
	for _, bad := range []string{"", "nope", "1_", "1_x", "1_0", "9_1", "1_99", "1_3"} {
		if _, _, err := replayAll(t, s, "s", bad); !errors.Is(err, ErrUnknownEvent) {
			t.Errorf("replay from %q: %v, want ErrUnknownEvent", bad, err)
		}
	}
	// An error from send stops the replay.
	stop := errors.New("stop")
	if _, err := s.Replay(ctx, "s", p1, func(string, []byte) error { return stop }); err != stop {
		t.Fatalf("replay: %v, want the send error", err)
	}
	if err := s.DeleteSession(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := replayAll(t, s, "s", p1); !errors.Is(err, ErrUnknownEvent) {
		t.Fatalf("replay after DeleteSession: %v", err)
	}
	if _, _, err := replayAll(t, s, "t", other); err != nil {
		t.Fatalf("the other session lost its events: %v", err)
	}
}

func TestMemoryEventStoreEviction(t *testing.T) {
	ctx := context.Background()
	s := NewMemoryEventStore(10 * (memEventOverhead + 10))
	var ids []string
	for i := range 1000 {
		id, err := s.Append(ctx, "s", "1", fmt.Appendf(nil, "message%03d", i))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	// The oldest are gone; the newest ten remain, in order.
	if _, _, err := replayAll(t, s, "s", ids[0]); !errors.Is(err, ErrUnknownEvent) {
		t.Fatalf("replay from an evicted event: %v", err)
	}
	_, got, err := replayAll(t, s, "s", ids[990])
	if err != nil || len(got) != 9 || !strings.HasSuffix(got[8], "message999") {
		t.Fatalf("replay: %v %v", got, err)
	}
	if n := s.sessions["s"].n; n != 10 {
		t.Fatalf("%d events kept, want 10", n)
	}
	// One event bigger than the bound is kept, as the newest.
	big, _ := s.Append(ctx, "s", "2", make([]byte, 5000))
	if _, got, err := replayAll(t, s, "s", big); err != nil || len(got) != 0 {
		t.Fatalf("replay from a big event: %v %v", got, err)
	}
	if _, _, err := replayAll(t, s, "s", ids[999]); !errors.Is(err, ErrUnknownEvent) {
		t.Fatalf("a big event did not evict the others: %v", err)
	}
}

// TestMemoryEventStoreBlocks appends events of two streams, priming events
// among them, across many blocks, with eviction, and replays from every
// live event and from evicted ones.
func TestMemoryEventStoreBlocks(t *testing.T) {
	ctx := context.Background()
	const live = 700 // events of 6-byte messages the bound holds
	s := NewMemoryEventStore(live * (memEventOverhead + 6))
	type ev struct{ id, stream, msg string }
	var all []ev
	for i := range 5000 {
		stream := []string{"a", "b"}[i%3%2]
		msg := fmt.Sprintf("m%05d", i)
		if i%7 == 0 {
			msg = "" // a priming event
		}
		id, err := s.Append(ctx, "s", stream, []byte(msg))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, ev{id, stream, msg})
		if i%499 != 0 && i != 4999 {
			continue
		}
		n := s.sessions["s"].n
		if n < min(i+1, live) || n > i+1 || n > live+live/6 {
			t.Fatalf("after %d events %d live, want about %d", i+1, n, live)
		}
		for j, from := range all {
			name, got, err := replayAll(t, s, "s", from.id)
			if j < len(all)-n {
				if !errors.Is(err, ErrUnknownEvent) {
					t.Fatalf("replay from evicted %s: %v", from.id, err)
				}
				continue
			}
			var want []string
			for _, e := range all[j+1:] {
				if e.stream == from.stream && e.msg != "" {
					want = append(want, e.id+"="+e.msg)
				}
			}
			if err != nil || name != from.stream || strings.Join(got, " ") != strings.Join(want, " ") {
				t.Fatalf("replay from %s after %d events: %q %v\ngot  %q\nwant %q", from.id, i+1, name, err, got, want)
			}
		}
	}
	// Once full, an event costs its id alone: the blocks evicted are reused.
	msg := []byte("m00000")
	if n := testing.AllocsPerRun(1000, func() { _, _ = s.Append(ctx, "s", "a", msg) }); n != 1 {
		t.Fatalf("Append allocates %v times once the bound is reached, want 1 (the id)", n)
	}
}

// TestMemoryEventStoreCopies: the store keeps a copy of a message, so the
// caller may reuse its buffer once Append returns (call.run hands it its
// pooled reply buffer), and what Replay hands send stays as it was while
// the events it came from are evicted and their chunk reused.
func TestMemoryEventStoreCopies(t *testing.T) {
	ctx := context.Background()
	s := NewMemoryEventStore(4 * (memEventOverhead + 1000))
	buf := []byte(strings.Repeat("a", 1000))
	p, _ := s.Append(ctx, "s", "1", nil)
	if _, err := s.Append(ctx, "s", "1", buf); err != nil {
		t.Fatal(err)
	}
	copy(buf, strings.Repeat("b", 1000))
	if _, err := s.Append(ctx, "s", "1", buf); err != nil {
		t.Fatal(err)
	}
	copy(buf, strings.Repeat("c", 1000))
	var got []string
	_, err := s.Replay(ctx, "s", p, func(_ string, msg []byte) error {
		// Events appended meanwhile evict those replayed, whose chunks
		// are reused: msg is Replay's copy.
		for range 40 {
			_, _ = s.Append(ctx, "s", "2", bytes.Repeat([]byte("x"), 1000))
		}
		got = append(got, string(msg))
		return nil
	})
	if err != nil || len(got) != 2 || got[0] != strings.Repeat("a", 1000) || got[1] != strings.Repeat("b", 1000) {
		t.Fatalf("replay: %v, %d messages, first bytes %q", err, len(got), func() []string {
			var h []string
			for _, g := range got {
				h = append(h, g[:3])
			}
			return h
		}())
	}
}

// TestSSEInlineAnswerIDs: an inline Options.SSE call's priming event and
// answer, whose ids the handler writes from their sequence numbers in its
// MemoryEventStore, carry the ids the store knows them by: a resume from
// the priming event's replays the answer under its id.
func TestSSEInlineAnswerIDs(t *testing.T) {
	h, sid := recordedSession(t, &Options{SSE: true})
	for i := 1; i <= 150; i++ { // stream names past those strconv keeps
		r := httptest.NewRequest("POST", "/", strings.NewReader(toolCall(i, "add", `{"a":1,"b":2}`)))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Mcp-Session-Id", sid)
		w := hijackableRecorder{httptest.NewRecorder()}
		h.ServeHTTP(w, r)
		var ids []string
		var data string
		for line := range strings.SplitSeq(w.Body.String(), "\n") {
			if id, ok := strings.CutPrefix(line, "id: "); ok {
				ids = append(ids, id)
			}
			if d, ok := strings.CutPrefix(line, "data: "); ok {
				data = d
			}
		}
		if len(ids) != 2 || !strings.Contains(data, `"sum":3`) {
			t.Fatalf("call %d: %q", i, w.Body.String())
		}
		stream, seq, ok := parseEventID(ids[0])
		if stream2, seq2, ok2 := parseEventID(ids[1]); !ok || !ok2 || stream2 != stream || seq2 != seq+1 {
			t.Fatalf("call %d: ids %q", i, ids)
		}
		_, got, err := replayAll(t, h.store, sid, ids[0])
		if err != nil || len(got) != 1 || got[0] != ids[1]+"="+data {
			t.Fatalf("call %d: replay from %s: %q %v", i, ids[0], got, err)
		}
	}
}
