package mcpserver

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// The keys that seal 2026-07-28 requestState form a key ring: the first
// seals, every one opens. Replicas behind a load balancer share the ring
// (a client's retry may land on any of them), so it is configuration, the
// same text on every replica, and a key is rotated in three steps, each
// applied to every replica before the next:
//
//  1. add the new key at the end (it opens, nothing is sealed with it yet);
//  2. move it first (it seals; the old one still opens what it sealed);
//  3. after StateTTL, remove the old key.
//
// Skipping step 1 would have replicas seal with a key that others cannot
// open yet, and a retry landing there fail with -32602.

// ParseStateKeys reads a key ring, as ServerOptions.StateKeys and
// Server.SetStateKeys take it: keys in base64 (standard or URL alphabet,
// padded or not) of 16, 24 or 32 bytes, separated by newlines, commas or
// spaces, the first the one that seals; a # starts a comment that runs to
// the end of its line. The same text serves in a file (one key a line) and
// in an environment variable (comma-separated). A 32-byte key is made with
// `openssl rand -base64 32`.
func ParseStateKeys(text string) ([][]byte, error) {
	var keys [][]byte
	for n, line := range strings.Split(text, "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		for _, f := range strings.FieldsFunc(line, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\r' }) {
			k, err := decodeStateKey(f)
			if err != nil {
				return nil, fmt.Errorf("mcp: state key ring, line %d: key %d: %w", n+1, len(keys)+1, err)
			}
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil, errors.New("mcp: state key ring: no keys")
	}
	return keys, nil
}

func decodeStateKey(s string) ([]byte, error) {
	s = strings.TrimRight(s, "=")
	enc := base64.RawStdEncoding
	if strings.ContainsAny(s, "-_") {
		enc = base64.RawURLEncoding
	}
	k, err := enc.DecodeString(s)
	if err != nil {
		return nil, errors.New("not base64")
	}
	switch len(k) {
	case 16, 24, 32:
		return k, nil
	}
	return nil, fmt.Errorf("want 16, 24 or 32 bytes, have %d", len(k))
}

// SetStateKeys replaces the keys that seal and open requestState (see
// ServerOptions.StateKeys) while the server runs: from its return, the
// first key seals and every one opens. A state sealed with a key that is
// no longer in the ring fails to open (-32602), so rotate in the steps
// ParseStateKeys's documentation gives. It returns an error, and changes
// nothing, for an empty ring or a key of a length AES does not take.
func (s *Server) SetStateKeys(keys [][]byte) error { return s.state.setKeys(keys) }
