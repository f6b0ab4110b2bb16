package otel

import (
	"context"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
)

// What a traced call would otherwise allocate each time, reused: the slice
// of a span's per-call attributes (Span.SetAttributes copies them), the
// carrier a propagator extracts from (it reads it during Extract), and the
// strings of the tool and prompt names requests name.

// attrPool holds slices for the attributes of one SetAttributes call.
var attrPool = sync.Pool{New: func() any {
	s := make([]attribute.KeyValue, 0, 12)
	return &s
}}

func getAttrs() *[]attribute.KeyValue { return attrPool.Get().(*[]attribute.KeyValue) }

// putAttrs gives back p, whose slice grew to attrs, cleared so that it keeps
// no call's strings alive.
func putAttrs(p *[]attribute.KeyValue, attrs []attribute.KeyValue) {
	clear(attrs)
	*p = attrs[:0]
	attrPool.Put(p)
}

var carrierPool = sync.Pool{New: func() any { return new(traceCarrier) }}

// extract returns ctx with the trace context c carries, as prop reads it,
// through a pooled carrier: c itself stays on the caller's stack.
func extract(ctx context.Context, prop propagation.TextMapPropagator, c *traceCarrier) context.Context {
	pc := carrierPool.Get().(*traceCarrier)
	*pc = *c
	ctx = prop.Extract(ctx, pc)
	*pc = traceCarrier{}
	carrierPool.Put(pc)
	return ctx
}

// internCache keeps one string for each name seen, so that a request naming
// a tool it named before costs no copy of the name. It is a cache (read
// without a lock: a name seen before costs a map lookup, where a
// sync.RWMutex's read lock was two atomic writes to a word every caller
// shares), so it stops growing at maxAttrSets names of at most
// maxAttrKeyLen bytes.
type internCache struct{ c cache[string, string] }

// targets interns the tool and prompt names of the requests MCPServer
// reads (a server has few; a peer making names up fills it to its bound,
// after which names are copied as before).
var targets internCache

// unquote is unquote(v) through the cache; "" when v is no JSON string.
func (c *internCache) unquote(v []byte) string {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return ""
	}
	inner := v[1 : len(v)-1]
	if m := c.c.read.Load(); m != nil {
		if s, ok := (*m)[string(inner)]; ok {
			return s
		}
	}
	s, _ := unquote(v)
	if s == "" || len(s) != len(inner) {
		return s // escaped text is not the key it would be found by
	}
	if kept, ok := c.c.load(s); ok {
		return kept
	}
	c.c.store(s, len(s), s)
	return s
}
