package mcpserver_test

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// BenchmarkAddOneAtATime measures registering 10,000 tools, resources,
// resource templates or prompts with one Add call each, as a server that
// registers plugins one by one does; "at-once" adds the 10,000 tools in one
// call, for comparison.
func BenchmarkAddOneAtATime(b *testing.B) {
	const n = 10000
	schema := json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)
	tool := func(i int) mcpserver.Tool {
		return mcpserver.Tool{Name: "tool_" + strconv.Itoa(i), InputSchema: schema,
			Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil }}
	}
	read := func(context.Context, *mcpserver.ReadResourceRequest) ([]mcp.ResourceContents, error) { return nil, nil }
	get := func(context.Context, map[string]string) (*mcp.GetPromptResult, error) { return nil, nil }
	for _, bc := range []struct {
		name string
		add  func(s *mcpserver.Server)
	}{
		{"tools", func(s *mcpserver.Server) {
			for i := range n {
				s.AddTools(tool(i))
			}
		}},
		{"tools-at-once", func(s *mcpserver.Server) {
			all := make([]mcpserver.Tool, n)
			for i := range all {
				all[i] = tool(i)
			}
			s.AddTools(all...)
		}},
		{"resources", func(s *mcpserver.Server) {
			for i := range n {
				s.AddResources(mcpserver.Resource{URI: "test://r/" + strconv.Itoa(i), Name: "r", Handler: read})
			}
		}},
		{"templates", func(s *mcpserver.Server) {
			for i := range n {
				s.AddResourceTemplates(mcpserver.ResourceTemplate{URITemplate: "test://t" + strconv.Itoa(i) + "/{id}", Name: "t", Handler: read})
			}
		}},
		{"prompts", func(s *mcpserver.Server) {
			for i := range n {
				s.AddPrompts(mcpserver.Prompt{Name: "p" + strconv.Itoa(i), Handler: get})
			}
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				bc.add(mcpserver.New(mcp.Implementation{Name: "bench", Version: "1"}, nil))
			}
		})
	}
}
