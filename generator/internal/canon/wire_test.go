package canon_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/rpcgen/rpcgen/generator/internal/canon"
	"github.com/rpcgen/rpcgen/internal/greeter"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// TestDigestOfListedTool: the digest rpcgen declares for a tool is the
// digest of the descriptor a server sends in tools/list, canonicalized as
// a host would (here internal/greeter's tool, which has a title, a hint and
// an output schema), and the server lists that digest in the tool's _meta.
func TestDigestOfListedTool(t *testing.T) {
	srv := mcpserver.New(mcp.Implementation{Name: "g", Version: "1"}, nil)
	greeter.RegisterGreeter(srv, greeter.Impl{})
	ctx := context.Background()
	ss := srv.NewSession()
	ss.Handle(ctx, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+mcp.Version20251125+`","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`), nil)
	ss.Handle(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), nil)
	reply := ss.Handle(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), nil)
	var msg struct {
		Result struct {
			Tools []map[string]json.RawMessage
		}
	}
	if err := json.Unmarshal(reply, &msg); err != nil || len(msg.Result.Tools) != 1 {
		t.Fatalf("tools/list answered %s (%v)", reply, err)
	}
	tool := msg.Result.Tools[0]
	if tool["title"] == nil || tool["annotations"] == nil || tool["outputSchema"] == nil {
		t.Fatalf("the listed tool lacks what the test is about: %s", reply)
	}
	var meta map[string]string
	if err := json.Unmarshal(tool["_meta"], &meta); err != nil || meta[mcp.MetaDigest] != greeter.GreeterGreetToolDigest {
		t.Errorf("the listed tool's _meta is %s, want %s: %s", tool["_meta"], mcp.MetaDigest, greeter.GreeterGreetToolDigest)
	}
	delete(tool, "_meta")
	raw, _ := json.Marshal(tool)
	c, err := canon.JSON(raw)
	if err != nil {
		t.Fatal(err)
	}
	if got := canon.Digest(c); got != greeter.GreeterGreetToolDigest {
		t.Errorf("digest of the listed tool %s\n= %s\nwant GreeterGreetToolDigest %s", c, got, greeter.GreeterGreetToolDigest)
	}
}
