package runtime

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/rpcgen/rpcgen/runtime/internal/jsonscan"
)

// DecodeParams decodes a request's params for a hand-written Handler, with
// encoding/json; generated dispatchers decode and validate with code generated per
// method (see Decoder) and do not call it. A JSON object is
// decoded into named, a pointer to a struct whose json keys are the method's param names
// (or to the method's single struct param); its top-level keys must all be known. A JSON
// array is decoded element by element into positional, pointers in parameter order,
// and must have exactly len(positional) elements. Absent or null params leave
// everything at its zero value. Every failure is a *Error with CodeInvalidParams whose
// message names the offending field or position, for example
// `invalid params: "a": cannot use string as int`.
func DecodeParams(raw json.RawMessage, named any, positional ...any) error {
	switch jsonscan.FirstByte(raw) {
	case 0:
		return nil
	case 'n':
		if string(raw) == "null" || string(jsonscan.TrimSpace(raw)) == "null" {
			return nil
		}
	case '{':
		return decodeNamed(raw, named, len(positional))
	case '[':
		return decodePositional(raw, named, positional)
	}
	return InvalidParams("params must be an object or an array")
}

func decodeNamed(raw json.RawMessage, named any, npositional int) error {
	if named == nil {
		if npositional > 0 {
			return InvalidParams("expected an array of %d positional params, got an object", npositional)
		}
		return checkKeys(raw, &paramKeys{})
	}
	if keys := keysOf(named); keys != nil {
		if err := checkKeys(raw, keys); err != nil {
			return err
		}
	}
	if err := json.Unmarshal(raw, named); err != nil {
		return paramsError("", err)
	}
	return nil
}

func decodePositional(raw json.RawMessage, named any, positional []any) error {
	n := jsonscan.CountElems(raw)
	if n < 0 {
		return InvalidParams("malformed JSON array")
	}
	if n != len(positional) {
		if len(positional) == 0 && named != nil {
			return InvalidParams("expected named params (an object), got an array")
		}
		return InvalidParams("expected %d positional params, got %d", len(positional), n)
	}
	var names []string
	if named != nil {
		if keys := keysOf(named); keys != nil && len(keys.names) == n {
			names = keys.names
		}
	}
	cur, _ := jsonscan.OpenArray(raw)
	for i := range positional {
		el, _ := cur.NextElem()
		if err := json.Unmarshal(el, positional[i]); err != nil {
			where := fmt.Sprintf("position %d", i+1)
			if names != nil {
				where = fmt.Sprintf("%q (position %d)", names[i], i+1)
			}
			return paramsError(where, err)
		}
	}
	return nil
}

// paramsError words a decoding error for the caller who sent the params.
func paramsError(where string, err error) error {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	var detail string
	switch {
	case errors.As(err, &typeErr):
		if typeErr.Field != "" {
			if where != "" {
				where += "."
			}
			where += fmt.Sprintf("%q", typeErr.Field)
		}
		detail = fmt.Sprintf("cannot use %s as %s", typeErr.Value, typeErr.Type)
	case errors.As(err, &syntaxErr):
		detail = "malformed JSON: " + syntaxErr.Error()
	default:
		detail = strings.TrimPrefix(err.Error(), "json: ")
	}
	if where == "" {
		return InvalidParams("%s", detail)
	}
	return InvalidParams("%s: %s", where, detail)
}

// paramKeys lists the json keys a params struct accepts.
type paramKeys struct {
	names []string
	list  string // the names quoted and comma-separated, for error messages
}

// keyCache maps a params type to its *paramKeys, or to nil when keys are not checked.
var keyCache sync.Map

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// keysOf returns the keys the struct named points to accepts, or nil when named is not
// a pointer to a plain struct (then unknown keys are left to its own decoding).
func keysOf(named any) *paramKeys {
	t := reflect.TypeOf(named)
	if v, ok := keyCache.Load(t); ok {
		return v.(*paramKeys)
	}
	var keys *paramKeys
	if t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct && !t.Implements(unmarshalerType) {
		keys = &paramKeys{}
		collectKeys(t.Elem(), keys, 0)
		quoted := make([]string, len(keys.names))
		for i, n := range keys.names {
			quoted[i] = fmt.Sprintf("%q", n)
		}
		keys.list = strings.Join(quoted, ", ")
	}
	keyCache.Store(t, keys)
	return keys
}

// collectKeys gathers field names the way encoding/json does: tag names, "-" skipped,
// untagged embedded structs flattened.
func collectKeys(t reflect.Type, keys *paramKeys, depth int) {
	if depth > 8 {
		return
	}
	for f := range t.Fields() {
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				collectKeys(ft, keys, depth+1)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		keys.names = append(keys.names, name)
	}
}

// checkKeys rejects the first top-level key of obj that keys does not know, matching
// case-insensitively as encoding/json does. It allocates only to report an error.
func checkKeys(obj []byte, keys *paramKeys) error {
	cur, ok := jsonscan.OpenObject(obj)
	if !ok {
		return InvalidParams("params must be an object or an array")
	}
	for {
		key, _, ok := cur.NextMember()
		if !ok {
			return nil
		}
		key = jsonscan.UnescapeKey(key)
		if !keys.has(key) {
			if len(keys.names) == 0 {
				return InvalidParams("unknown field %q (the method takes no params)", key)
			}
			return InvalidParams("unknown field %q (valid: %s)", key, keys.list)
		}
	}
}

func (k *paramKeys) has(key []byte) bool {
	for _, n := range k.names {
		if n == string(key) {
			return true
		}
	}
	for _, n := range k.names {
		if strings.EqualFold(n, string(key)) {
			return true
		}
	}
	return false
}

// EncodeResult encodes a handler's result; a value that cannot be encoded becomes an
// internal error (with the reason as its data) rather than a malformed response.
func EncodeResult(v any) (json.RawMessage, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, errInternal.clone().WithData("encode result: " + err.Error())
	}
	return b, nil
}

func (e *Error) clone() *Error {
	c := *e
	return &c
}
