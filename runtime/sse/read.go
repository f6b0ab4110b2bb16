package sse

import (
	"bytes"
	"errors"
	"io"
	"math"
	"time"
)

const (
	// defaultMaxEvent is the event size limit of NewReader.
	defaultMaxEvent = 16 << 20
	// minBufSize is the read buffer's initial size.
	minBufSize = 4096
	// keepBufSize is the largest buffer kept after the event that needed it,
	// so that one large event does not pin its memory for the stream's life.
	keepBufSize = 1 << 20
)

// errNegativeRead reports an io.Reader that broke its contract.
var errNegativeRead = errors.New("sse: reader returned a negative or too large count")

// Reader parses a text/event-stream per the WHATWG HTML "event stream
// interpretation" rules and returns its events one at a time. It reads
// from its io.Reader only as far as it needs to return the next event, so
// it suits a live stream. A Reader is not safe for concurrent use.
type Reader struct {
	rd  io.Reader
	max int

	buf      []byte // buf[r:w] holds bytes read but not yet parsed
	r, w     int
	scanned  int   // buf[r:r+scanned] has no line end
	started  bool  // the byte order mark check is done
	skipLF   bool  // the last line ended in CR: an LF next is part of that line end
	readErr  error // the error rd returned, met once the buffer is used up
	err      error // the error Next returned, returned again ever after
	data     []byte
	typ      []byte
	scratch  []byte
	idBuf    string // the last event ID buffer
	lastID   string // the last event ID string: idBuf as of the last blank line
	lastType string // the Type of the last event, reused when the next is equal
	retry    time.Duration
	// The event's own id and retry fields (since the previous blank line).
	hasID      bool
	eventRetry time.Duration
}

// NewReader returns a Reader reading from r that allows events of up to
// 16 MiB; see NewReaderSize.
func NewReader(r io.Reader) *Reader {
	return NewReaderSize(r, 0)
}

// NewReaderSize returns a Reader reading from r whose events take at most
// about maxEvent bytes each (16 MiB when maxEvent <= 0): when an event's
// data so far (every data value plus a newline each) and the line being
// read together exceed maxEvent bytes, or a single decoded field value
// does, Next returns ErrEventTooLarge. The Reader's memory is then bounded
// by a small multiple of maxEvent.
func NewReaderSize(r io.Reader, maxEvent int) *Reader {
	if maxEvent <= 0 {
		maxEvent = defaultMaxEvent
	}
	return &Reader{rd: r, max: maxEvent}
}

// Next reads up to the next dispatched event and returns it. At the end of
// the stream it returns io.EOF, discarding any unfinished event as the
// standard requires; it returns the error of the underlying reader, or
// ErrEventTooLarge. After an error, Next returns that error again.
func (r *Reader) Next() (Event, error) {
	if r.err != nil {
		return Event{}, r.err
	}
	for {
		line, err := r.readLine()
		if err == nil {
			if len(line) == 0 {
				if e, ok := r.dispatch(); ok {
					return e, nil
				}
				continue
			}
			err = r.field(line)
		}
		if err != nil {
			// The stream is over for this Reader: let its buffers go.
			r.err = err
			r.buf, r.data, r.typ, r.scratch = nil, nil, nil, nil
			r.r, r.w = 0, 0
			return Event{}, err
		}
	}
}

// LastEventID returns what a client sends in Last-Event-ID when it
// reconnects: the value of the latest id field in a block of lines that has
// ended, with a blank line, whether the block dispatched an event or not
// (the standard's "last event ID string"). An id in an unfinished block
// does not count, so that a resumed stream repeats its event.
func (r *Reader) LastEventID() string { return r.lastID }

// Retry returns the stream's reconnection time as set by the latest valid
// retry field read so far, even one in a block of lines that dispatched no
// event; 0 when there was none. A value too large for a time.Duration is
// taken as the largest whole number of milliseconds one holds.
func (r *Reader) Retry() time.Duration { return r.retry }

// field interprets one non-blank line.
func (r *Reader) field(line []byte) error {
	if line[0] == ':' {
		return nil // a comment
	}
	name, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(name) {
	case "data":
		r.data = appendDecoded(r.data, value)
		r.data = append(r.data, '\n')
		if len(r.data) > r.max {
			return ErrEventTooLarge
		}
	case "event":
		r.typ = appendDecoded(r.typ[:0], value)
		if len(r.typ) > r.max {
			return ErrEventTooLarge
		}
	case "id":
		if bytes.IndexByte(value, 0) >= 0 {
			return nil // the standard ignores such an id
		}
		r.scratch = appendDecoded(r.scratch[:0], value)
		if len(r.scratch) > r.max {
			return ErrEventTooLarge
		}
		if string(r.scratch) != r.idBuf {
			r.idBuf = string(r.scratch)
		}
		r.hasID = true
	case "retry":
		if d, ok := parseRetry(value); ok {
			r.retry, r.eventRetry = d, d
		}
	}
	return nil
}

