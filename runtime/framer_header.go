package runtime

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/rpcgen/rpcgen/runtime/internal/jsonscan"
)

// headerFramer reads and writes LSP-style frames: "Content-Length: N\r\n\r\n" + N bytes.
//
// A malformed frame costs that frame only: ReadMessage returns a *FrameError, and the
// next ReadMessage starts at the next header block, found by scanning for
// "Content-Length:" (see resync). A body whose length disagrees with its header is
// recognised by its last byte (an object ends with '}', an array with ']'): when the body
// holds one JSON value and then the start of the next header block (a length too
// large), that block is read next, so the message after a wrong length is not lost.
type headerFramer struct {
	r      *bufio.Reader
	src    *pushback // under r: bytes given back to be read again, then the stream
	w      *bufio.Writer
	closer streamCloser
	max    int
	hdr    []byte
	lost   bool      // the last frame was malformed: scan for the next header block
	ended  error     // the stream ended inside a frame: returned by the next ReadMessage
	timer  ReadTimer // r, when it times messages
}

// NewHeaderFramer returns a Framer for LSP-style Content-Length framing. Headers other
// than Content-Length (such as Content-Type) are ignored. maxSize <= 0 means
// DefaultMaxMessageSize; the body of a larger message is discarded unread. A malformed
// frame is reported as a *FrameError and skipped.
func NewHeaderFramer(r io.Reader, w io.Writer, maxSize int) Framer {
	src := &pushback{r: r}
	return &headerFramer{
		r:      bufio.NewReaderSize(src, headerLineMax),
		src:    src,
		w:      bufio.NewWriterSize(w, 16<<10),
		closer: streamCloser{r, w},
		max:    limitOrDefault(maxSize),
		timer:  readTimerOf(r),
	}
}

const (
	// headerLineMax bounds a header line (the reader's buffer).
	headerLineMax = 64 << 10
	// maxContentLength rejects lengths no stream could deliver, before any arithmetic
	// on them.
	maxContentLength = 1 << 40
)

var contentLength = []byte("Content-Length")

func (f *headerFramer) ReadMessage() ([]byte, error) {
	if err := f.ended; err != nil {
		return nil, err
	}
	if f.timer != nil {
		// Bytes given back (pushback) are read again through f.r's buffer.
		f.timer.BeginMessage(bufferedStart(f.r) || len(f.src.pending) > 0)
		defer f.timer.EndMessage()
	}
	if f.lost {
		if err := f.resync(); err != nil {
			return nil, err
		}
		f.lost = false
	}
	n, fault, err := f.readHeader()
	switch {
	case err != nil:
		return nil, err
	case fault != "" && n < 0:
		// Where the body ends is unknown: the next read looks for the next frame.
		f.lost = true
		return nil, &FrameError{Reason: fault}
	case n > int64(f.max):
		if _, err := f.r.Discard(int(n)); err != nil {
			// The stream ended first: answer for the message all the same.
			f.ended = io.ErrUnexpectedEOF
		}
		if fault != "" {
			return nil, &FrameError{Reason: fault}
		}
		return nil, ErrMessageTooLarge
	}
	msg := make([]byte, n)
	got, err := io.ReadFull(f.r, msg)
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		f.ended = io.ErrUnexpectedEOF
		return nil, f.mismatch(msg[:got], n, true)
	case err != nil:
		return nil, err
	case fault != "":
		// A malformed header with a length: the frame is skipped whole, and its
		// id answered.
		return nil, &FrameError{Reason: fault, ID: messageID(msg)}
	case n > 0 && !endsMessage(msg):
		return nil, f.mismatch(msg, n, false)
	}
	return msg, nil
}

// readHeader reads a header block and returns its Content-Length, or -1 when it has
// no valid one. A malformed block is read to its end all the same (a line over 64 KiB
// to its end, unread), and fault says what was wrong with it.
func (f *headerFramer) readHeader() (n int64, fault string, err error) {
	n = -1
	seen := false // whether any header line was read
	bad := false  // a Content-Length was invalid, or two disagreed
	note := func(what string) {
		if fault == "" {
			fault = what
		}
	}
	for {
		line, err := f.r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			note("a header line is longer than 64 KiB")
			seen = true
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = f.r.ReadSlice('\n')
			}
			if err == nil {
				continue
			}
		}
		if err != nil {
			switch {
			case err == io.EOF && !seen && len(bytes.TrimSpace(line)) == 0:
				return -1, "", io.EOF
			case err == io.EOF:
				return -1, "", io.ErrUnexpectedEOF
			}
			return -1, "", fmt.Errorf("read header: %w", err)
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			if !seen {
				continue // tolerate blank lines between frames
			}
			break
		}
		seen = true
		name, value, ok := bytes.Cut(line, []byte{':'})
		if !ok {
			note(fmt.Sprintf("malformed header line %q", clip(line)))
			continue
		}
		if !bytes.EqualFold(bytes.TrimSpace(name), contentLength) {
			continue
		}
		v, err := strconv.ParseInt(string(bytes.TrimSpace(value)), 10, 64)
		switch {
		case err != nil || v < 0 || v > maxContentLength:
			note(fmt.Sprintf("invalid Content-Length %q", clip(bytes.TrimSpace(value))))
			bad = true
		case n >= 0 && v != n:
			note("conflicting Content-Length headers")
			bad = true
		}
		n = v
	}
	switch {
	case bad:
		n = -1
	case n < 0:
		note("missing Content-Length")
	}
	return n, fault, nil
}

