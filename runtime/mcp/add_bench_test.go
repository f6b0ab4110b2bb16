package mcp_test

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// BenchmarkAddOneAtATime measures registering 10,000 tools, resources,
// resource templates or prompts with one Add call each, as a server that
// registers plugins one by one does; "at-once" adds the 10,000 tools in one
// call, for comparison.
func BenchmarkAddOneAtATime(b *testing.B) {
	const n = 10000
	schema := json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)
	tool := func(i int) mcp.Tool {
		return mcp.Tool{Name: "tool_" + strconv.Itoa(i), InputSchema: schema,
			Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil }}
	}
	read := func(context.Context, *mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) { return nil, nil }
	get := func(context.Context, map[string]string) (*mcp.GetPromptResult, error) { return nil, nil }
	for _, bc := range []struct {
		name string
		add  func(s *mcp.Server)
	}{
		{"tools", func(s *mcp.Server) {
			for i := range n {
				s.AddTools(tool(i))
			}
		}},
		{"tools-at-once", func(s *mcp.Server) {
			all := make([]mcp.Tool, n)
			for i := range all {
				all[i] = tool(i)
			}
			s.AddTools(all...)
		}},
		{"resources", func(s *mcp.Server) {
			for i := range n {
				s.AddResources(mcp.Resource{URI: "test://r/" + strconv.Itoa(i), Name: "r", Handler: read})
			}
		}},
		{"templates", func(s *mcp.Server) {
			for i := range n {
				s.AddResourceTemplates(mcp.ResourceTemplate{URITemplate: "test://t" + strconv.Itoa(i) + "/{id}", Name: "t", Handler: read})
			}
		}},
		{"prompts", func(s *mcp.Server) {
			for i := range n {
				s.AddPrompts(mcp.Prompt{Name: "p" + strconv.Itoa(i), Handler: get})
			}
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				bc.add(mcp.NewServer(mcp.Implementation{Name: "bench", Version: "1"}, nil))
			}
		})
	}
}
