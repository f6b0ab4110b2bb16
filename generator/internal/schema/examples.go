package schema

import (
	"encoding/json"

	"github.com/rpcgen/rpcgen/generator/internal/model"
)

// CheckExamples reports, at the example's params=, result= or data=, each
// documented example (//rpcgen:example) whose params break the method's
// params schema, whose result breaks its result schema, or whose error data
// breaks the schema of the declared error's data type: what the OpenRPC
// document, the Markdown reference and the generated examples show must be
// a request the server takes and an answer it may give, which
// runtime.CheckExamples then holds the implementation to.
func CheckExamples(g *Builder, services []*model.Service) {
	for _, s := range services {
		for _, m := range s.Methods {
			for _, ex := range m.Examples {
				g.checkExample(m, ex)
			}
		}
	}
}

func (g *Builder) checkExample(m *model.Method, ex *model.Example) {
	var byPos []json.RawMessage
	if len(ex.Params) > 0 && ex.Params[0] == '[' && json.Unmarshal(ex.Params, &byPos) == nil && !m.StructParams {
		if len(byPos) > len(m.Params) {
			g.errs.AtPosition(ex.ParamsPos, "//rpcgen:example %q: params has %d values, method %s takes %d", ex.Name, len(byPos), m.Name, len(m.Params))
			return
		}
		for i, v := range byPos {
			p := m.Params[i]
			if msg := Violation(v, g.rootDefs(g.ParamSchema(m, p), false)); msg != "" {
				g.errs.AtPosition(ex.ParamsPos, "//rpcgen:example %q: param %d (%s) breaks its schema: %s", ex.Name, i+1, p.JSONKey, msg)
				return
			}
		}
	} else if msg := Violation(ex.Params, g.InputSchema(m)); msg != "" {
		g.errs.AtPosition(ex.ParamsPos, "//rpcgen:example %q: params break the method's params schema: %s", ex.Name, msg)
	}
	if e := ex.Error; e != nil && e.Data != nil && ex.ErrorData != nil {
		// A *runtime.Error declares no data type: its data is any JSON.
		ds := g.TypeSchema(e.Data, true, e.GoName+" data", e.Pos)
		if msg := Violation(ex.ErrorData, ds); msg != "" {
			g.errs.AtPosition(ex.DataPos, "//rpcgen:example %q: data breaks the schema of %s's data (%s): %s", ex.Name, e.GoName, g.TypeString(e.Data), msg)
		}
	}
	if ex.Result == nil || m.Stream {
		return
	}
	if rs := g.ResultSchema(m); rs != nil {
		if msg := Violation(ex.Result, rs); msg != "" {
			g.errs.AtPosition(ex.ResultPos, "//rpcgen:example %q: result breaks the method's result schema: %s", ex.Name, msg)
		}
	}
}
