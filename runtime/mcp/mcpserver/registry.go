package mcpserver

import (
	"sync"

	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// registry is an immutable snapshot of what the server offers: each Add
// method publishes a new one, so a request finds its tool, resource or prompt
// without taking a lock. Adding is incremental: a snapshot's lists share
// their arrays with the snapshot before it (each sees its own length of
// them) and the lookups by key are shared indexes, so adding one item costs
// the item, not a copy of all there was.
type registry struct {
	tools     []*Tool
	toolIdx   *keyIndex // by Name
	resources []*Resource
	resIdx    *keyIndex // by URI
	templates []*resourceTemplate
	tmplIdx   *keyIndex // by URITemplate
	prompts   []*Prompt
	promptIdx *keyIndex // by Name

	// exts are the extensions the server declares, in the order added, and
	// extMethods the methods they serve, by name (extension.go).
	exts       []mcp.Extension
	extMethods map[string]serverMethod

	kinds kinds // what the capabilities declare
	// enc holds the results pre-encoded for each revision, made the first
	// time a request of that revision needs them: a process serving one
	// client encodes for one revision only.
	enc [numVers]*encoded
}

func newRegistry() *registry {
	r := &registry{toolIdx: new(keyIndex), resIdx: new(keyIndex), tmplIdx: new(keyIndex), promptIdx: new(keyIndex)}
	return r.finish()
}

// next returns a copy of r to add to and publish with finish; the server's
// mutex must be held from next to the Store of the result, so that only the
// newest snapshot's lists are ever appended to.
func (r *registry) next() *registry {
	n := *r
	return &n
}

// finish computes what r's lists imply and gives it fresh encodings.
func (r *registry) finish() *registry {
	r.kinds = 0
	if len(r.resources)+len(r.templates) > 0 {
		r.kinds |= kindResources
	}
	if len(r.prompts) > 0 {
		r.kinds |= kindPrompts
	}
	for v := range r.enc {
		r.enc[v] = new(encoded)
	}
	return r
}

func (r *registry) tool(name string) *Tool { return lookup(r.tools, r.toolIdx, name) }

func (r *registry) resource(uri string) *Resource { return lookup(r.resources, r.resIdx, uri) }

func (r *registry) template(uri string) *resourceTemplate { return lookup(r.templates, r.tmplIdx, uri) }

func (r *registry) prompt(name string) *Prompt { return lookup(r.prompts, r.promptIdx, name) }

// keyIndex maps the keys of a list that only grows to their positions in it.
// The snapshots of a registry share it: each sees the keys whose position is
// below its own list's length, so a key being added is not seen by a
// snapshot that has no item for it yet. Nothing is ever removed.
type keyIndex struct{ m sync.Map } // string -> int

// appendKeyed appends item, under key in x, to list, the newest snapshot's,
// and returns the longer list. Keys are checked unique beforehand.
func appendKeyed[T any](list []*T, x *keyIndex, key string, item *T) []*T {
	x.m.Store(key, len(list))
	return append(list, item)
}

// lookup returns the item of list under key, or nil.
func lookup[T any](list []*T, x *keyIndex, key string) *T {
	v, ok := x.m.Load(key)
	if !ok {
		return nil
	}
	if i := v.(int); i < len(list) {
		return list[i]
	}
	return nil
}
