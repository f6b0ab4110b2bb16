package mcphttp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	goruntime "runtime"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// floodServer serves "note", whose answer is about 2 KiB, like a get_note of
// a long note.
func floodServer(t *testing.T, opts *Options) (*Handler, *httptest.Server) {
	t.Helper()
	srv := mcpserver.New(mcp.Implementation{Name: "flood", Version: "1"}, nil)
	text, _ := json.Marshal(strings.Repeat("a long note ", 170))
	srv.AddTools(mcpserver.Tool{Name: "note", InputSchema: json.RawMessage(`{"type":"object"}`),
		Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) {
			return json.RawMessage(`{"text":` + string(text) + `}`), nil
		}})
	h := NewHandler(srv, opts)
	ts := rpctest.NewPipeServer(t, h, nil)
	t.Cleanup(func() { h.Close() })
	return h, ts
}

// The flood tests run in a testing/synctest bubble, on an in-memory network
// (rpctest.NewPipeServer): their waits end when the server has done all it
// can, whatever the machine's load, and the minute a stream write may take
// passes only when nothing else can happen. Their connections have no
// kernel buffers, so what the client leaves unread stays in the session's
// output, where the bounds apply.

// TestLegacySSEFloodNeverRead: a 2024-11-05 client that stops reading its
// stream and POSTs 8,000 calls (about four times what fills the session's
// output). Memory stays bounded: once the session's buffered output is
// full, POSTs are refused with 429 and a JSON-RPC error (not accepted and
// dropped). And no answer is lost: when the client reads again, every call
// that got 202 is answered, exactly once.
func TestLegacySSEFloodNeverRead(t *testing.T) {
	rpctest.CheckLeaks(t)
	synctest.Test(t, testLegacySSEFloodNeverRead)
}

func testLegacySSEFloodNeverRead(t *testing.T) {
	h, ts := floodServer(t, nil)
	c := dialSSE(t, ts, "/", "")
	c.initialize()
	c.pause()
	var before goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&before)

	// From here on the client reads nothing of its stream.
	const calls = 8000
	accepted := make(map[string]bool)
	refused, maxBuffered := 0, int64(0)
	for i := range calls {
		id := fmt.Sprintf(`"c%d"`, i)
		resp, body := c.post(c.endpoint, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"note","arguments":{}}}`)
		switch resp.StatusCode {
		case http.StatusAccepted:
			accepted[id] = true
		case http.StatusTooManyRequests:
			wantErrorBody(t, resp, body, -32000, "")
			if !strings.Contains(string(body), `"id":`+id) {
				t.Fatalf("the refusal does not name call %s: %s", id, body)
			}
			refused++
		default:
			t.Fatalf("POST %d: status %d %s", i, resp.StatusCode, body)
		}
		maxBuffered = max(maxBuffered, h.legacy.buffered())
	}
	var after goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&after)
	grown := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("%d accepted, %d refused; at most %d bytes buffered; heap grew %d bytes", len(accepted), refused, maxBuffered, grown)
	if refused == 0 {
		t.Fatal("a session whose client never reads accepted every call")
	}
	if limit := int64(legacyMaxBuffered + legacyMaxCalls*4<<10); maxBuffered > limit {
		t.Errorf("%d bytes buffered for one session, over %d", maxBuffered, limit)
	}
	if grown > 32<<20 {
		t.Errorf("the heap grew by %d MiB", grown>>20)
	}

	// The client reads again: every accepted call is answered, once.
	c.resume()
	for len(accepted) > 0 {
		var env struct {
			ID json.RawMessage `json:"id"`
		}
		msg := c.nextMessage()
		if err := json.Unmarshal([]byte(msg), &env); err != nil {
			t.Fatalf("message %q: %v", msg, err)
		}
		if !accepted[string(env.ID)] {
			t.Fatalf("an answer to %s, which was refused or is answered twice", env.ID)
		}
		delete(accepted, string(env.ID))
	}
	// Drained, the session takes calls again.
	if msgs := c.call(`{"jsonrpc":"2.0","id":"again","method":"ping"}`); len(msgs) != 1 {
		t.Fatalf("ping after the flood: %q", msgs)
	}
}

// TestLegacySSECondemned: the answers of calls accepted while the stream had
// room can still overflow it (here 100 calls of 200 KiB each, 20 MiB, over
// the 16 MiB a session may buffer, for a client that stopped reading: one
// answer it reads, one the stream's write blocks on, then the rest
// together). The session is then condemned
// at once: removed (its endpoint gets 404 with a JSON-RPC error), its stream
// cut even though a write is blocked on the client, and its buffers let go.
func TestLegacySSECondemned(t *testing.T) {
	rpctest.CheckLeaks(t)
	synctest.Test(t, testLegacySSECondemned)
}

func testLegacySSECondemned(t *testing.T) {
	const calls = 100
	release := make(chan struct{}, calls) // one answer per token
	srv := mcpserver.New(mcp.Implementation{Name: "condemn", Version: "1"}, nil)
	chunk, _ := json.Marshal(strings.Repeat("x", 200<<10))
	srv.AddTools(mcpserver.Tool{Name: "chunk", InputSchema: json.RawMessage(`{"type":"object"}`),
		Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			select {
			case <-release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return json.RawMessage(`{"text":` + string(chunk) + `}`), nil
		}})
	h := NewHandler(srv, nil)
	ts := rpctest.NewPipeServer(t, h, nil)
	t.Cleanup(func() { h.Close() })
	c := dialSSE(t, ts, "/", "")
	c.initialize()
	c.pause()
	for i := range calls {
		c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"chunk","arguments":{}}}`, i))
	}
	// One answer, which the client reads before it stops reading; then one
	// that the stream's write blocks on; then the rest, together.
	release <- struct{}{}
	synctest.Wait()
	release <- struct{}{}
	synctest.Wait()
	for range calls - 2 {
		release <- struct{}{}
	}
	eventually(t, h, "the session is condemned and removed", func() bool { return h.SessionCount() == 0 })
	resp, body := c.post(c.endpoint, `{"jsonrpc":"2.0","id":"late","method":"ping"}`)
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("POST to the condemned session: %d %s", resp.StatusCode, body)
	}
	wantErrorBody(t, resp, body, -32600, "")
	// The client still reads nothing, yet the write blocked on it is cut at
	// once and the session's buffers are let go, not after the minute a
	// write may take (which the bubble's clock reaches only once every
	// goroutine waits on it: synctest.Wait does not move it).
	synctest.Wait()
	if n := legacyOutput.used.Load(); n != 0 {
		t.Errorf("%d bytes still buffered once the session was condemned: the write blocked on the client was not cut", n)
	}
	// The stream ends soon.
	c.resume()
	answers := 0
	withinTime(t, "the condemned stream to end", func() {
		for ev := range c.events {
			if strings.Contains(ev.Data, `"result"`) {
				answers++
			}
		}
	})
	if answers >= calls {
		t.Errorf("all %d answers arrived on a condemned stream", answers)
	}
	eventually(t, h, "the buffers are let go", func() bool { return legacyOutput.used.Load() == 0 })
}
