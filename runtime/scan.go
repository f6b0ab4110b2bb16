package runtime

import "github.com/rpcgen/rpcgen/runtime/internal/jsonscan"

// ObjectScanner walks the members of one JSON object without decoding it, so a handler
// can pick the members it needs out of its params without allocating.
type ObjectScanner struct{ c jsonscan.Cursor }

// ScanObject returns a scanner over the members of the JSON object b (surrounding space
// allowed), or false if b is not an object. b should be valid JSON, as the params a
// Handler receives are; on malformed input the scanner stops early and never panics.
func ScanObject(b []byte) (ObjectScanner, bool) {
	c, ok := jsonscan.OpenObject(b)
	return ObjectScanner{c: c}, ok
}

// Next returns the next member's name, unescaped, and its raw value, or ok false after
// the last member. Duplicate names are returned as they come.
func (s *ObjectScanner) Next() (name, value []byte, ok bool) {
	key, val, ok := s.c.NextMember()
	if !ok {
		return nil, nil, false
	}
	return jsonscan.UnescapeKey(key), val, true
}

// Malformed reports whether the scan stopped on malformed input.
func (s *ObjectScanner) Malformed() bool { return s.c.Malformed() }