// parseRetry interprets a retry field's value, which counts only when it is
// one or more ASCII digits.
func parseRetry(v []byte) (time.Duration, bool) {
	const maxMS = math.MaxInt64 / int64(time.Millisecond)
	if len(v) == 0 {
		return 0, false
	}
	var ms int64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		if ms <= maxMS {
			ms = ms*10 + int64(c-'0')
		}
	}
	return time.Duration(min(ms, maxMS)) * time.Millisecond, true
}

// dispatch ends the block of lines at a blank line and returns its event,
// or false when it has no data.
func (r *Reader) dispatch() (Event, bool) {
	r.lastID = r.idBuf
	e := Event{ID: r.idBuf, HasID: r.hasID, Retry: r.eventRetry}
	r.hasID, r.eventRetry = false, 0
	if len(r.data) == 0 {
		r.typ = r.typ[:0]
		return Event{}, false
	}
	e.Data = string(r.data[:len(r.data)-1])
	if len(r.typ) > 0 {
		if string(r.typ) != r.lastType {
			r.lastType = string(r.typ)
		}
		e.Type = r.lastType
	}
	r.data, r.typ = r.data[:0], r.typ[:0]
	if cap(r.data)+cap(r.typ)+cap(r.scratch) > keepBufSize {
		r.data, r.typ, r.scratch = nil, nil, nil
	}
	return e, true
}

// readLine returns the next line without its line end. The line is valid
// until the next call.
func (r *Reader) readLine() ([]byte, error) {
	for {
		if r.skipLF && r.r < r.w {
			r.skipLF = false
			if r.buf[r.r] == '\n' {
				r.r++
			}
		}
		if !r.started && (r.w-r.r >= 3 || r.readErr != nil) {
			// Reading 3 bytes first delays no event: the shortest is "data\n\n".
			r.started = true
			if bytes.HasPrefix(r.buf[r.r:r.w], []byte("\xEF\xBB\xBF")) {
				r.r += 3
			}
		}
		if r.started {
			start := r.r + r.scanned
			if i := indexLineEndBytes(r.buf[start:r.w]); i >= 0 {
				end := start + i
				line := r.buf[r.r:end]
				if r.buf[end] == '\r' {
					if end+1 == r.w {
						r.skipLF = true
					} else if r.buf[end+1] == '\n' {
						end++
					}
				}
				r.r, r.scanned = end+1, 0
				if len(r.data)+len(line) > r.max {
					return nil, ErrEventTooLarge
				}
				return line, nil
			}
			r.scanned = r.w - r.r
			if len(r.data)+r.scanned > r.max {
				return nil, ErrEventTooLarge
			}
		}
		if r.readErr != nil {
			return nil, r.readErr
		}
		r.fill()
	}
}

// fill reads more bytes into the buffer, making room first: it drops the
// parsed bytes, grows the buffer when a line fills all of it, and shrinks a
// large buffer once the large line is parsed.
func (r *Reader) fill() {
	switch {
	case len(r.buf) > keepBufSize && r.w-r.r <= minBufSize:
		buf := make([]byte, minBufSize)
		r.w = copy(buf, r.buf[r.r:r.w])
		r.buf, r.r = buf, 0
	case r.r > 0:
		r.w = copy(r.buf, r.buf[r.r:r.w])
		r.r = 0
	case r.w == len(r.buf):
		// The buffer holds one unfinished line. readLine fails once a line
		// exceeds r.max, so the buffer never needs more than r.max+1 bytes.
		n := min(max(2*len(r.buf), minBufSize), max(r.max+1, minBufSize))
		buf := make([]byte, n)
		r.w = copy(buf, r.buf[r.r:r.w])
		r.buf = buf
	}
	for range 100 {
		n, err := r.rd.Read(r.buf[r.w:])
		if n < 0 || n > len(r.buf)-r.w {
			r.readErr = errNegativeRead
			return
		}
		r.w += n
		if err != nil {
			r.readErr = err
			return
		}
		if n > 0 {
			return
		}
	}
	r.readErr = io.ErrNoProgress
}

// indexLineEndBytes returns the index of the first CR or LF in s, or -1.
func indexLineEndBytes(s []byte) int {
	i := bytes.IndexByte(s, '\n')
	if i < 0 {
		return bytes.IndexByte(s, '\r')
	}
	if j := bytes.IndexByte(s[:i], '\r'); j >= 0 {
		return j
	}
	return i
}
