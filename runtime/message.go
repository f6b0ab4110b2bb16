package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strconv"

	"github.com/rpcgen/rpcgen/runtime/internal/jsonenc"
)

// ID is a JSON-RPC request id: a JSON number or string, kept so that a server
// echoes it back byte for byte: an integer written as Go writes an int64 (no
// leading zero, no "-0") as that number, which needs no memory of its own, and
// any other id as its raw JSON text. Two IDs are equal (==) when their texts
// are. The zero ID means "absent" (a notification). A request whose id member
// is JSON null carries the ID whose String is "null": it is a request, answered
// with a null id, as the specification requires.
type ID struct {
	raw string // the JSON text of an id that is not num; "" with num 0: absent
	num int64  // the number when raw is "" (never 0: the ID 0 is the text "0")
}

// Int64ID returns the ID for the number n. It allocates nothing.
func Int64ID(n int64) ID {
	if n == 0 {
		return ID{raw: "0"}
	}
	return ID{num: n}
}

// StringID returns the ID for the string s.
func StringID(s string) ID { return ID{raw: string(jsonenc.AppendString(nil, s))} }

// makeID returns the ID whose JSON text is b (a valid id): the number when b is
// an int64 written as Int64ID's, else a copy of the text.
func makeID(b []byte) ID {
	if n, ok := canonicalInt(b); ok && n != 0 {
		return ID{num: n}
	}
	return ID{raw: string(b)}
}

// canonicalInt returns the int64 b writes, when b writes it as
// strconv.FormatInt does.
func canonicalInt(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	d := b
	if neg {
		d = b[1:]
	}
	if len(d) == 0 || len(d) > 19 || d[0] < '1' || d[0] > '9' {
		return 0, len(b) == 1 && b[0] == '0'
	}
	var u uint64
	for _, c := range d {
		if c < '0' || c > '9' {
			return 0, false
		}
		u = u*10 + uint64(c-'0') // 19 digits stay below 1<<64
	}
	switch {
	case !neg && u <= math.MaxInt64:
		return int64(u), true
	case neg && u <= 1<<63:
		return int64(-u), true // -(1<<63) is MinInt64
	}
	return 0, false
}

// is reports whether b, the JSON text of an id, is id's text.
func (id ID) is(b []byte) bool {
	if id.raw != "" {
		return string(b) == id.raw
	}
	n, ok := canonicalInt(b)
	return ok && id.num != 0 && n == id.num
}

// appendText appends id's JSON text (nothing for the zero ID) to buf.
func (id ID) appendText(buf []byte) []byte {
	if id.raw == "" && id.num != 0 {
		return strconv.AppendInt(buf, id.num, 10)
	}
	return append(buf, id.raw...)
}

// isNull reports whether id is the JSON null a request may carry.
func (id ID) isNull() bool { return id.raw == "null" }

// IsZero reports whether id is absent.
func (id ID) IsZero() bool { return id.raw == "" && id.num == 0 }

// String returns id's raw JSON text ("7", "\"abc\""), or "" for the zero ID.
func (id ID) String() string {
	if id.raw == "" && id.num != 0 {
		return strconv.FormatInt(id.num, 10)
	}
	return id.raw
}

// MarshalJSON returns id's raw JSON text; the zero ID encodes as null.
func (id ID) MarshalJSON() ([]byte, error) {
	if id.IsZero() {
		return []byte("null"), nil
	}
	return id.appendText(nil), nil
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
	*id = makeID(b)
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
