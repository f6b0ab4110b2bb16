package model

import (
	"bytes"
	"encoding/json"
	"go/token"
	"strconv"

	"github.com/rpcgen/rpcgen/generator/internal/diag"
)

// Example is an explicit example of a method, from a //rpcgen:example
// line: params and the result they get, or params and the declared error
// they fail with. It goes into the OpenRPC document and the Markdown
// reference, and into the generated <Svc>Examples, which a test runs
// against the implementation (runtime.CheckExamples).
type Example struct {
	Name   string
	Params []byte // compact JSON: an object, or an array by position
	Result []byte // compact JSON; nil for an example of an error
	// Error is the declared error an error example fails with; ErrorData,
	// when not nil, the data it carries (compact JSON).
	Error     *DeclaredError
	ErrorData []byte
	// Pos is the directive's position; ParamsPos, ResultPos and DataPos
	// those of its params=, result= and data= (Pos when not given).
	Pos, ParamsPos, ResultPos, DataPos token.Position
}

// methodExamples reads the //rpcgen:example lines of m (d and the lines
// after it), checking each: params JSON (an object or an array), exactly
// one of result (JSON) and error (a declared error of m), data only with
// an error, names unique.
func methodExamples(m *Method, d *Directive, fset *token.FileSet, errs *diag.Collector) {
	names := map[string]bool{}
	for i := 1; d != nil; d, i = d.Next, i+1 {
		ex := &Example{Name: "example " + strconv.Itoa(i), Pos: fset.Position(d.Pos)}
		ex.ParamsPos, ex.ResultPos, ex.DataPos = ex.Pos, ex.Pos, ex.Pos
		ok := true
		if v, pos, given := d.value("name"); given {
			ex.Name = v
			if v == "" {
				errs.At(pos, "//rpcgen:example: name must not be empty")
				ok = false
			}
		}
		if names[ex.Name] {
			errs.At(d.Pos, "method %s: two examples are named %q", m.Name, ex.Name)
			ok = false
		}
		names[ex.Name] = true
		if m.Notification {
			errs.At(d.Pos, "method %s is a notification: nothing answers it, so an example has nothing to show", m.Name)
			continue
		}
		params, pos, given := d.value("params")
		switch {
		case !given:
			ex.Params = []byte("{}")
		default:
			ex.ParamsPos = fset.Position(pos)
			ex.Params, ok = compactJSON(params, pos, "params", errs, ok)
			if len(ex.Params) > 0 && ex.Params[0] != '{' && ex.Params[0] != '[' {
				errs.At(pos, "//rpcgen:example: params must be a JSON object (by name) or array (by position), not %s", params)
				ok = false
			}
		}
		result, rpos, hasResult := d.value("result")
		errName, epos, hasError := d.value("error")
		data, dpos, hasData := d.value("data")
		switch {
		case hasResult == hasError:
			errs.At(d.Pos, "//rpcgen:example: give result=JSON, or error=ErrName (a declared error of the method), not both or neither")
			ok = false
		case hasResult:
			ex.ResultPos = fset.Position(rpos)
			ex.Result, ok = compactJSON(result, rpos, "result", errs, ok)
			if hasData {
				errs.At(dpos, "//rpcgen:example: data goes with error=, not result=")
				ok = false
			}
		default:
			for _, e := range m.Errors {
				if e.GoName == errName {
					ex.Error = e
				}
			}
			if ex.Error == nil {
				errs.At(epos, "//rpcgen:example: error=%s: not an error method %s declares (//rpcgen:method errors=%s)", errName, m.Name, errName)
				ok = false
			}
			if hasData {
				ex.DataPos = fset.Position(dpos)
				ex.ErrorData, ok = compactJSON(data, dpos, "data", errs, ok)
			}
		}
		if ok {
			m.Examples = append(m.Examples, ex)
		}
	}
}

// compactJSON returns text compacted, reporting it at pos when it is not
// one JSON value; ok is the caller's ok, false after a problem.
func compactJSON(text string, pos token.Pos, key string, errs *diag.Collector, ok bool) ([]byte, bool) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(text)); err != nil || !json.Valid([]byte(text)) {
		errs.At(pos, "//rpcgen:example: %s is not JSON: %s (quote a value holding spaces with backquotes: %s=`...`)", key, text, key)
		return nil, false
	}
	return buf.Bytes(), ok
}
