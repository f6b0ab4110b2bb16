package mcpserver

import (
	"context"
	"encoding/json"
	goruntime "runtime"
	"strconv"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/mcp"
)

func noopTool(name string) Tool {
	return Tool{Name: name, Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil }}
}

// TestAddIncremental: adding 5,000 tools, resources, templates and prompts one
// call at a time allocates in proportion to what is added (the registry
// snapshots share their lists and indexes), where a copy of everything per
// call allocated over a gigabyte.
func TestAddIncremental(t *testing.T) {
	const n = 5000
	s := New(mcp.Implementation{Name: "t", Version: "1"}, nil)
	read := func(context.Context, *ReadResourceRequest) ([]mcp.ResourceContents, error) { return nil, nil }
	get := func(context.Context, map[string]string) (*mcp.GetPromptResult, error) { return nil, nil }
	var before, after goruntime.MemStats
	goruntime.ReadMemStats(&before)
	for i := range n {
		k := strconv.Itoa(i)
		s.AddTools(noopTool("t" + k))
		s.AddResources(Resource{URI: "test://r/" + k, Name: "r", Handler: read})
		s.AddResourceTemplates(ResourceTemplate{URITemplate: "test://t" + k + "/{id}", Name: "t", Handler: read})
		s.AddPrompts(Prompt{Name: "p" + k, Handler: get})
	}
	goruntime.ReadMemStats(&after)
	if grown := after.TotalAlloc - before.TotalAlloc; grown > 64<<20 {
		t.Errorf("adding %d of each one at a time allocated %d MiB", n, grown>>20)
	}
	r := s.reg.Load()
	if len(r.tools) != n || len(r.resources) != n || len(r.templates) != n || len(r.prompts) != n {
		t.Fatalf("%d tools, %d resources, %d templates, %d prompts", len(r.tools), len(r.resources), len(r.templates), len(r.prompts))
	}
	for _, i := range []int{0, 1, n / 2, n - 1} {
		k := strconv.Itoa(i)
		if r.tools[i].Name != "t"+k || r.tool("t"+k) != r.tools[i] || r.resource("test://r/"+k) != r.resources[i] ||
			r.template("test://t"+k+"/{id}") != r.templates[i] || r.prompt("p"+k) != r.prompts[i] {
			t.Errorf("entry %d is not found under its key, in its place", i)
		}
	}
}

// TestRegistrySnapshots: a snapshot sees only what was added before it, even
// though snapshots share their lists and indexes; and an Add that panics on a
// bad item leaves nothing of its batch behind.
func TestRegistrySnapshots(t *testing.T) {
	s := New(mcp.Implementation{Name: "t", Version: "1"}, nil)
	s.AddTools(noopTool("a"))
	old := s.reg.Load()
	s.AddTools(noopTool("b"), noopTool("c"))
	if old.tool("b") != nil || len(old.tools) != 1 {
		t.Fatal("an older snapshot sees a tool added after it")
	}
	func() {
		defer func() { recover() }()
		s.AddTools(noopTool("d"), noopTool("e"), noopTool("a")) // a is taken
		t.Fatal("AddTools of a taken name did not panic")
	}()
	r := s.reg.Load()
	if r.tool("d") != nil || r.tool("e") != nil || len(r.tools) != 3 {
		t.Fatalf("the panicking batch left %d tools, d %v, e %v", len(r.tools), r.tool("d"), r.tool("e"))
	}
	s.AddTools(noopTool("e"))
	r = s.reg.Load()
	if got := r.tool("e"); got == nil || got != r.tools[3] || r.tool("d") != nil {
		t.Fatalf("after the failed batch: e %v, tools %d", got, len(r.tools))
	}
	if r.tool("b") != r.tools[1] || r.tool("c") != r.tools[2] || old.tool("a") != r.tools[0] {
		t.Fatal("a tool moved")
	}
}
