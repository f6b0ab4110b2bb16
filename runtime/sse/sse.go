// Package sse reads and writes Server-Sent Events, the text/event-stream
// format that MCP's HTTP transports use to stream messages.
//
// A Reader interprets a stream exactly as the WHATWG HTML standard's "event
// stream interpretation" tells a browser's EventSource to: the bytes are
// decoded as UTF-8 (ill-formed sequences become U+FFFD, one leading byte
// order mark is dropped), lines end in CRLF, LF or CR, comment lines and
// unknown fields are ignored, and a blank line dispatches the event gathered
// so far, unless it has no data. A Reader bounds the memory one event may
// take (NewReaderSize), so a peer cannot make it buffer without limit.
//
// AppendEvent and AppendComment write events and comments that any
// conforming reader, this one included, reads back unchanged: every line of
// an event's data becomes its own data field, and every event has at least
// one, so that it is dispatched even when its data is empty (the "priming"
// event MCP sends first on a resumable stream is an id with empty data).
package sse

import (
	"errors"
	"time"
)

// Event is one dispatched server-sent event.
type Event struct {
	// ID is the stream's last event ID when the event was dispatched: the
	// value of the latest id field read so far on the stream, in this event
	// or an earlier one (the standard's "last event ID buffer"); a client
	// that has handled the event sends it back as Last-Event-ID when it
	// reconnects. An id field with an empty value resets it to "".
	ID string
	// HasID reports whether the event itself carried an id field (possibly
	// with an empty value): one of the lines since the previous blank line
	// was an id field the standard accepts (its value has no NUL). When
	// HasID is false, ID is inherited from an earlier event.
	HasID bool
	// Type is the event's event field; "" means the default type, "message".
	Type string
	// Data is the event's data fields' values joined with "\n".
	Data string
	// Retry is the reconnection time set by the last valid retry field among
	// the event's own lines (since the previous blank line); 0 when there
	// was none. Reader.Retry keeps the stream's current value.
	Retry time.Duration
}

// ErrEventTooLarge is returned by Reader.Next when an event exceeds the
// Reader's size limit (see NewReaderSize).
var ErrEventTooLarge = errors.New("sse: event too large")
