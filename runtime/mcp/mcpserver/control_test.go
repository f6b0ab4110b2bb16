package mcpserver_test

import (
	"context"
	"encoding/json"
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
