// Package metaschema checks a JSON Schema that a user wrote by hand, at
// generate time and without a network: that it is a JSON document, that it
// is a schema of draft 2020-12 as the draft's meta-schema describes one (each
// keyword of the core, applicator, unevaluated, validation, meta-data,
// format-annotation and content vocabularies holds a value of the kind the
// meta-schema gives it), that its references resolve inside it, and that its
// MCP x-mcp-header annotations follow the protocol's rules. Every problem is
// reported at its line and column in the file.
package metaschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// Kind is the JSON type of a Node.
type Kind int

const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

func (k Kind) String() string {
	return [...]string{"null", "a boolean", "a number", "a string", "an array", "an object"}[k]
}

// Node is one JSON value with the offset of its first byte.
type Node struct {
	Kind    Kind
	Off     int
	Bool    bool
	Num     json.Number
	Str     string
	Elems   []*Node
	Members []Member // in document order
}

// Member is one member of an object.
type Member struct {
	Key    string
	KeyOff int
	Value  *Node
}

// Get returns the value of member key, or nil.
func (n *Node) Get(key string) *Node {
	if n == nil || n.Kind != Object {
		return nil
	}
	for _, m := range n.Members {
		if m.Key == key {
			return m.Value
		}
	}
	return nil
}

// Problem is one thing wrong with a document, at a byte offset.
type Problem struct {
	Off int
	Msg string
}

// Position converts a byte offset of src into a 1-based line and column
// (in bytes, as Go positions count).
func Position(src []byte, off int) (line, col int) {
	off = min(off, len(src))
	line = 1 + bytes.Count(src[:off], []byte{'\n'})
	col = off - (bytes.LastIndexByte(src[:off], '\n') + 1) + 1
	return line, col
}

// maxDepth bounds the nesting of a document.
const maxDepth = 200

// Parse reads src as one JSON value. Duplicate member names are an error,
// as they leave a schema ambiguous.
func Parse(src []byte) (*Node, error) {
	if !utf8.Valid(src) {
		i := 0
		for i < len(src) {
			r, size := utf8.DecodeRune(src[i:])
			if r == utf8.RuneError && size <= 1 {
				break
			}
			i += size
		}
		return nil, &ParseError{Off: i, Msg: "invalid UTF-8"}
	}
	p := &parser{src: src, dec: json.NewDecoder(bytes.NewReader(src))}
	p.dec.UseNumber()
	n, err := p.value(0)
	if err != nil {
		return nil, err
	}
	end := p.next()
	if _, err := p.dec.Token(); err != io.EOF {
		return nil, &ParseError{Off: end, Msg: "more than one JSON value"}
	}
	return n, nil
}

// ParseError is a document that is not one JSON value.
type ParseError struct {
	Off int
	Msg string
}

func (e *ParseError) Error() string { return e.Msg }

type parser struct {
	src []byte
	dec *json.Decoder
}

// next returns the offset where the next token starts.
func (p *parser) next() int {
	off := int(p.dec.InputOffset())
	for off < len(p.src) {
		switch p.src[off] {
		case ' ', '\t', '\r', '\n', ',', ':':
			off++
			continue
		}
		break
	}
	return off
}

func (p *parser) token() (json.Token, int, error) {
	off := p.next()
	t, err := p.dec.Token()
	if err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, int(se.Offset), &ParseError{Off: int(se.Offset), Msg: se.Error()}
		}
		if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, len(p.src), &ParseError{Off: len(p.src), Msg: "unexpected end of the document"}
		}
		return nil, off, &ParseError{Off: off, Msg: err.Error()}
	}
	return t, off, nil
}

func (p *parser) value(depth int) (*Node, error) {
	t, off, err := p.token()
	if err != nil {
		return nil, err
	}
	return p.node(t, off, depth)
}

func (p *parser) node(t json.Token, off, depth int) (*Node, error) {
	if depth > maxDepth {
		return nil, &ParseError{Off: off, Msg: fmt.Sprintf("nested more than %d deep", maxDepth)}
	}
	n := &Node{Off: off}
	switch t := t.(type) {
	case nil:
		n.Kind = Null
	case bool:
		n.Kind, n.Bool = Bool, t
	case json.Number:
		n.Kind, n.Num = Number, t
	case string:
		n.Kind, n.Str = String, t
	case json.Delim:
		switch t {
		case '[':
			n.Kind = Array
			for p.dec.More() {
				e, err := p.value(depth + 1)
				if err != nil {
					return nil, err
				}
				n.Elems = append(n.Elems, e)
			}
		case '{':
			n.Kind = Object
			seen := map[string]bool{}
			for p.dec.More() {
				k, koff, err := p.token()
				if err != nil {
					return nil, err
				}
				key, _ := k.(string)
				if seen[key] {
					return nil, &ParseError{Off: koff, Msg: fmt.Sprintf("member %q appears twice", key)}
				}
				seen[key] = true
				v, err := p.value(depth + 1)
				if err != nil {
					return nil, err
				}
				n.Members = append(n.Members, Member{Key: key, KeyOff: koff, Value: v})
			}
		}
		if _, _, err := p.token(); err != nil { // the closing delimiter
			return nil, err
		}
	}
	return n, nil
}
