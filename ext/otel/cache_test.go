package otel

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/rpcgen/rpcgen/runtime"
)

// entries counts the cache's entries whose key's a is kind ("" for all).
func entries(c *attrCache, kind string) int {
	n := 0
	c.each(func(k attrKey, _ any) {
		if kind == "" || k.a == kind {
			n++
		}
	})
	return n
}

// kinds returns the names of the spans of the MCP kinds c holds.
func kinds(c *cache[mcpKey, *mcpKind]) []string {
	var names []string
	c.each(func(_ mcpKey, v *mcpKind) { names = append(names, v.name) })
	slices.Sort(names)
	return names
}

// TestCachesStayBounded floods the middleware with names a peer makes up:
// unknown tools, huge method names, more distinct methods than the cap. The
// caches keep no unknown tool's span name, no long key, and no more entries
// than the cap; a tool that answers gets its name cached.
func TestCachesStayBounded(t *testing.T) {
	tp := sdktrace.NewTracerProvider()
	defer tp.Shutdown(context.Background())
	in := New(WithTracerProvider(tp), WithMeterProvider(metricnoop.NewMeterProvider()))
	tools := in.MCPServer()(runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
		if strings.Contains(string(req.Params), `"name":"add"`) {
			return json.RawMessage(`{"content":[]}`), nil
		}
		return nil, runtime.InvalidParams("unknown tool")
	}))
	call := func(h runtime.Handler, method, params string) error {
		_, err := h.ServeRPC(context.Background(), &runtime.Request{ID: runtime.Int64ID(1), Method: method, Params: json.RawMessage(params)})
		return err
	}
	for i := range 2000 {
		if err := call(tools, "tools/call", fmt.Sprintf(`{"name":"made-up-%d"}`, i)); err == nil {
			t.Fatalf("made-up-%d: no error", i)
		}
	}
	if names := kinds(&in.serverKinds); len(names) != 0 {
		t.Errorf("%d kinds of calls of unknown tools cached (%q), want 0", len(names), names[0])
	}
	if err := call(tools, "tools/call", `{"name":"add"}`); err != nil {
		t.Fatal(err)
	}
	if names := kinds(&in.serverKinds); !slices.Equal(names, []string{"tools/call add"}) {
		t.Errorf("the kinds of calls cached: %q; want the tool that answered", names)
	}
	k := mcpKey{method: "tools/call", target: "add"}
	if kind, cached := in.mcpKind(&in.serverKinds, &k, "s", serverKind); kind.name != "tools/call add" || !cached || len(kind.record) != 1 {
		t.Errorf("mcpKind(tools/call, add) = %+v, %v", kind, cached)
	}

	// A huge method name is served but never kept, by either cache.
	rpc := in.Server()(runtime.HandlerFunc(func(context.Context, *runtime.Request) (json.RawMessage, error) {
		return nil, runtime.ErrMethodNotFound("nope")
	}))
	before := entries(&in.starts, "") + entries(&in.attrSets, "")
	huge := strings.Repeat("m", 1<<20)
	for range 3 {
		call(rpc, huge, `{}`)
	}
	for _, c := range []*attrCache{&in.starts, &in.attrSets} {
		c.each(func(key attrKey, _ any) {
			if key.len() > maxAttrKeyLen {
				t.Errorf("a key of %d bytes was cached", key.len())
			}
		})
	}
	if after := entries(&in.starts, "") + entries(&in.attrSets, ""); after > before+1 {
		t.Errorf("a huge method name added %d entries", after-before)
	}

	// More distinct methods than the cap: the cache stops at it.
	for i := range maxAttrSets + 500 {
		call(rpc, fmt.Sprintf("m%d", i), `{}`)
	}
	if n := entries(&in.starts, ""); n > maxAttrSets || in.starts.len() != n {
		t.Errorf("%d entries (counted %d), the cap is %d", n, in.starts.len(), maxAttrSets)
	}
	// Every entry stored is found, without a lock once promoted.
	found := 0
	for i := range maxAttrSets + 500 {
		if _, ok := in.starts.load(attrKey{a: "s", b: fmt.Sprintf("m%d", i)}); ok {
			found++
		}
	}
	if found == 0 || found > maxAttrSets {
		t.Errorf("%d of the methods' start options found", found)
	}
}

