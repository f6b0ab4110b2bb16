package apidoc

import (
	"encoding/json"

	"github.com/rpcgen/rpcgen/generator/internal/model"
)

// apiExample is an explicit example of a method (model.Example), as the
// OpenRPC document and the Markdown reference show it.
type apiExample struct {
	Name string
	// Params is the params as given (an object or an array); ByName lists
	// them as the method's params, by name, for OpenRPC's example pairing.
	Params json.RawMessage
	ByName []apiExampleParam
	// Result is the result, nil for an example of an error; then Error is
	// the error object the example fails with.
	Result json.RawMessage
	Error  json.RawMessage
}

type apiExampleParam struct {
	Name  string
	Value json.RawMessage
}

// examplesOf returns the explicit examples of m, whose params am lists.
func examplesOf(m *model.Method, am *apiMethod, errs *declaredErrors) []apiExample {
	var out []apiExample
	for _, ex := range m.Examples {
		ae := apiExample{Name: ex.Name, Params: ex.Params, Result: ex.Result}
		var byName map[string]json.RawMessage
		var byPos []json.RawMessage
		if json.Unmarshal(ex.Params, &byName) != nil {
			json.Unmarshal(ex.Params, &byPos)
		}
		for i, p := range am.Params {
			v, ok := byName[p.Name]
			if byName == nil && i < len(byPos) {
				v, ok = byPos[i], true
			}
			if ok {
				ae.ByName = append(ae.ByName, apiExampleParam{Name: p.Name, Value: v})
			}
		}
		if ex.Error != nil {
			e := errs.byVar[ex.Error]
			obj := orderedJSON{{"code", e.Code}, {"message", e.Message}}
			if ex.ErrorData != nil {
				obj = append(obj, jsonMember{"data", json.RawMessage(ex.ErrorData)})
			}
			ae.Error, _ = obj.MarshalJSON()
		}
		out = append(out, ae)
	}
	return out
}
