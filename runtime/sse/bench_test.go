package sse

import (
	"fmt"
	"strings"
	"testing"
)

// jsonEvent returns an event carrying a JSON-RPC message of about 1 KiB.
func jsonEvent(i int) Event {
	text := strings.Repeat("lorem ipsum ", 75)
	return Event{ID: fmt.Sprintf("stream-1-%d", i), Data: fmt.Sprintf(
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":%q}}`, text)}
}

// loopReader reads its bytes again and again, in reads of up to 32 KiB.
type loopReader struct {
	b   []byte
	off int
}

func (l *loopReader) Read(p []byte) (int, error) {
	n := copy(p[:min(len(p), 32<<10)], l.b[l.off:])
	l.off = (l.off + n) % len(l.b)
	return n, nil
}

// BenchmarkReader reads 1 KiB JSON events with ids; one op is one event.
func BenchmarkReader(b *testing.B) {
	var stream []byte
	for i := range 64 {
		stream = AppendEvent(stream, jsonEvent(i))
	}
	b.SetBytes(int64(len(stream) / 64))
	b.ReportAllocs()
	r := NewReader(&loopReader{b: stream})
	for b.Loop() {
		if _, err := r.Next(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppendEvent writes 1 KiB JSON events into a reused buffer.
func BenchmarkAppendEvent(b *testing.B) {
	e := jsonEvent(1)
	buf := AppendEvent(nil, e)
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendEvent(buf[:0], e)
	}
}
