package runtime

import (
	"bufio"
	"errors"
	"io"

	"github.com/rpcgen/rpcgen/runtime/internal/jsonscan"
)

// Framer reads and writes whole JSON-RPC messages on a stream.
type Framer interface {
	// ReadMessage returns the next message in a fresh slice the caller owns. It returns
	// ErrMessageTooLarge when a message over the size limit was skipped (without being
	// buffered), and a *FrameError for a malformed frame it skipped; after either, the
	// next call reads the message after it. It returns io.EOF at a clean end of the
	// stream and io.ErrUnexpectedEOF when the stream ends inside a frame; any other
	// error means the stream cannot be read on.
	ReadMessage() ([]byte, error)
	// WriteMessage writes msg, one complete JSON message, as one frame. The framer does
	// not retain msg. Callers serialize writes.
	WriteMessage(msg []byte) error
	// Close closes the underlying reader and writer when they are io.Closers.
	Close() error
}

// ErrMessageTooLarge is returned by ReadMessage for a message over the size limit.
var ErrMessageTooLarge = errors.New("jsonrpc: message exceeds the size limit")

// FrameError is returned by a Framer's ReadMessage for a malformed frame: a header
// block without a valid Content-Length, a header line over 64 KiB, a length that does
// not match the body. The framer has skipped the frame and reads on from the next one,
// so a Conn answers with a Parse error whose data is the Reason, addressed to ID when
// the message's id could be read, and keeps serving.
type FrameError struct {
	Reason string // what was wrong, for the error message
	ID     []byte // the raw JSON id of the malformed message, or nil when unknown
}

func (e *FrameError) Error() string { return "jsonrpc: malformed frame: " + e.Reason }

// ReadTimer is implemented by a reader under a line or header framer that times each
// message as it arrives, as rpcnet's sockets do to bound how long a message may take
// once it has begun (a peer that trickles a message holds its connection no longer).
// The framer calls BeginMessage when ReadMessage starts, saying whether the start of
// the next message (anything but white space) is already in its buffer, and
// EndMessage when ReadMessage returns, whatever it returns. A reader that times
// messages starts the clock itself when a read brings the first byte that is not
// white space.
type ReadTimer interface {
	BeginMessage(started bool)
	EndMessage()
}

// readTimerOf returns r as a ReadTimer, or nil.
func readTimerOf(r io.Reader) ReadTimer {
	t, _ := r.(ReadTimer)
	return t
}

// bufferedStart reports whether br holds anything but white space.
func bufferedStart(br *bufio.Reader) bool {
	b, _ := br.Peek(br.Buffered())
	for _, c := range b {
		if !jsonscan.IsSpace(c) {
			return true
		}
	}
	return false
}

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
