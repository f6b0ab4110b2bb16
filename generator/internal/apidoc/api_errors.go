package apidoc

import (
	"strconv"

	"github.com/rpcgen/rpcgen/generator/internal/model"
	"github.com/rpcgen/rpcgen/generator/internal/schema"
)

// declaredErrors turns the services' declared errors into API errors, one
// per variable, keyed uniquely under the document's components/errors and
// given a TypeScript class name that no declaration of the client takes.
type declaredErrors struct {
	sg    *schema.Builder
	c     *components
	byVar map[*model.DeclaredError]*apiError
	keys  map[string]bool
	list  []*apiError // in order of first use
}

func newDeclaredErrors(sg *schema.Builder, c *components) *declaredErrors {
	return &declaredErrors{sg: sg, c: c, byVar: map[*model.DeclaredError]*apiError{},
		keys: map[string]bool{errInvalidParams.Key: true, errServer.Key: true, errInternal.Key: true, errResourceNotFound.Key: true}}
}

// collect records the data types of the errors of every method, for the
// components, and reserves the class names; before components.index.
func (d *declaredErrors) collect(services []*model.Service) {
	for _, s := range services {
		for _, m := range s.Methods {
			for _, e := range m.Errors {
				if _, ok := d.byVar[e]; ok {
					continue
				}
				ae := &apiError{Key: unique(e.Name, d.keys), Code: e.Code, Message: e.Message, Doc: model.OneLine(e.Doc), declared: e}
				ae.Class = ae.Key + "Error"
				if tsRuntime := tsRuntimeSet[ae.Class]; tsRuntime {
					ae.Class = "Declared" + ae.Class
				}
				d.c.reserve(ae.Class)
				d.byVar[e] = ae
				d.list = append(d.list, ae)
				if e.Data != nil {
					d.c.collect(e.Data, true)
				}
			}
		}
	}
}

// build makes the errors' data schemas, once the components are indexed.
func (d *declaredErrors) build() {
	for _, ae := range d.list {
		e := ae.declared
		if e.Data == nil {
			continue
		}
		s := schema.Clone(d.sg.TypeSchema(e.Data, true, e.GoName+" data", e.Pos))
		s.Definitions = nil // they are components now
		ae.Data = d.c.refs(s, true)
	}
}

// of returns the API errors of m: its declared ones, then those the
// dispatcher answers any method with (a panic is -32603), and a resource's
// "not found".
func (d *declaredErrors) of(m *model.Method) []apiError {
	var out []apiError
	for _, e := range m.Errors {
		out = append(out, *d.byVar[e])
	}
	out = append(out, errInvalidParams, errServer, errInternal)
	if m.Resource != nil {
		out = append(out, errResourceNotFound)
	}
	return out
}

// unique returns name, or name with a number after it, not yet in taken,
// and takes it.
func unique(name string, taken map[string]bool) string {
	n := name
	for i := 2; taken[n]; i++ {
		n = name + strconv.Itoa(i)
	}
	taken[n] = true
	return n
}
