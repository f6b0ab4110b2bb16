package skills

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A SKILL.md's frontmatter is YAML. rpcgen reads the part of YAML an Agent
// Skills frontmatter needs, and refuses the rest with its position, so that
// the JSON object it computes is exactly what a YAML 1.2 parser (the host's)
// reads from the same lines:
//
//   - top-level "key: value" lines, a key made of letters, digits, _ and -;
//   - a value that is a plain scalar (which may go on over more-indented
//     lines, folded with spaces), a 'single-quoted' or a "double-quoted"
//     string on one line;
//   - a key with no value, followed by more-indented "key: value" lines: a
//     mapping of strings (metadata);
//   - blank lines and # comments.
//
// A plain scalar YAML would read as something else than a string (true,
// null, 3, 1.5, .inf) is refused: write it quoted. So are block scalars,
// flow collections, sequences, anchors, aliases and tags.

// field is one key of a mapping, in the order of the file.
type field struct {
	key        string
	line, col  int // the key's
	vline      int // the value's
	vcol       int
	str        string  // a string value
	mapping    []field // a mapping value (metadata)
	hasMapping bool
}

// posError is a problem at a line and column of the file.
type posError struct {
	line, col int
	msg       string
}

func (e *posError) Error() string { return fmt.Sprintf("%d:%d: %s", e.line, e.col, e.msg) }

func errAt(line, col int, format string, args ...any) *posError {
	return &posError{line, col, fmt.Sprintf(format, args...)}
}

// splitFrontmatter finds the frontmatter of a SKILL.md: the lines between a
// first line "---" and the next "---". It returns them and the line of the
// first of them.
func splitFrontmatter(src []byte) ([]string, *posError) {
	if !utf8.Valid(src) {
		return nil, errAt(1, 1, "SKILL.md is not UTF-8 text")
	}
	if bytes.HasPrefix(src, []byte("\uFEFF")) {
		return nil, errAt(1, 1, "SKILL.md starts with a byte order mark: remove it")
	}
	if i := bytes.IndexByte(src, '\r'); i >= 0 {
		line := bytes.Count(src[:i], []byte("\n")) + 1
		return nil, errAt(line, i-bytes.LastIndexByte(src[:i], '\n'), "SKILL.md has a carriage return: write its lines ending in \\n alone, so that its digest is the same on every system")
	}
	lines := strings.Split(string(src), "\n")
	if strings.TrimRight(lines[0], " \t") != "---" {
		return nil, errAt(1, 1, "SKILL.md must begin with YAML frontmatter: a line ---, the fields (name and description at least), a line ---")
	}
	for i := 1; i < len(lines); i++ {
		if strings.TrimRight(lines[i], " \t") == "---" {
			return lines[1:i], nil
		}
	}
	return nil, errAt(1, 1, "the frontmatter has no closing --- line")
}

var keyRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_./-]*$`)

// parseFields reads the mapping of lines (the first at line first).
func parseFields(lines []string, first int) ([]field, *posError) {
	var out []field
	seen := map[string]bool{}
	for i := 0; i < len(lines); i++ {
		ln := first + i
		line := lines[i]
		if isBlankOrComment(line) {
			continue
		}
		if line[0] == ' ' || line[0] == '\t' {
			return nil, errAt(ln, 1, "unexpected indentation: a top-level field starts at column 1")
		}
		f, rest, err := parseKey(line, ln, 0)
		if err != nil {
			return nil, err
		}
		if seen[f.key] {
			return nil, errAt(ln, 1, "field %q is given twice", f.key)
		}
		seen[f.key] = true
		// The lines indented under this one.
		j := i + 1
		for j < len(lines) && (isBlankOrComment(lines[j]) || lines[j][0] == ' ') {
			j++
		}
		for j > i+1 && isBlankOrComment(lines[j-1]) {
			j--
		}
		more := lines[i+1 : j]
		if strings.TrimSpace(rest) == "" || strings.HasPrefix(strings.TrimSpace(rest), "#") {
			if len(more) == 0 {
				return nil, errAt(ln, len(line)+1, "field %q has no value (YAML reads null): give it a string", f.key)
			}
			m, err := parseMapping(more, ln+1, f.key)
			if err != nil {
				return nil, err
			}
			f.mapping, f.hasMapping = m, true
		} else {
			f.vline, f.vcol = ln, len(line)-len(rest)+1
			s, err := parseScalar(rest, more, ln, f.vcol)
			if err != nil {
				return nil, err
			}
			f.str = s
		}
		out = append(out, f)
		i = j - 1
	}
	return out, nil
}

// parseMapping reads the indented "key: value" lines of a mapping of strings.
func parseMapping(lines []string, first int, parent string) ([]field, *posError) {
	var out []field
	seen := map[string]bool{}
	indent := -1
	for i := 0; i < len(lines); i++ {
		ln := first + i
		line := lines[i]
		if isBlankOrComment(line) {
			continue
		}
		n := len(line) - len(strings.TrimLeft(line, " "))
		if indent < 0 {
			indent = n
		}
		if n != indent {
			return nil, errAt(ln, n+1, "under %q, every field must be indented alike (%d spaces); rpcgen reads one level of nesting", parent, indent)
		}
		f, rest, err := parseKey(line[n:], ln, n)
		if err != nil {
			return nil, err
		}
		if seen[f.key] {
			return nil, errAt(ln, n+1, "%s.%s is given twice", parent, f.key)
		}
		seen[f.key] = true
		j := i + 1
		for j < len(lines) && !isBlankOrComment(lines[j]) && len(lines[j])-len(strings.TrimLeft(lines[j], " ")) > indent {
			j++
		}
		if strings.TrimSpace(rest) == "" {
			return nil, errAt(ln, len(line)+1, "%s.%s has no value: give it a string (rpcgen reads one level of nesting)", parent, f.key)
		}
		f.vline, f.vcol = ln, len(line)-len(rest)+1
		s, err := parseScalar(rest, lines[i+1:j], ln, f.vcol)
		if err != nil {
			return nil, err
		}
		f.str = s
		out = append(out, f)
		i = j - 1
	}
	return out, nil
}

func isBlankOrComment(line string) bool {
	t := strings.TrimSpace(line)
	return t == "" || t[0] == '#'
}

// parseKey reads "key:" at the start of line (at column indent+1) and
// returns the field and what follows the colon.
func parseKey(line string, ln, indent int) (field, string, *posError) {
	k, rest, ok := strings.Cut(line, ":")
	if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '\t') {
		return field{}, "", errAt(ln, indent+1, "expected a field, key: value (rpcgen reads a mapping of fields, not sequences or other YAML forms)")
	}
	if !keyRE.MatchString(k) {
		return field{}, "", errAt(ln, indent+1, "field name %q: use letters, digits, _, ., / and - (rpcgen reads plain keys)", k)
	}
	return field{key: k, line: ln, col: indent + 1}, rest, nil
}

var (
	nullRE  = regexp.MustCompile(`^(~|null|Null|NULL)$`)
	boolRE  = regexp.MustCompile(`^(true|True|TRUE|false|False|FALSE)$`)
	intRE   = regexp.MustCompile(`^([-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$`)
	floatRE = regexp.MustCompile(`^([-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?|[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN))$`)
)

// parseScalar reads a value that starts in rest (at line ln, column col)
// and may go on over the more-indented lines more.
func parseScalar(rest string, more []string, ln, col int) (string, *posError) {
	lead := len(rest) - len(strings.TrimLeft(rest, " \t"))
	v := strings.TrimLeft(rest, " \t")
	col += lead
	switch v[0] {
	case '"', '\'':
		s, tail, err := parseQuoted(v, ln, col)
		if err != nil {
			return "", err
		}
		if t := strings.TrimSpace(tail); t != "" && t[0] != '#' {
			return "", errAt(ln, col+len(v)-len(tail), "unexpected text after the quoted string")
		}
		if len(more) > 0 && !isBlankOrComment(more[0]) {
			return "", errAt(ln+1, 1, "a quoted string must end on its line (rpcgen reads one-line quoted strings)")
		}
		return s, nil
	case '|', '>':
		return "", errAt(ln, col, "block scalars (| and >) are not read by rpcgen: write the value on one line, or over more-indented lines that YAML folds with spaces")
	case '[', '{':
		return "", errAt(ln, col, "flow collections are not read by rpcgen: write a string (allowed-tools is a space-separated string)")
	case '&', '*', '!', '%', '@', '`':
		return "", errAt(ln, col, "%q cannot start a plain value: quote the value", v[0])
	case '-', '?', ':':
		if len(v) == 1 || v[1] == ' ' {
			return "", errAt(ln, col, "%q followed by a space cannot start a plain value: quote the value", v[0])
		}
	}
	parts := []string{}
	add := func(s string, ln, col int) *posError {
		if i := strings.Index(s, " #"); i >= 0 {
			s = s[:i]
		}
		s = strings.TrimRight(s, " \t")
		if i := strings.Index(s, ": "); i >= 0 || strings.HasSuffix(s, ":") {
			if i < 0 {
				i = len(s) - 1
			}
			return errAt(ln, col+i, "\": \" in a plain value: quote the value")
		}
		parts = append(parts, s)
		return nil
	}
	if err := add(v, ln, col); err != nil {
		return "", err
	}
	for i, m := range more {
		if isBlankOrComment(m) {
			return "", errAt(ln+1+i, 1, "a blank or comment line inside a value that goes on: rpcgen folds only consecutive lines")
		}
		t := strings.TrimLeft(m, " ")
		if err := add(t, ln+1+i, len(m)-len(t)+1); err != nil {
			return "", err
		}
	}
	s := strings.Join(parts, " ")
	if len(parts) == 1 && (nullRE.MatchString(s) || boolRE.MatchString(s) || intRE.MatchString(s) || floatRE.MatchString(s)) {
		return "", errAt(ln, col, "YAML reads %s as something other than a string: quote it", s)
	}
	return s, nil
}

// parseQuoted reads the quoted string at the start of v and returns it and
// what follows.
func parseQuoted(v string, ln, col int) (string, string, *posError) {
	q := v[0]
	var b strings.Builder
	for i := 1; i < len(v); i++ {
		c := v[i]
		switch {
		case c == q && q == '\'' && i+1 < len(v) && v[i+1] == '\'':
			b.WriteByte('\'')
			i++
		case c == q:
			return b.String(), v[i+1:], nil
		case c == '\\' && q == '"':
			if i+1 >= len(v) {
				return "", "", errAt(ln, col+i, "unterminated escape")
			}
			i++
			switch e := v[i]; e {
			case '"', '\\', '/':
				b.WriteByte(e)
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'u':
				if i+4 >= len(v) {
					return "", "", errAt(ln, col+i-1, `\u needs four hex digits`)
				}
				r, err := strconv.ParseUint(v[i+1:i+5], 16, 32)
				if err != nil {
					return "", "", errAt(ln, col+i-1, `\u needs four hex digits`)
				}
				b.WriteRune(rune(r))
				i += 4
			default:
				return "", "", errAt(ln, col+i-1, `escape \%c is not read by rpcgen (it reads \" \\ \/ \n \t \uXXXX)`, e)
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", "", errAt(ln, col, "the quoted string does not end on its line")
}

// toJSON renders the fields as a compact JSON object.
func toJSON(fields []field) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.key)
		b.Write(k)
		b.WriteByte(':')
		if f.hasMapping {
			b.Write(toJSON(f.mapping))
			continue
		}
		s, _ := json.Marshal(f.str)
		b.Write(s)
	}
	b.WriteByte('}')
	return b.Bytes()
}
