package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strings"
)

// A schemaChange is one difference between two JSON Schemas at a path.
type schemaChange struct {
	path     string
	narrower bool // the new schema accepts some value the old accepted
	wider    bool // the new schema accepts some value the old refused
	removed  bool // a property is gone
	added    bool // a property is new
	required bool // a property became required (narrower) or optional (wider)
	old, new string
}

// schemaCmp compares schemas rpcgen emits, resolving "$ref"s into each
// side's roots ($defs of the schema itself, and components).
type schemaCmp struct {
	oldRoot, newRoot map[string]any
	oldComp, newComp map[string]json.RawMessage
	seen             map[[2]string]bool
	out              []schemaChange
}

// decode reads a schema with its numbers as written (json.Number), so
// that bounds such as the int64 minimum compare and print exactly.
func decode(raw json.RawMessage) map[string]any {
	var v map[string]any
	if len(raw) > 0 {
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		_ = d.Decode(&v)
	}
	return v
}

// decodeAny reads any JSON value as decode does.
func decodeAny(raw json.RawMessage) any {
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	_ = d.Decode(&v)
	return v
}

// compareSchemas reports how new differs from old as a set of accepted
// values.
func compareSchemas(old, new json.RawMessage, oldComp, newComp map[string]json.RawMessage) []schemaChange {
	c := &schemaCmp{oldRoot: decode(old), newRoot: decode(new), oldComp: oldComp, newComp: newComp, seen: map[[2]string]bool{}}
	c.cmp("", c.oldRoot, c.newRoot)
	return c.out
}

func (c *schemaCmp) resolve(s map[string]any, root map[string]any, comp map[string]json.RawMessage) (map[string]any, string) {
	ref, _ := s["$ref"].(string)
	for depth := 0; ref != "" && depth < 32; depth++ {
		var next map[string]any
		switch {
		case strings.HasPrefix(ref, "#/components/schemas/"):
			next = decode(comp[strings.TrimPrefix(ref, "#/components/schemas/")])
		case strings.HasPrefix(ref, "#/$defs/"):
			defs, _ := root["$defs"].(map[string]any)
			next, _ = defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
		}
		if next == nil {
			return s, ref
		}
		s = next
		r, _ := s["$ref"].(string)
		if r == "" {
			return s, ref
		}
		ref = r
	}
	return s, ref
}

// nullable splits {"anyOf":[X,{"type":"null"}]} into X and true.
func nullable(s map[string]any) (map[string]any, bool) {
	alts, ok := s["anyOf"].([]any)
	if !ok || len(alts) != 2 {
		return s, typesOf(s)["null"]
	}
	for i, b := range alts {
		if m, _ := b.(map[string]any); m != nil && m["type"] == "null" && len(m) == 1 {
			other, _ := alts[1-i].(map[string]any)
			return other, true
		}
	}
	return s, false
}

func typesOf(s map[string]any) map[string]bool {
	out := map[string]bool{}
	switch t := s["type"].(type) {
	case string:
		out[t] = true
	case []any:
		for _, e := range t {
			if s, ok := e.(string); ok {
				out[s] = true
			}
		}
	}
	return out
}

func shape(s map[string]any) string {
	if s == nil {
		return "any"
	}
	b, _ := json.Marshal(s)
	if len(b) > 120 {
		return string(b[:117]) + "..."
	}
	return string(b)
}

func (c *schemaCmp) add(ch schemaChange) { c.out = append(c.out, ch) }