// TestUnknownToolsMakeNoSeries: a flood of made-up tool names leaves the
// server's duration histogram with one series for all of them (no
// gen_ai.tool.name), while a tool that answered keeps its name there.
func TestUnknownToolsMakeNoSeries(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer mp.Shutdown(context.Background())
	in := New(WithTracerProvider(tracenoop.NewTracerProvider()), WithMeterProvider(mp))
	h := in.MCPServer()(runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
		if strings.Contains(string(req.Params), `"name":"add"`) {
			return json.RawMessage(`{"content":[]}`), nil
		}
		return nil, runtime.InvalidParams("unknown tool")
	}))
	for i := range 300 {
		h.ServeRPC(context.Background(), &runtime.Request{ID: runtime.Int64ID(1), Method: "tools/call", Params: json.RawMessage(fmt.Sprintf(`{"name":"made-up-%d"}`, i))})
	}
	h.ServeRPC(context.Background(), &runtime.Request{ID: runtime.Int64ID(2), Method: "tools/call", Params: json.RawMessage(`{"name":"add"}`)})
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	var series []string
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != "mcp.server.operation.duration" {
				continue
			}
			for _, dp := range m.Data.(metricdata.Histogram[float64]).DataPoints {
				tool, _ := dp.Attributes.Value("gen_ai.tool.name")
				et, _ := dp.Attributes.Value("error.type")
				series = append(series, fmt.Sprintf("tool=%q error=%q count=%d", tool.AsString(), et.AsString(), dp.Count))
			}
		}
	}
	slices.Sort(series)
	want := []string{`tool="" error="-32602" count=300`, `tool="add" error="" count=1`}
	if !slices.Equal(series, want) {
		t.Errorf("series:\n%s\nwant:\n%s", strings.Join(series, "\n"), strings.Join(want, "\n"))
	}
}

// TestInternedNames: the names the server reads are the same strings the
// second time (no copy), escaped names are unquoted and not kept, and the
// cache stops at maxAttrSets names, after which names still come back right.
func TestInternedNames(t *testing.T) {
	var c internCache
	a := c.unquote([]byte(`"add"`))
	b := c.unquote([]byte(`"add"`))
	if a != "add" || b != "add" || c.c.len() != 1 {
		t.Fatalf("add twice: %q, %q, %d names kept", a, b, c.c.len())
	}
	raw := []byte(`"add"`)
	if allocs := testing.AllocsPerRun(100, func() { c.unquote(raw) }); allocs != 0 {
		t.Errorf("a name seen before: %v allocations, want 0", allocs)
	}
	if s := c.unquote([]byte(`"a\u0064d"`)); s != "add" || c.c.len() != 1 {
		t.Errorf("an escaped name: %q, %d names kept", s, c.c.len())
	}
	if s := c.unquote([]byte(`12`)); s != "" {
		t.Errorf("a number: %q", s)
	}
	for i := range maxAttrSets + 10 {
		name := fmt.Sprintf("tool%d", i)
		if s := c.unquote([]byte(`"` + name + `"`)); s != name {
			t.Fatalf("%s: %q", name, s)
		}
	}
	if c.c.len() != maxAttrSets {
		t.Errorf("%d names kept, want the bound %d", c.c.len(), maxAttrSets)
	}
}

// TestCacheConcurrentMisses: lookups that miss while other goroutines store
// and promote leave the cache usable (a lookup that found the dirty map
// promoted since it read pending once made the read map nil, and the next
// store panicked on it).
func TestCacheConcurrentMisses(t *testing.T) {
	for range 200 {
		var c cache[int, int]
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 40 {
					k := g*100 + i
					c.load(k)
					c.store(k, 0, k)
					c.load(-1)
				}
			}()
		}
		wg.Wait()
		if n := c.len(); n != 160 {
			t.Fatalf("%d entries, want 160", n)
		}
		for k := range 40 {
			if v, ok := c.load(k); ok && v != k {
				t.Fatalf("load(%d) = %d", k, v)
			}
		}
	}
}

// TestProtocolVersion checks that _meta's protocol version is read as
// written, whether it is a revision the runtime knows (returned without a
// copy) or not, escaped or not.
func TestProtocolVersion(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`"2026-07-28"`, "2026-07-28"},
		{`"2025-11-25"`, "2025-11-25"},
		{`"2024-11-05"`, "2024-11-05"},
		{`"2099-01-01"`, "2099-01-01"},
		{`"2026-07-2\u0038"`, "2026-07-28"},
		{`2026`, ""},
		{`""`, ""},
	} {
		if got := protocolVersion([]byte(tc.in)); got != tc.want {
			t.Errorf("protocolVersion(%s) = %q, want %q", tc.in, got, tc.want)
		}
	}
	known := []byte(`"2026-07-28"`)
	if n := testing.AllocsPerRun(10, func() { protocolVersion(known) }); n != 0 {
		t.Errorf("a known revision: %v allocations, want 0", n)
	}
}
