package httpwire

import (
	"encoding/base64"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp/internal/wire"
)

// Mcp-Param-* headers (2026-07-28): a tool's input schema may mark
// properties with "x-mcp-header": <Name>, and a client then mirrors the
// argument's value into the header Mcp-Param-<Name>, so that intermediaries
// can route on it. What both sides share is here: reading the annotations
// out of a schema, finding an argument's value, and the header value
// encoding (which Mcp-Name uses too). The server's checks are in
// mcphttp's paramheaders.go, the client's header setting in mcphttpclient's
// client_params.go.

// ParamHeader is one x-mcp-header parameter: its header and where its value
// is in the arguments.
type ParamHeader struct {
	Header string   // canonical "Mcp-Param-{Name}"
	Path   []string // properties keys from the schema root
}

// SchemaParams returns the x-mcp-header parameters of a tool's input
// schema, found on its chains of properties (the only place the
// specification allows them), and problem, which says why the annotations
// are invalid ("" when they are not): a name that is not an HTTP token or is
// used twice, a property whose type is not string, integer or boolean, or a
// schema nested too deeply. A client excludes a tool whose annotations are
// invalid; the server checks the parameters found either way (invalid and
// duplicate names left out).
func SchemaParams(schema []byte) (params []ParamHeader, problem string) {
	collectParams(schema, nil, &params, map[string]bool{}, &problem, 0)
	return params, problem
}

// collectParams adds the annotations on the properties of schema, and
// recursively of their own properties, to out; problem gets the first
// problem found.
func collectParams(schema []byte, path []string, out *[]ParamHeader, seen map[string]bool, problem *string, depth int) {
	report := func(p string) {
		if *problem == "" {
			*problem = p
		}
	}
	if depth > 32 {
		report("schema nested too deeply")
		return
	}
	sc, ok := runtime.ScanObject(Member(schema, "properties"))
	for ok {
		key, sub, more := sc.Next()
		if !more {
			break
		}
		at := append(path[:len(path):len(path)], string(key))
		var header, typ []byte
		ps, isObj := runtime.ScanObject(sub)
		for isObj {
			k, v, more := ps.Next()
			if !more {
				break
			}
			switch string(k) {
			case "x-mcp-header":
				header = v
			case "type":
				typ = v
			}
		}
		if header != nil {
			name, isString := String(header)
			switch {
			case !isString || !IsToken(name):
				report("x-mcp-header " + string(header) + " is not an HTTP token")
			case seen[strings.ToLower(name)]:
				report("x-mcp-header " + string(header) + " is used twice")
			default:
				if typ != nil && !wire.StringIs(typ, "string") && !wire.StringIs(typ, "integer") && !wire.StringIs(typ, "boolean") {
					report("x-mcp-header " + string(header) + " is on a property of type " + string(typ))
				}
				seen[strings.ToLower(name)] = true
				*out = append(*out, ParamHeader{Header: http.CanonicalHeaderKey("Mcp-Param-" + name), Path: at})
			}
		}
		collectParams(sub, at, out, seen, problem, depth+1)
	}
}

// ParamValue returns the raw primitive value (a string, number or boolean)
// at path in the arguments object, or nil when there is none there: absent,
// null, an object or an array. Of duplicate members the last counts, as in
// encoding/json.
func ParamValue(args []byte, path []string) []byte {
	cur := args
	for _, key := range path {
		if cur = Member(cur, key); cur == nil {
			return nil
		}
	}
	if len(cur) == 0 || cur[0] == '{' || cur[0] == '[' || string(cur) == "null" {
		return nil
	}
	return cur
}

// IsToken reports whether s is an HTTP field-name token (RFC 9110 tchar+).
func IsToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}

// The =?base64?…?= form of an Mcp-Name or Mcp-Param-* value that is not
// safe in a header as it is.
const base64Prefix, base64Suffix = "=?base64?", "?="

// EncodeHeaderValue returns s as an Mcp-Name or Mcp-Param-* header value:
// as it is, or in the =?base64?…?= form when s is not safe as it is:
// anything but visible ASCII and inner spaces, leading or trailing space, or
// text that looks like the encoded form itself.
func EncodeHeaderValue(s string) string {
	safe := s == "" || (s[0] != ' ' && s[len(s)-1] != ' ')
	for i := 0; safe && i < len(s); i++ {
		safe = s[i] >= 0x20 && s[i] <= 0x7e
	}
	if safe && !(strings.HasPrefix(s, base64Prefix) && strings.HasSuffix(s, base64Suffix)) {
		return s
	}
	return base64Prefix + base64.StdEncoding.EncodeToString([]byte(s)) + base64Suffix
}

// DecodeHeaderValue returns the value an Mcp-Name or Mcp-Param-* header
// carries: its =?base64?…?= form decoded, or the plain value, which must be
// visible ASCII (spaces and tabs allowed inside).
func DecodeHeaderValue(v string) (string, bool) {
	if len(v) >= len(base64Prefix)+len(base64Suffix) && strings.HasPrefix(v, base64Prefix) && strings.HasSuffix(v, base64Suffix) {
		// Strictly: padded, the standard alphabet, no stray bits, as
		// SEP-2243's table of cases has it (unpadded "SGVsbG8" is refused).
		enc := v[len(base64Prefix) : len(v)-len(base64Suffix)]
		b, err := base64.StdEncoding.Strict().DecodeString(enc)
		if err != nil || strings.ContainsAny(enc, "\r\n") {
			return "", false
		}
		if !utf8.Valid(b) {
			return "", false
		}
		return string(b), true
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x20 || c > 0x7e) && c != '\t' {
			return "", false
		}
	}
	return v, true
}