func (c *schemaCmp) cmp(path string, old, new map[string]any) {
	old, oldRef := c.resolve(old, c.oldRoot, c.oldComp)
	new, newRef := c.resolve(new, c.newRoot, c.newComp)
	if oldRef != "" || newRef != "" {
		key := [2]string{oldRef + "@" + path, newRef}
		if oldRef != "" && newRef != "" {
			key = [2]string{oldRef, newRef} // a recursive type: compare each pair of definitions once
		}
		if c.seen[key] {
			return
		}
		c.seen[key] = true
	}
	if old == nil || new == nil {
		switch {
		case old == nil && new != nil && len(new) > 0:
			c.add(schemaChange{path: path, narrower: true, old: "any", new: shape(new)})
		case new == nil && old != nil && len(old) > 0:
			c.add(schemaChange{path: path, wider: true, old: shape(old), new: "any"})
		}
		return
	}
	oi, on := nullable(old)
	ni, nn := nullable(new)
	if on && !nn {
		c.add(schemaChange{path: path, narrower: true, old: "null allowed", new: "null refused"})
	} else if !on && nn {
		c.add(schemaChange{path: path, wider: true, old: "null refused", new: "null allowed"})
	}
	if oi != nil && ni != nil {
		if _, isAny := oi["anyOf"]; isAny || ni["anyOf"] != nil {
			if !jsonEqual(oi["anyOf"], ni["anyOf"]) {
				c.add(schemaChange{path: path, narrower: true, wider: true, old: shape(oi), new: shape(ni)})
			}
			return
		}
	}
	old, new = oi, ni
	ot, nt := typesOf(old), typesOf(new)
	delete(ot, "null")
	delete(nt, "null")
	lost, gained := setDiff(ot, nt), setDiff(nt, ot)
	if nt["number"] && slices.Contains(lost, "integer") {
		lost = slices.DeleteFunc(lost, func(s string) bool { return s == "integer" })
	}
	if ot["number"] && slices.Contains(gained, "integer") {
		gained = slices.DeleteFunc(gained, func(s string) bool { return s == "integer" })
	}
	if len(ot) > 0 && len(nt) > 0 && (len(lost) > 0 || len(gained) > 0) {
		c.add(schemaChange{path: path, narrower: len(lost) > 0 || (ot["number"] && nt["integer"]), wider: len(gained) > 0,
			old: typeName(ot), new: typeName(nt)})
		return // a retyped value: what is inside no longer lines up
	}
	c.enum(path, old, new)
	c.bounds(path, old, new)
	c.object(path, old, new)
	if oi, ok := old["items"].(map[string]any); ok {
		ni, _ := new["items"].(map[string]any)
		c.cmp(path+"[]", oi, ni)
	}
	if oa, ok := old["additionalProperties"].(map[string]any); ok {
		if na, ok := new["additionalProperties"].(map[string]any); ok {
			c.cmp(path+"{}", oa, na)
		}
	}
}

func typeName(t map[string]bool) string {
	names := slices.Sorted(maps.Keys(t))
	return strings.Join(names, "|")
}

