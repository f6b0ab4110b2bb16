package runtime

import (
	"errors"
	"io"
)

// Framer reads and writes whole JSON-RPC messages on a stream.
type Framer interface {
	// ReadMessage returns the next message in a fresh slice the caller owns. It returns
	// ErrMessageTooLarge when a message over the size limit was skipped (without being
	// buffered); the next call reads the message after it. It returns io.EOF at a clean
	// end of the stream and io.ErrUnexpectedEOF when the stream ends inside a frame.
	ReadMessage() ([]byte, error)
	// WriteMessage writes msg, one complete JSON message, as one frame. The framer does
	// not retain msg. Callers serialize writes.
	WriteMessage(msg []byte) error
	// Close closes the underlying reader and writer when they are io.Closers.
	Close() error
}

// ErrMessageTooLarge is returned by ReadMessage for a message over the size limit.
var ErrMessageTooLarge = errors.New("jsonrpc: message exceeds the size limit")

// DefaultMaxMessageSize is the message size limit used when none is given.
const DefaultMaxMessageSize = 4 << 20

// Framing selects how messages are delimited on a byte stream.
type Framing int

const (
	// NewlineDelimited puts one JSON message per line, as MCP's stdio transport does.
	NewlineDelimited Framing = iota
	// ContentLength precedes each message with LSP-style "Content-Length: N" headers.
	ContentLength
)

// String returns the framing's name.
func (f Framing) String() string {
	switch f {
	case NewlineDelimited:
		return "newline-delimited"
	case ContentLength:
		return "content-length"
	}
	return "unknown framing"
}

// NewFramer returns the framer for framing over r and w.
func NewFramer(framing Framing, r io.Reader, w io.Writer, maxSize int) Framer {
	if framing == ContentLength {
		return NewHeaderFramer(r, w, maxSize)
	}
	return NewLineFramer(r, w, maxSize)
}

// streamCloser closes a framer's reader and writer, each once.
type streamCloser struct {
	r io.Reader
	w io.Writer
}

func (s streamCloser) Close() error {
	var err error
	if c, ok := s.r.(io.Closer); ok {
		err = c.Close()
	}
	if c, ok := s.w.(io.Closer); ok && any(s.w) != any(s.r) {
		if werr := c.Close(); err == nil {
			err = werr
		}
	}
	return err
}

func limitOrDefault(maxSize int) int {
	if maxSize <= 0 {
		return DefaultMaxMessageSize
	}
	return maxSize
}
