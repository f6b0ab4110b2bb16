package runtime

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// lineFramer reads and writes newline-delimited JSON.
type lineFramer struct {
	r      *bufio.Reader
	w      *bufio.Writer
	closer streamCloser
	max    int
	long   []byte // accumulates a line longer than the reader's buffer
	flat   bytes.Buffer
	timer  ReadTimer // r, when it times messages
}

// NewLineFramer returns a Framer for newline-delimited JSON (MCP stdio). maxSize <= 0
// means DefaultMaxMessageSize. Lines may end in \r\n; empty lines are skipped; of an
// overlong line no more than maxSize bytes are ever held.
func NewLineFramer(r io.Reader, w io.Writer, maxSize int) Framer {
	return &lineFramer{
		r:      bufio.NewReaderSize(r, 64<<10),
		w:      bufio.NewWriterSize(w, 16<<10),
		closer: streamCloser{r, w},
		max:    limitOrDefault(maxSize),
		timer:  readTimerOf(r),
	}
}

func (f *lineFramer) ReadMessage() ([]byte, error) {
	if f.timer != nil {
		f.timer.BeginMessage(bufferedStart(f.r))
		defer f.timer.EndMessage()
	}
	// One large message, whatever became of it, does not pin its buffer.
	defer f.shrink()
	for {
		line, err := f.readLine()
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		return bytes.Clone(line), nil
	}
}

// maxKeptBuffer is the largest line buffer a framer keeps between messages:
// one large message does not pin a buffer of its size for as long as the
// connection lives.
const maxKeptBuffer = 64 << 10

// shrink lets go of the line buffer a large message grew. (The writers'
// buffer, flat, is theirs to shrink: the reader runs beside them.)
func (f *lineFramer) shrink() {
	if cap(f.long) > maxKeptBuffer {
		f.long = nil
	}
}

// readLine returns the next line without its terminator; the slice is only valid until
// the next read.
func (f *lineFramer) readLine() ([]byte, error) {
	f.long = f.long[:0]
	for {
		chunk, err := f.r.ReadSlice('\n')
		switch err {
		case nil:
			line := chunk[:len(chunk)-1]
			if len(f.long) > 0 {
				f.long = append(f.long, line...)
				line = f.long
			}
			line = bytes.TrimSuffix(line, []byte{'\r'})
			if len(line) > f.max {
				return nil, ErrMessageTooLarge
			}
			return line, nil
		case bufio.ErrBufferFull:
			// The last byte may be the \r of a \r\n, so it does not count yet.
			if len(f.long)+len(chunk)-1 > f.max {
				f.long = nil // before the rest is skipped, which may take long
				return nil, f.skipLine()
			}
			f.long = append(f.long, chunk...)
		case io.EOF:
			if len(bytes.TrimSpace(chunk)) == 0 && len(bytes.TrimSpace(f.long)) == 0 {
				return nil, io.EOF
			}
			return nil, io.ErrUnexpectedEOF
		default:
			return nil, err
		}
	}
}

// skipLine discards the rest of an overlong line.
func (f *lineFramer) skipLine() error {
	for {
		_, err := f.r.ReadSlice('\n')
		switch err {
		case nil, io.EOF:
			return ErrMessageTooLarge
		case bufio.ErrBufferFull:
			continue
		default:
			return err
		}
	}
}

var errLineBreak = errors.New("message contains a line break and is not valid JSON")

func (f *lineFramer) WriteMessage(msg []byte) error {
	if err := f.bufferMessage(msg); err != nil {
		return err
	}
	return f.flush()
}

// bufferMessage writes msg into the buffer; what does not fit goes out at once.
func (f *lineFramer) bufferMessage(msg []byte) error {
	if bytes.IndexByte(msg, '\n') >= 0 || bytes.IndexByte(msg, '\r') >= 0 {
		// Pretty-printed JSON would split the frame; valid JSON only has line breaks
		// between tokens, so compacting it removes them.
		f.flat.Reset()
		if err := json.Compact(&f.flat, msg); err != nil {
			return fmt.Errorf("write message: %w", errLineBreak)
		}
		msg = f.flat.Bytes()
	}
	f.w.Write(msg)
	if f.flat.Cap() > maxKeptBuffer {
		f.flat = bytes.Buffer{}
	}
	if err := f.w.WriteByte('\n'); err != nil {
		return fmt.Errorf("write message: %w", err)
	}
	return nil
}

// flush sends what is buffered.
func (f *lineFramer) flush() error {
	if err := f.w.Flush(); err != nil {
		return fmt.Errorf("write message: %w", err)
	}
	return nil
}

func (f *lineFramer) Close() error { return f.closer.Close() }
