package metaschema

import (
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"strings"
)

// Dialect is the only "$schema" a document may name: MCP's default, and the
// draft this package checks against.
const Dialect = "https://json-schema.org/draft/2020-12/schema"

// A keyword's value, as the 2020-12 meta-schema and its vocabularies
// (meta/core, meta/applicator, meta/unevaluated, meta/validation,
// meta/meta-data, meta/format-annotation, meta/content) require it.
type valueRule int

const (
	anyValue      valueRule = iota
	schemaValue             // a schema: an object or a boolean
	schemaArray             // a non-empty array of schemas
	schemaMap               // an object whose members are schemas
	stringValue             // a string
	uriRefValue             // a string, a URI reference
	idValue                 // a string, a URI reference with no fragment but an empty one
	anchorValue             // a string matching ^[A-Za-z_][-A-Za-z0-9._]*$
	boolValue               // true or false
	numberValue             // a number
	positiveValue           // a number greater than 0
	countValue              // an integer >= 0 (a number with no fraction)
	arrayValue              // an array of anything
	stringSet               // an array of unique strings
	typeValue               // a simple type name, or a non-empty array of unique ones
	vocabulary              // an object of booleans
	dependentReq            // an object of string sets
	dependencies            // an object of schemas or string sets (deprecated)
)

var keywords = map[string]valueRule{
	// core
	"$schema": uriRefValue, "$id": idValue, "$ref": uriRefValue, "$anchor": anchorValue,
	"$dynamicRef": uriRefValue, "$dynamicAnchor": anchorValue, "$vocabulary": vocabulary,
	"$comment": stringValue, "$defs": schemaMap,
	// applicator
	"prefixItems": schemaArray, "items": schemaValue, "contains": schemaValue,
	"additionalProperties": schemaValue, "properties": schemaMap, "patternProperties": schemaMap,
	"dependentSchemas": schemaMap, "propertyNames": schemaValue, "if": schemaValue,
	"then": schemaValue, "else": schemaValue, "allOf": schemaArray, "anyOf": schemaArray,
	"oneOf": schemaArray, "not": schemaValue,
	// unevaluated
	"unevaluatedItems": schemaValue, "unevaluatedProperties": schemaValue,
	// validation
	"type": typeValue, "const": anyValue, "enum": arrayValue, "multipleOf": positiveValue,
	"maximum": numberValue, "exclusiveMaximum": numberValue, "minimum": numberValue,
	"exclusiveMinimum": numberValue, "maxLength": countValue, "minLength": countValue,
	"pattern": stringValue, "maxItems": countValue, "minItems": countValue,
	"uniqueItems": boolValue, "maxContains": countValue, "minContains": countValue,
	"maxProperties": countValue, "minProperties": countValue, "required": stringSet,
	"dependentRequired": dependentReq,
	// meta-data
	"title": stringValue, "description": stringValue, "default": anyValue,
	"deprecated": boolValue, "readOnly": boolValue, "writeOnly": boolValue, "examples": arrayValue,
	// format-annotation and content
	"format": stringValue, "contentEncoding": stringValue, "contentMediaType": stringValue,
	"contentSchema": schemaValue,
	// kept by the 2020-12 meta-schema from earlier drafts
	"definitions": schemaMap, "dependencies": dependencies,
	"$recursiveAnchor": boolValue, "$recursiveRef": uriRefValue,
}

var simpleTypes = []string{"array", "boolean", "integer", "null", "number", "object", "string"}

var anchorPattern = regexp.MustCompile(`^[A-Za-z_][-A-Za-z0-9._]*$`)

// Check reports what keeps root from being a JSON Schema of draft 2020-12:
// keywords whose values the meta-schema does not allow, a "$schema" naming
// another dialect, and references that do not resolve inside the document
// (see checkRefs). Keywords the draft does not define are allowed, as the
// meta-schema allows them (x-mcp-header among them).
func Check(root *Node) []Problem {
	c := &checker{}
	c.schema(root)
	c.checkRefs(root)
	return c.problems
}

type checker struct {
	problems []Problem
	anchors  map[string]bool // plain-name fragments the document defines
	refs     []*Node         // every "$ref" and "$dynamicRef" value
}

func (c *checker) add(off int, format string, args ...any) {
	c.problems = append(c.problems, Problem{Off: off, Msg: fmt.Sprintf(format, args...)})
}

func (c *checker) schema(n *Node) {
	switch n.Kind {
	case Bool:
		return
	case Object:
	default:
		c.add(n.Off, "a schema must be an object or a boolean, not %s", n.Kind)
		return
	}
	for _, m := range n.Members {
		rule, known := keywords[m.Key]
		if !known {
			continue
		}
		c.keyword(m.Key, rule, m.Value)
	}
	if s := n.Get("$schema"); s != nil && s.Kind == String && s.Str != Dialect {
		c.add(s.Off, "dialect %q is not supported: write %q, or leave \"$schema\" out (2020-12 is MCP's default)", s.Str, Dialect)
	}
}

func (c *checker) keyword(key string, rule valueRule, v *Node) {
	switch rule {
	case anyValue:
	case schemaValue, schemaArray, schemaMap:
		c.subschemas(key, rule, v)
	case stringValue, uriRefValue, idValue, anchorValue:
		c.stringKeyword(key, rule, v)
	case boolValue, numberValue, positiveValue, countValue, arrayValue:
		c.scalarKeyword(key, rule, v)
	case stringSet:
		c.stringSet(key, v)
	case typeValue:
		c.typeKeyword(v)
	case vocabulary, dependentReq, dependencies:
		c.objectKeyword(key, rule, v)
	}
}