func setDiff(a, b map[string]bool) []string {
	var out []string
	for k := range a {
		if !b[k] {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func (c *schemaCmp) enum(path string, old, new map[string]any) {
	oe, oOK := old["enum"].([]any)
	ne, nOK := new["enum"].([]any)
	if oc, ok := old["const"]; ok {
		oe, oOK = []any{oc}, true
	}
	if nc, ok := new["const"]; ok {
		ne, nOK = []any{nc}, true
	}
	key := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	set := func(l []any) map[string]bool {
		m := map[string]bool{}
		for _, v := range l {
			m[key(v)] = true
		}
		return m
	}
	switch {
	case !oOK && !nOK:
		return
	case !oOK:
		c.add(schemaChange{path: path, narrower: true, old: "any value", new: "enum " + key(ne)})
	case !nOK:
		c.add(schemaChange{path: path, wider: true, old: "enum " + key(oe), new: "any value"})
	default:
		os, ns := set(oe), set(ne)
		if lost := setDiff(os, ns); len(lost) > 0 {
			c.add(schemaChange{path: path, narrower: true, old: "enum " + key(oe), new: "enum " + key(ne) + " (without " + strings.Join(lost, ", ") + ")"})
		}
		if gained := setDiff(ns, os); len(gained) > 0 {
			c.add(schemaChange{path: path, wider: true, old: "enum " + key(oe), new: "enum " + key(ne) + " (with " + strings.Join(gained, ", ") + ")"})
		}
	}
}

// bounds compares the keywords that bound a value: lower bounds tighten
// upward, upper bounds downward, a pattern or format added or changed
// tightens (rpcgen cannot compare regular expressions).
func (c *schemaCmp) bounds(path string, old, new map[string]any) {
	lower := []string{"minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties"}
	upper := []string{"maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "multipleOf"}
	num := func(m map[string]any, k string) (*big.Rat, bool) {
		n, ok := m[k].(json.Number)
		if !ok {
			return nil, false
		}
		r, ok := (&big.Rat{}).SetString(string(n))
		return r, ok
	}
	for _, k := range lower {
		o, oOK := num(old, k)
		n, nOK := num(new, k)
		switch {
		case nOK && (!oOK || n.Cmp(o) > 0):
			c.add(schemaChange{path: path, narrower: true, old: bound(k, o, oOK), new: bound(k, n, nOK)})
		case oOK && (!nOK || n.Cmp(o) < 0):
			c.add(schemaChange{path: path, wider: true, old: bound(k, o, oOK), new: bound(k, n, nOK)})
		}
	}
	for _, k := range upper {
		o, oOK := num(old, k)
		n, nOK := num(new, k)
		narrower := nOK && (!oOK || n.Cmp(o) < 0)
		if k == "multipleOf" {
			narrower = nOK && (!oOK || n.Cmp(o) != 0)
		}
		switch {
		case narrower:
			c.add(schemaChange{path: path, narrower: true, old: bound(k, o, oOK), new: bound(k, n, nOK)})
		case oOK && (!nOK || n.Cmp(o) > 0):
			c.add(schemaChange{path: path, wider: true, old: bound(k, o, oOK), new: bound(k, n, nOK)})
		}
	}
	for _, k := range []string{"pattern", "format"} {
		o, _ := old[k].(string)
		n, _ := new[k].(string)
		switch {
		case n != "" && n != o:
			c.add(schemaChange{path: path, narrower: true, old: fmt.Sprintf("%s %q", k, o), new: fmt.Sprintf("%s %q", k, n)})
		case o != "" && n == "":
			c.add(schemaChange{path: path, wider: true, old: fmt.Sprintf("%s %q", k, o), new: "no " + k})
		}
	}
}

// bound prints a bound as an exact number: an integer as written, any
// other number as its shortest exact decimal.
func bound(k string, v *big.Rat, ok bool) string {
	if !ok {
		return "no " + k
	}
	if v.IsInt() {
		return k + " " + v.Num().String()
	}
	if s, exact := v.FloatPrec(); exact {
		return k + " " + v.FloatString(s)
	}
	return k + " " + v.RatString()
}

func (c *schemaCmp) object(path string, old, new map[string]any) {
	op, _ := old["properties"].(map[string]any)
	np, _ := new["properties"].(map[string]any)
	if op == nil && np == nil && old["additionalProperties"] == nil && new["additionalProperties"] == nil {
		return
	}
	req := func(m map[string]any) map[string]bool {
		out := map[string]bool{}
		if l, ok := m["required"].([]any); ok {
			for _, e := range l {
				if s, ok := e.(string); ok {
					out[s] = true
				}
			}
		}
		return out
	}
	or, nr := req(old), req(new)
	closed := func(m map[string]any) bool { b, ok := m["additionalProperties"].(bool); return ok && !b }
	oc, nc := closed(old), closed(new)
	if !oc && nc {
		c.add(schemaChange{path: path, narrower: true, old: "additionalProperties open", new: "additionalProperties false"})
	} else if oc && !nc {
		c.add(schemaChange{path: path, wider: true, old: "additionalProperties false", new: "additionalProperties open"})
	}
	sub := func(name string) string {
		if path == "" {
			return name
		}
		return path + "." + name
	}
	for _, name := range slices.Sorted(maps.Keys(op)) {
		ps, _ := op[name].(map[string]any)
		if _, ok := np[name]; !ok {
			c.add(schemaChange{path: sub(name), removed: true, narrower: nc, wider: !nc, old: shape(ps), new: "gone"})
			continue
		}
		ns, _ := np[name].(map[string]any)
		switch {
		case !or[name] && nr[name]:
			c.add(schemaChange{path: sub(name), required: true, narrower: true, old: "optional", new: "required"})
		case or[name] && !nr[name]:
			c.add(schemaChange{path: sub(name), required: true, wider: true, old: "required", new: "optional"})
		}
		c.cmp(sub(name), ps, ns)
	}
	for _, name := range slices.Sorted(maps.Keys(np)) {
		if _, ok := op[name]; ok {
			continue
		}
		ns, _ := np[name].(map[string]any)
		ch := schemaChange{path: sub(name), added: true, old: "absent", new: shape(ns), wider: true}
		if nr[name] {
			ch.required, ch.narrower, ch.new = true, true, "required "+shape(ns)
		}
		if oc {
			ch.wider = true // a property the old schema refused is accepted
		}
		c.add(ch)
	}
}
