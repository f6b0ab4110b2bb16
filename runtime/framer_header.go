package runtime

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// headerFramer reads and writes LSP-style frames: "Content-Length: N\r\n\r\n" + N bytes.
type headerFramer struct {
	r      *bufio.Reader
	w      *bufio.Writer
	closer streamCloser
	max    int
	hdr    []byte
}

// NewHeaderFramer returns a Framer for LSP-style Content-Length framing. Headers other
// than Content-Length (such as Content-Type) are ignored. maxSize <= 0 means
// DefaultMaxMessageSize; the body of a larger message is discarded unread.
func NewHeaderFramer(r io.Reader, w io.Writer, maxSize int) Framer {
	return &headerFramer{
		r:      bufio.NewReaderSize(r, 64<<10),
		w:      bufio.NewWriterSize(w, 16<<10),
		closer: streamCloser{r, w},
		max:    limitOrDefault(maxSize),
	}
}

// maxContentLength rejects lengths no stream could deliver, before any arithmetic on them.
const maxContentLength = 1 << 40

var contentLength = []byte("Content-Length")

func (f *headerFramer) ReadMessage() ([]byte, error) {
	n := int64(-1)
	seen := false // whether any header line was read
	for {
		line, err := f.r.ReadSlice('\n')
		if err != nil {
			switch {
			case err == io.EOF && !seen && len(bytes.TrimSpace(line)) == 0:
				return nil, io.EOF
			case err == io.EOF:
				return nil, io.ErrUnexpectedEOF
			case errors.Is(err, bufio.ErrBufferFull):
				return nil, errors.New("read header: header line too long")
			}
			return nil, fmt.Errorf("read header: %w", err)
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
			return nil, fmt.Errorf("read header: malformed header line %q", line)
		}
		if !bytes.EqualFold(bytes.TrimSpace(name), contentLength) {
			continue
		}
		v, err := strconv.ParseInt(string(bytes.TrimSpace(value)), 10, 64)
		if err != nil || v < 0 || v > maxContentLength {
			return nil, fmt.Errorf("read header: invalid Content-Length %q", value)
		}
		n = v
	}
	if n < 0 {
		return nil, errors.New("read header: missing Content-Length")
	}
	if n > int64(f.max) {
		if _, err := f.r.Discard(int(n)); err != nil {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, ErrMessageTooLarge
	}
	msg := make([]byte, n)
	if _, err := io.ReadFull(f.r, msg); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return msg, nil
}

func (f *headerFramer) WriteMessage(msg []byte) error {
	f.hdr = append(f.hdr[:0], "Content-Length: "...)
	f.hdr = strconv.AppendInt(f.hdr, int64(len(msg)), 10)
	f.hdr = append(f.hdr, "\r\n\r\n"...)
	f.w.Write(f.hdr)
	f.w.Write(msg)
	if err := f.w.Flush(); err != nil {
		return fmt.Errorf("write message: %w", err)
	}
	return nil
}

func (f *headerFramer) Close() error { return f.closer.Close() }