// endsMessage reports whether body ends as it starts: an object with '}', an array
// with ']' (white space aside). Any other body is passed on as it is, for the
// connection to judge.
func endsMessage(body []byte) bool {
	t := bytes.TrimSpace(body)
	switch {
	case len(t) == 0:
		return true
	case t[0] == '{':
		return t[len(t)-1] == '}'
	case t[0] == '[':
		return t[len(t)-1] == ']'
	}
	return true
}

// mismatch reports a body whose length disagrees with its Content-Length n: the bytes
// read do not end a message, or the stream ended (atEOF) before n of them came. If they
// hold one JSON value and then the start of the next header block, that block is given
// back to be read next; otherwise the next read scans for one. The error names the
// message's id when its start shows it.
func (f *headerFramer) mismatch(body []byte, n int64, atEOF bool) error {
	reason := fmt.Sprintf("Content-Length %d does not match the message", n)
	if atEOF {
		reason = fmt.Sprintf("the stream ended %d bytes into a message of Content-Length %d", len(body), n)
	}
	if end := valueEnd(body); end > 0 {
		if rest := bytes.TrimLeft(body[end:], " \t\r\n"); startsHeader(rest) {
			f.src.unread(rest, f.r)
			f.ended = nil // what was given back is read first
			return &FrameError{Reason: reason, ID: messageID(body[:end])}
		}
	}
	if !atEOF {
		f.lost = true
	}
	return &FrameError{Reason: reason, ID: messageID(body)}
}

// valueEnd returns the length of the JSON object or array body starts with, or 0.
func valueEnd(body []byte) int {
	i := jsonscan.SkipSpace(body, 0)
	if i >= len(body) || body[i] != '{' && body[i] != '[' {
		return 0
	}
	return max(jsonscan.SkipValue(body, i), 0)
}

// startsHeader reports whether b begins like a header block: a Content-Length line.
func startsHeader(b []byte) bool {
	return len(b) >= len(contentLength) && bytes.EqualFold(b[:len(contentLength)], contentLength)
}

// messageID returns the raw id of the message that body (a whole message or the start
// of one) is, when it shows a valid one before it ends or breaks off; else nil.
func messageID(body []byte) []byte {
	c, ok := jsonscan.OpenObject(body)
	for ok {
		key, val, more := c.NextMember()
		if !more {
			break
		}
		if string(jsonscan.UnescapeKey(key)) == "id" && validID(val) && string(val) != "null" && json.Valid(val) {
			return bytes.Clone(val)
		}
	}
	return nil
}

// resync skips to the next header block: the next "Content-Length:" in the stream
// (case aside), which it gives back to be read. It gives up, and the stream cannot be
// read on, when the stream ends first or more than a message's worth of bytes passes
// without one.
func (f *headerFramer) resync() error {
	const want = "content-length:"
	limit := f.max + headerLineMax
	matched := 0
	garbage := false // skipped more than white space
	for skipped := 0; ; skipped++ {
		if skipped > limit {
			return fmt.Errorf("read header: no Content-Length header in the %d bytes after a malformed frame; the stream cannot be resynchronised", limit)
		}
		b, err := f.r.ReadByte()
		switch {
		case err == io.EOF && !garbage:
			return io.EOF // the stream ended cleanly after the frame
		case err == io.EOF:
			return fmt.Errorf("read header: resynchronising after a malformed frame: %w", io.ErrUnexpectedEOF)
		case err != nil:
			return fmt.Errorf("read header: resynchronising after a malformed frame: %w", err)
		}
		garbage = garbage || b != ' ' && b != '\t' && b != '\r' && b != '\n'
		if b|0x20 == want[matched] || b == want[matched] {
			if matched++; matched == len(want) {
				f.src.unread([]byte("Content-Length:"), f.r)
				return nil
			}
			continue
		}
		matched = 0
		if b|0x20 == want[0] {
			matched = 1
		}
	}
}

// clip shortens a header excerpt for an error message.
func clip(b []byte) []byte {
	if len(b) > 64 {
		return append(bytes.Clone(b[:61]), "..."...)
	}
	return b
}

func (f *headerFramer) WriteMessage(msg []byte) error {
	if err := f.bufferMessage(msg); err != nil {
		return err
	}
	return f.flush()
}

// bufferMessage writes msg, framed, into the buffer; what does not fit goes
// out at once.
func (f *headerFramer) bufferMessage(msg []byte) error {
	f.hdr = append(f.hdr[:0], "Content-Length: "...)
	f.hdr = strconv.AppendInt(f.hdr, int64(len(msg)), 10)
	f.hdr = append(f.hdr, "\r\n\r\n"...)
	f.w.Write(f.hdr)
	if _, err := f.w.Write(msg); err != nil {
		return fmt.Errorf("write message: %w", err)
	}
	return nil
}

// flush sends what is buffered.
func (f *headerFramer) flush() error {
	if err := f.w.Flush(); err != nil {
		return fmt.Errorf("write message: %w", err)
	}
	return nil
}

func (f *headerFramer) Close() error { return f.closer.Close() }

// pushback is the reader under a headerFramer's bufio.Reader: bytes given back to be
// read again, then the stream.
type pushback struct {
	pending []byte
	r       io.Reader
}

func (p *pushback) Read(b []byte) (int, error) {
	if len(p.pending) > 0 {
		n := copy(b, p.pending)
		p.pending = p.pending[n:]
		return n, nil
	}
	return p.r.Read(b)
}

// unread gives b back to be read before what br has buffered (which goes back too, as
// br is reset).
func (p *pushback) unread(b []byte, br *bufio.Reader) {
	buffered, _ := br.Peek(br.Buffered())
	pending := make([]byte, 0, len(b)+len(buffered)+len(p.pending))
	pending = append(append(append(pending, b...), buffered...), p.pending...)
	p.pending = pending
	br.Reset(p)
}
