package mcpserver_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// TestSessionControl checks that a transport's control drives the session
// it came with: the id it sets is the one the session's middleware reads.
func TestSessionControl(t *testing.T) {
	seen := make(chan string, 1)
	mw := func(next runtime.Handler) runtime.Handler {
		return runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
			if req.Method == mcp.MethodPing {
				seen <- mcpserver.SessionFromContext(ctx).ID()
			}
			return next.ServeRPC(ctx, req)
		})
	}
	srv := mcpserver.New(mcp.Implementation{Name: "x", Version: "1"}, &mcpserver.Options{
		Middleware: []runtime.Middleware{mw},
	})
	ss, ctl := srv.NewTransportSession()
	if ctl.Session() != ss {
		t.Fatal("SessionControl.Session is not the session NewTransportSession returned")
	}
	if id := ss.ID(); id != "" {
		t.Fatalf("ID before SetID = %q, want empty", id)
	}
	ctl.SetID("sess-7")
	ctx := context.Background()
	ss.Handle(ctx, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`), nil)
	ss.Handle(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), nil)
	select {
	case id := <-seen:
		if id != "sess-7" {
			t.Errorf("middleware saw session id %q, want sess-7", id)
		}
	default:
		t.Fatal("middleware never saw the ping")
	}
}

// TestIgnoreCancelNotifications checks that a session whose transport
// cancels runs a request in the context Handle was given (no cancelable
// context more per request): its end cancels the tool, a
// notifications/cancelled does not.
func TestIgnoreCancelNotifications(t *testing.T) {
	started := make(chan context.Context, 1)
	release := make(chan struct{})
	srv := mcpserver.New(mcp.Implementation{Name: "x", Version: "1"}, nil)
	srv.AddTools(mcpserver.Tool{Name: "wait", InputSchema: json.RawMessage(`{"type":"object"}`),
		Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			started <- ctx
			select {
			case <-release:
				return json.RawMessage(`{"ok":true}`), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}})
	ss, ctl := srv.NewTransportSession()
	ctl.IgnoreCancelNotifications()
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	call := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait","arguments":{},` + meta + `}}`)

	// A notifications/cancelled is ignored: the call answers.
	parent, cancel := context.WithCancel(context.Background())
	defer cancel()
	reply := make(chan []byte, 1)
	go func() { reply <- ss.Handle(parent, call, nil) }()
	ctx := <-started
	if ctx.Done() != parent.Done() {
		t.Error("the tool's context is not the one Handle was given")
	}
	if r := ss.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`), nil); r != nil {
		t.Errorf("notifications/cancelled answered %s", r)
	}
	close(release)
	if r := string(<-reply); !strings.Contains(r, `"ok":true`) {
		t.Errorf("reply after an ignored cancellation: %s, want the result", r)
	}

	// The end of Handle's context cancels the call.
	release = make(chan struct{})
	parent2, cancel2 := context.WithCancel(context.Background())
	go func() { reply <- ss.Handle(parent2, call, nil) }()
	<-started
	cancel2()
	if r := string(<-reply); strings.Contains(r, `"ok":true`) {
		t.Errorf("reply after its context ended: %s, want no result", r)
	}
}