// want reports that keyword key's value v is not what.
func (c *checker) want(key, what string, v *Node) {
	c.add(v.Off, "%q must be %s, not %s", key, what, v.Kind)
}

func (c *checker) subschemas(key string, rule valueRule, v *Node) {
	switch rule {
	case schemaValue:
		c.schema(v)
	case schemaArray:
		if v.Kind != Array {
			c.want(key, "a non-empty array of schemas", v)
			return
		}
		if len(v.Elems) == 0 {
			c.add(v.Off, "%q must not be an empty array", key)
		}
		for _, e := range v.Elems {
			c.schema(e)
		}
	case schemaMap:
		if v.Kind != Object {
			c.want(key, "an object of schemas", v)
			return
		}
		for _, m := range v.Members {
			c.schema(m.Value)
		}
	}
}

func (c *checker) stringKeyword(key string, rule valueRule, v *Node) {
	if v.Kind != String {
		c.want(key, "a string", v)
		return
	}
	switch {
	case rule == anchorValue && !anchorPattern.MatchString(v.Str):
		c.add(v.Off, "%q %q is not a plain name (a letter or _ first, then letters, digits, -, _ and .)", key, v.Str)
	case rule == idValue && strings.Contains(strings.TrimSuffix(v.Str, "#"), "#"):
		c.add(v.Off, "%q %q must not have a fragment (use \"$anchor\" to name a subschema)", key, v.Str)
	case (rule == uriRefValue || rule == idValue) && strings.ContainsAny(v.Str, " \t\r\n<>\"{}|\\^`"):
		c.add(v.Off, "%q %q is not a URI reference", key, v.Str)
	}
	if rule == anchorValue {
		if c.anchors == nil {
			c.anchors = map[string]bool{}
		}
		if c.anchors[v.Str] {
			c.add(v.Off, "anchor %q is defined twice", v.Str)
		}
		c.anchors[v.Str] = true
	}
	if key == "$ref" || key == "$dynamicRef" {
		c.refs = append(c.refs, v)
	}
}

func (c *checker) scalarKeyword(key string, rule valueRule, v *Node) {
	switch rule {
	case boolValue:
		if v.Kind != Bool {
			c.want(key, "true or false", v)
		}
	case numberValue:
		if v.Kind != Number {
			c.want(key, "a number", v)
		}
	case positiveValue:
		if v.Kind != Number || sign(v) <= 0 {
			c.add(v.Off, "%q must be a number greater than 0", key)
		}
	case countValue:
		if v.Kind != Number || !isInteger(v) || sign(v) < 0 {
			c.add(v.Off, "%q must be an integer, 0 or more", key)
		}
	case arrayValue:
		if v.Kind != Array {
			c.want(key, "an array", v)
		}
	}
}

func (c *checker) objectKeyword(key string, rule valueRule, v *Node) {
	if v.Kind != Object {
		c.want(key, "an object", v)
		return
	}
	for _, m := range v.Members {
		switch {
		case rule == vocabulary:
			if m.Value.Kind != Bool {
				c.add(m.Value.Off, "\"$vocabulary\" member %q must be true or false", m.Key)
			}
		case rule == dependencies && m.Value.Kind != Array:
			c.schema(m.Value)
		default:
			c.stringSet(key+"."+m.Key, m.Value)
		}
	}
}

func (c *checker) stringSet(key string, v *Node) {
	if v.Kind != Array {
		c.add(v.Off, "%q must be an array of strings, not %s", key, v.Kind)
		return
	}
	seen := map[string]bool{}
	for _, e := range v.Elems {
		switch {
		case e.Kind != String:
			c.add(e.Off, "%q must hold only strings, not %s", key, e.Kind)
		case seen[e.Str]:
			c.add(e.Off, "%q lists %q twice", key, e.Str)
		}
		seen[e.Str] = true
	}
}

func (c *checker) typeKeyword(v *Node) {
	bad := func(n *Node) { c.add(n.Off, "\"type\" must name %s", strings.Join(simpleTypes, ", ")) }
	switch v.Kind {
	case String:
		if !slices.Contains(simpleTypes, v.Str) {
			bad(v)
		}
	case Array:
		if len(v.Elems) == 0 {
			c.add(v.Off, "\"type\" must not be an empty array")
		}
		seen := map[string]bool{}
		for _, e := range v.Elems {
			switch {
			case e.Kind != String || !slices.Contains(simpleTypes, e.Str):
				bad(e)
			case seen[e.Str]:
				c.add(e.Off, "\"type\" lists %q twice", e.Str)
			}
			seen[e.Str] = true
		}
	default:
		c.add(v.Off, "\"type\" must be a string or an array of strings, not %s", v.Kind)
	}
}

func number(n *Node) *big.Rat {
	r, ok := new(big.Rat).SetString(string(n.Num))
	if !ok {
		return new(big.Rat)
	}
	return r
}

func sign(n *Node) int       { return number(n).Sign() }
func isInteger(n *Node) bool { return number(n).IsInt() }
