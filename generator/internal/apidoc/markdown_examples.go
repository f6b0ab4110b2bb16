package apidoc

// The Markdown reference's example requests and responses: explicit
// examples as written, and made-up ones built from the schemas.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/invopop/jsonschema"
)

// request is a request of m made from its schemas, indented JSON; "" when
// what it makes up fails the schemas (a pattern it did not follow, say), as
// the reference shows no request the server would refuse.
func (r *mdRenderer) request(m *apiMethod) string {
	msg := orderedJSON{{"jsonrpc", "2.0"}}
	if !m.Notification {
		msg = append(msg, jsonMember{"id", 1})
	}
	msg = append(msg, jsonMember{"method", m.Name})
	if len(m.Params) > 0 {
		params := orderedJSON{}
		for _, p := range m.Params {
			v := r.example(p.Schema, 0)
			if !r.valid(normalJSON(v), p.Schema, 0) {
				return ""
			}
			params = append(params, jsonMember{p.Name, v})
		}
		msg = append(msg, jsonMember{"params", params})
	}
	return indentJSON(msg)
}

// exampleRequest is the request of m's explicit example x, indented JSON.
func exampleRequest(m *apiMethod, x apiExample) string {
	return indentJSON(orderedJSON{{"jsonrpc", "2.0"}, {"id", 1}, {"method", m.Name}, {"params", x.Params}})
}

// exampleResponse is the response of an explicit example, indented JSON.
func exampleResponse(x apiExample) string {
	if x.Error != nil {
		return indentJSON(orderedJSON{{"jsonrpc", "2.0"}, {"id", 1}, {"error", x.Error}})
	}
	return indentJSON(orderedJSON{{"jsonrpc", "2.0"}, {"id", 1}, {"result", x.Result}})
}

// example makes up a value s accepts: its first example, default, enum
// value or const if it has one, else a plain value of its type within its
// bounds. A pattern is not followed.
func (r *mdRenderer) example(s *jsonschema.Schema, depth int) any {
	switch {
	case s == nil || s == jsonschema.TrueSchema || s == jsonschema.FalseSchema:
		return nil
	case s.Ref != "":
		if depth > 4 {
			return nil
		}
		return r.example(r.components[strings.TrimPrefix(s.Ref, "#/components/schemas/")], depth+1)
	case len(s.Examples) > 0:
		return s.Examples[0]
	case s.Default != nil:
		return s.Default
	case len(s.Enum) > 0:
		return s.Enum[0]
	case s.Const != nil:
		return s.Const
	case len(s.AnyOf) > 0:
		for _, x := range s.AnyOf {
			if x.Type != "null" {
				return r.example(x, depth)
			}
		}
		return nil
	}
	return r.exampleOfType(s, depth)
}

// exampleOfType makes up a plain value of s's type.
func (r *mdRenderer) exampleOfType(s *jsonschema.Schema, depth int) any {
	switch s.Type {
	case "string":
		return exampleString(s)
	case "integer", "number":
		return exampleNumber(s)
	case "boolean":
		return false
	case "array":
		return r.exampleArray(s, depth)
	case "object":
		return r.exampleObject(s, depth)
	case "null":
		return nil
	}
	return orderedJSON{}
}

func (r *mdRenderer) exampleArray(s *jsonschema.Schema, depth int) []any {
	n := 1
	if s.MinItems != nil {
		n = max(n, int(*s.MinItems))
	}
	if s.MaxItems != nil {
		n = min(n, int(*s.MaxItems))
	}
	if depth > 4 {
		n = 0
	}
	items := make([]any, 0, n)
	for i := range n {
		if i < len(s.PrefixItems) {
			items = append(items, r.example(s.PrefixItems[i], depth+1))
		} else {
			items = append(items, r.example(s.Items, depth+1))
		}
	}
	return items
}

func (r *mdRenderer) exampleObject(s *jsonschema.Schema, depth int) orderedJSON {
	obj := orderedJSON{}
	if s.Properties != nil {
		for p := s.Properties.Oldest(); p != nil; p = p.Next() {
			if depth > 4 && !slices.Contains(s.Required, p.Key) {
				continue
			}
			obj = append(obj, jsonMember{p.Key, r.example(p.Value, depth+1)})
		}
	} else if ap := s.AdditionalProperties; ap != nil && ap != jsonschema.FalseSchema && depth <= 4 {
		obj = append(obj, jsonMember{"key", r.example(ap, depth+1)})
	}
	return obj
}

func exampleString(s *jsonschema.Schema) string {
	switch {
	case s.Format == "date-time":
		return "2026-01-02T15:04:05Z"
	case s.Format == "date":
		return "2026-01-02"
	case s.ContentEncoding == "base64":
		return "aGVsbG8="
	}
	v := "text"
	if s.MinLength != nil && uint64(len(v)) < *s.MinLength {
		v += strings.Repeat("x", int(*s.MinLength)-len(v))
	}
	if s.MaxLength != nil && uint64(len(v)) > *s.MaxLength {
		v = v[:*s.MaxLength]
	}
	return v
}

func exampleNumber(s *jsonschema.Schema) json.Number {
	switch {
	case s.Minimum != "":
		if f, err := s.Minimum.Float64(); err == nil && f > 0 {
			return s.Minimum
		}
	case s.ExclusiveMinimum != "":
		if f, err := s.ExclusiveMinimum.Float64(); err == nil && f >= 0 {
			return json.Number(strconv.FormatFloat(f+1, 'f', -1, 64))
		}
	}
	if s.Maximum != "" {
		if f, err := s.Maximum.Float64(); err == nil && f < 0 {
			return s.Maximum
		}
		if f, err := s.Maximum.Float64(); err == nil && f < 1 {
			return "0"
		}
	}
	if s.ExclusiveMaximum != "" {
		if f, err := s.ExclusiveMaximum.Float64(); err == nil && f <= 1 {
			return "0"
		}
	}
	// 1 rather than 0, which is the value that most often means "none" or
	// "no end" (a stream's count of 0 runs until the caller stops) or fails
	// (a divisor): a made-up request should do something ordinary, and end.
	return "1"
}

// orderedJSON is a JSON object that keeps its members' order.
type orderedJSON []jsonMember

type jsonMember struct {
	key   string
	value any
}

func (o orderedJSON) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := jsonText(m.key)
		if err != nil {
			return nil, err
		}
		v, err := jsonText(m.value)
		if err != nil {
			return nil, err
		}
		b.WriteString(k + ":" + v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func indentJSON(v any) string {
	compact, err := jsonText(v)
	if err != nil {
		panic(fmt.Sprintf("rpcgen: example cannot be encoded: %v", err)) // built from schema values, all encodable
	}
	var out bytes.Buffer
	if err := json.Indent(&out, []byte(compact), "", "  "); err != nil {
		panic(fmt.Sprintf("rpcgen: example is not JSON: %v", err))
	}
	return out.String()
}
