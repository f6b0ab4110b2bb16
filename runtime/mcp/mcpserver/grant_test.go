package mcpserver

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/mcp"
)

func grantServer(ran *int) *Server {
	srv := New(mcp.Implementation{Name: "g", Version: "1"}, nil)
	h := func(context.Context, json.RawMessage) (json.RawMessage, error) {
		*ran++
		return json.RawMessage(`{}`), nil
	}
	srv.AddTools(Tool{Name: "write", Scopes: []string{"notes.write", "notes.read"}, Handler: h},
		Tool{Name: "read", Scopes: []string{"notes.read"}, Handler: h}, Tool{Name: "open", Handler: h})
	return srv
}

const grantMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// TestGrant: a request whose Grant lacks a tool's scopes is refused before
// the tool runs, and with HideTools its tools/list leaves the tool out and
// is private; a request without a Grant (stdio) runs every tool.
func TestGrant(t *testing.T) {
	ran := 0
	srv := grantServer(&ran)
	if got := srv.Scopes(); !slices.Equal(got, []string{"notes.read", "notes.write"}) {
		t.Errorf("Scopes() = %v", got)
	}
	ss := srv.NewSession()
	reader := WithGrant(context.Background(), &Grant{Scopes: []string{"notes.read"}, HideTools: true})
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"write",` + grantMeta + `}}`
	reply := string(ss.Handle(reader, []byte(call), nil))
	if !strings.Contains(reply, `"error"`) || !strings.Contains(reply, `"requiredScopes":["notes.write"]`) || ran != 0 {
		t.Errorf("write without notes.write: %s, ran %d", reply, ran)
	}
	if reply := string(ss.Handle(context.Background(), []byte(call), nil)); strings.Contains(reply, `"error"`) || ran != 1 {
		t.Errorf("write without a grant: %s, ran %d", reply, ran)
	}
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{` + grantMeta + `}}`
	var res struct {
		Result struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
			CacheScope string `json:"cacheScope"`
		} `json:"result"`
	}
	for _, tc := range []struct {
		ctx   context.Context
		names []string
		scope string
	}{
		{reader, []string{"read", "open"}, "private"},
		{WithGrant(context.Background(), &Grant{Scopes: []string{"notes.read", "notes.write"}, HideTools: true}), []string{"write", "read", "open"}, "private"},
		{WithGrant(context.Background(), &Grant{Scopes: nil}), []string{"write", "read", "open"}, "public"},
		{context.Background(), []string{"write", "read", "open"}, "public"},
	} {
		if err := json.Unmarshal(ss.Handle(tc.ctx, []byte(list), nil), &res); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tl := range res.Result.Tools {
			names = append(names, tl.Name)
		}
		if !slices.Equal(names, tc.names) || res.Result.CacheScope != tc.scope {
			t.Errorf("tools/list %v %q, want %v %q", names, res.Result.CacheScope, tc.names, tc.scope)
		}
	}
}

func TestInvalidScope(t *testing.T) {
	for _, s := range []string{"", "a b", `a"b`, "é", "a\\b"} {
		if ValidScope(s) {
			t.Errorf("ValidScope(%q) = true", s)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("AddTools took a tool with the scope \"a b\"")
		}
	}()
	New(mcp.Implementation{Name: "g", Version: "1"}, nil).AddTools(Tool{Name: "x", Scopes: []string{"a b"}, Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil }})
}
