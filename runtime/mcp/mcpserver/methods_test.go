package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// tableServer returns a server with a tool and, when full, a resource and a
// prompt, so that every capability the table gates on is offered.
func tableServer(full bool) *mcpserver.Server {
	srv := mcpserver.New(mcp.Implementation{Name: "table", Version: "1"}, nil)
	srv.AddTools(mcpserver.Tool{Name: "t", Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) {
		return json.RawMessage(`{}`), nil
	}})
	if full {
		srv.AddResources(mcpserver.Resource{URI: "test://r", Name: "r", Handler: func(context.Context, *mcpserver.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{URI: "test://r", Text: "r"}}, nil
		}})
		srv.AddPrompts(mcpserver.Prompt{Name: "p", Handler: func(context.Context, map[string]string) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{}, nil
		}})
	}
	return srv
}

// errorCode returns the code of the error reply carries, or 0 for a result.
func errorCode(t *testing.T, reply []byte) int64 {
	t.Helper()
	var r struct {
		Result json.RawMessage `json:"result"`
		Error  *runtime.Error  `json:"error"`
	}
	if err := json.Unmarshal(reply, &r); err != nil {
		t.Fatalf("reply %s: %v", reply, err)
	}
	if r.Error == nil {
		return 0
	}
	return r.Error.Code
}

// TestTableDrivesLegacyDispatch sends every client request the table knows
// to a session of every legacy revision: the methods the table gives that
// revision are served (whatever their params get), the others are Method
// not found, and so are those whose capability the server does not offer.
func TestTableDrivesLegacyDispatch(t *testing.T) {
	for _, full := range []bool{true, false} {
		for _, rev := range mcp.LegacyVersions {
			t.Run(fmt.Sprintf("%s/full=%v", rev, full), func(t *testing.T) {
				ss := tableServer(full).NewSession()
				init := fmt.Sprintf(`{"jsonrpc":"2.0","id":0,"method":%q,"params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
					mcp.MethodInitialize, rev)
				if code := errorCode(t, ss.Handle(t.Context(), []byte(init), nil)); code != 0 {
					t.Fatalf("initialize: error %d", code)
				}
				for i, m := range clientRequests() {
					if m.Name == mcp.MethodInitialize || m.Name == mcp.MethodServerDiscover {
						continue // initialize again is refused; server/discover is a 2026-07-28 request by its name
					}
					msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{}}`, i+1, m.Name)
					code := errorCode(t, ss.Handle(t.Context(), []byte(msg), nil))
					offered := full || !strings.HasPrefix(m.Capability, "resources") && m.Capability != "prompts" && m.Capability != "completions"
					if want := m.In(rev) && offered; (code != runtime.CodeMethodNotFound) != want {
						t.Errorf("%s in %s (capability %q offered: %v): error %d, want served: %v", m.Name, rev, m.Capability, offered, code, want)
					}
				}
			})
		}
	}
}

// TestTableDrivesModernDispatch does the same with 2026-07-28 requests.
func TestTableDrivesModernDispatch(t *testing.T) {
	for _, full := range []bool{true, false} {
		t.Run(fmt.Sprintf("full=%v", full), func(t *testing.T) {
			ss := tableServer(full).NewSession()
			for i, m := range clientRequests() {
				msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{"_meta":{%q:%q,%q:{}}}}`,
					i+1, m.Name, mcp.MetaProtocolVersion, mcp.Version20260728, mcp.MetaClientCapabilities)
				code := errorCode(t, ss.Handle(t.Context(), []byte(msg), nil))
				offered := full || !strings.HasPrefix(m.Capability, "resources") && m.Capability != "prompts" && m.Capability != "completions"
				if want := m.In(mcp.Version20260728) && offered; (code != runtime.CodeMethodNotFound) != want {
					t.Errorf("%s (capability %q offered: %v): error %d, want served: %v", m.Name, m.Capability, offered, code, want)
				}
			}
		})
	}
}

// clientRequests returns the rows of the requests a client sends.
func clientRequests() []*mcp.Method {
	var rows []*mcp.Method
	for _, m := range mcp.Methods() {
		if m.Direction&mcp.ClientToServer != 0 && !m.Notification && m.Extension == "" {
			rows = append(rows, m)
		}
	}
	return rows
}
