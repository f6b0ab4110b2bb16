package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// handleClient drives a Session through Handle as mcphttp does: requests the
// server sends come out of notify, and answer, when it returns a message,
// goes back in through Handle from another goroutine.
type handleClient struct {
	t  *testing.T
	ss *Session
}

func newHandleClient(t *testing.T, srv *Server, caps string) *handleClient {
	ss := srv.NewSession()
	reply := ss.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":`+caps+`,"clientInfo":{"name":"h","version":"0"}}}`), nil)
	if !strings.Contains(string(reply), `"result"`) {
		t.Fatalf("initialize: %s", reply)
	}
	ss.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), nil)
	return &handleClient{t: t, ss: ss}
}

// call sends a tools/call under ctx and returns its reply; each message the
// server sends meanwhile goes to onMsg, on the goroutine that sent it.
func (h *handleClient) call(ctx context.Context, tool string, onMsg func(msg []byte)) []byte {
	return h.ss.Handle(ctx, []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"`+tool+`","arguments":{}}}`), onMsg)
}

func TestLegacyElicitThroughHandle(t *testing.T) {
	srv := newInputServer(nil, nil)
	h := newHandleClient(t, srv, `{"elicitation":{}}`)
	var sent []string
	reply := h.call(context.Background(), "ask", func(msg []byte) {
		sent = append(sent, string(msg))
		var m struct {
			ID     json.RawMessage
			Method string
		}
		if err := json.Unmarshal(msg, &m); err != nil || m.Method != "elicitation/create" {
			t.Errorf("server sent %s", msg)
			return
		}
		answer := []byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"action":"accept","content":{"name":"Grace"}}}`)
		done := make(chan []byte)
		go func() { done <- h.ss.Handle(context.Background(), answer, nil) }()
		// The answer is taken by the waiting request, not processed as a
		// message of its own; Handle returns nothing for it.
		go func() {
			if r := <-done; r != nil {
				t.Errorf("Handle(answer) = %s, want nil", r)
			}
		}()
	})
	if len(sent) != 1 {
		t.Fatalf("server sent %q", sent)
	}
	wantJSON(t, sent[0], `{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"mode":"form","message":"Name?","requestedSchema":`+nameSchema+`}}`)
	var r struct{ Result json.RawMessage }
	if err := json.Unmarshal(reply, &r); err != nil {
		t.Fatalf("reply %s: %v", reply, err)
	}
	wantJSON(t, structured(t, r.Result), `{"action":"accept","content":{"name":"Grace"}}`)
}

func TestLegacyCancelThroughHandle(t *testing.T) {
	seen := make(chan error, 1)
	srv := newInputServer(seen, nil)
	h := newHandleClient(t, srv, `{"elicitation":{}}`)
	ctx, cancel := context.WithCancel(context.Background())
	var sent []string
	reply := h.call(ctx, "ask", func(msg []byte) {
		sent = append(sent, string(msg))
		if len(sent) == 1 {
			cancel() // the client gives up while the question is out
		}
	})
	if reply != nil {
		t.Errorf("cancelled call replied %s", reply)
	}
	if err := <-seen; !errors.Is(err, context.Canceled) {
		t.Errorf("Elicit returned %v, want context.Canceled", err)
	}
	if len(sent) != 2 {
		t.Fatalf("server sent %q, want the request and its cancellation", sent)
	}
	wantJSON(t, sent[1], `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
	// A late answer is not taken for anything: the session processes it as
	// the runtime does any stray response.
	if h.ss.out.deliver(h.ss, []byte(`{"jsonrpc":"2.0","id":1,"result":{"action":"cancel"}}`)) {
		t.Error("a late answer was delivered")
	}
}

func TestLegacyCloseFailsPending(t *testing.T) {
	seen := make(chan error, 1)
	srv := newInputServer(seen, nil)
	h := newHandleClient(t, srv, `{"elicitation":{}}`)
	reply := h.call(context.Background(), "ask", func(msg []byte) {
		go h.ss.Close() // the session ends while the question is out
	})
	if err := <-seen; !errors.Is(err, runtime.ErrClosed) {
		t.Errorf("Elicit returned %v, want runtime.ErrClosed", err)
	}
	if !strings.Contains(string(reply), `"isError":true`) {
		t.Errorf("reply %s, want a tool error", reply)
	}
	// Later questions fail at once.
	reply = h.call(context.Background(), "ask", func(msg []byte) { t.Errorf("server sent %s after close", msg) })
	if err := <-seen; !errors.Is(err, runtime.ErrClosed) {
		t.Errorf("Elicit after close returned %v, want runtime.ErrClosed", err)
	}
	if !strings.Contains(string(reply), `"isError":true`) {
		t.Errorf("reply %s, want a tool error", reply)
	}
}

func TestInputOutsideHandler(t *testing.T) {
	if _, err := elicit(context.Background(), &mcp.ElicitParams{Message: "x"}); err == nil {
		t.Error("Elicit outside a handler: no error")
	}
	if _, err := sample(context.Background(), &mcp.CreateMessageParams{}); err == nil {
		t.Error("Sample outside a handler: no error")
	}
	if _, err := listRoots(context.Background()); err == nil {
		t.Error("ListRoots outside a handler: no error")
	}
}

// deliver ignores what is not an answer to a waiting request, cheaply when
// nothing waits.
func TestDeliverIgnores(t *testing.T) {
	var o outRequests
	if o.deliver(&Session{}, []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)) {
		t.Error("delivered with nothing waiting")
	}
	ch := make(chan outAnswer, 1)
	o.pending = map[int64]chan outAnswer{1: ch}
	o.waiting.Store(1)
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":2,"result":{}}`,
		`{"jsonrpc":"2.0","id":"1","result":{}}`,
		`not json`,
	} {
		if o.deliver(&Session{}, []byte(msg)) {
			t.Errorf("delivered %s", msg)
		}
	}
	if !o.deliver(&Session{}, []byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"no"}}`)) {
		t.Fatal("answer not delivered")
	}
	var re *runtime.Error
	if a := <-ch; !errors.As(a.err, &re) || re.Message != "no" {
		t.Errorf("delivered %+v", a)
	}
}
