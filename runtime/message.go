package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/rpcgen/rpcgen/runtime/internal/jsonenc"
)

// ID is a JSON-RPC request id: a JSON number or string, kept as its raw JSON text so a
// server echoes it back byte for byte. The zero ID means "absent" (a notification).
// A request whose id member is JSON null carries the ID whose String is "null": it is a
// request, answered with a null id, as the specification requires.
type ID struct{ raw string }

// Int64ID returns the ID for the number n.
func Int64ID(n int64) ID { return ID{raw: strconv.FormatInt(n, 10)} }

// StringID returns the ID for the string s.
func StringID(s string) ID { return ID{raw: string(jsonenc.AppendString(nil, s))} }

// IsZero reports whether id is absent.
func (id ID) IsZero() bool { return id.raw == "" }

// String returns id's raw JSON text ("7", "\"abc\""), or "" for the zero ID.
func (id ID) String() string { return id.raw }

// MarshalJSON returns id's raw JSON text; the zero ID encodes as null.
func (id ID) MarshalJSON() ([]byte, error) {
	if id.raw == "" {
		return []byte("null"), nil
	}
	return []byte(id.raw), nil
}

// UnmarshalJSON accepts a JSON string or number and keeps its text; null yields the
// zero ID. Anything else is an error, because the specification allows nothing else.
func (id *ID) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if string(b) == "null" {
		*id = ID{}
		return nil
	}
	if !validID(b) || !json.Valid(b) {
		return errors.New("jsonrpc: id must be a string or a number")
	}
	*id = ID{raw: string(b)}
	return nil
}

// validID reports whether the raw JSON value b may be a request id (its validity as JSON
// is checked elsewhere).
func validID(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	c := b[0]
	return c == '"' || c == '-' || (c >= '0' && c <= '9') || string(b) == "null"
}

// Request is one incoming JSON-RPC request or notification.
type Request struct {
	ID     ID              // zero for a notification
	Method string          // the method name, unescaped
	Params json.RawMessage // nil when absent or null; the handler may keep it (it is not reused)
}

// IsNotification reports whether r expects no response.
func (r *Request) IsNotification() bool { return r.ID.IsZero() }
