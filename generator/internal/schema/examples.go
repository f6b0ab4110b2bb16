package schema

import (
	"encoding/json"

	"github.com/rpcgen/rpcgen/generator/internal/model"
)

// CheckExamples reports, at the example's params= or result=, each
// documented example (//rpcgen:example) whose params break the method's
// params schema or whose result breaks its result schema: what the OpenRPC
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
	if ex.Result == nil || m.Stream {
		return
	}
	if rs := g.ResultSchema(m); rs != nil {
		if msg := Violation(ex.Result, rs); msg != "" {
			g.errs.AtPosition(ex.ResultPos, "//rpcgen:example %q: result breaks the method's result schema: %s", ex.Name, msg)
		}
	}
}
