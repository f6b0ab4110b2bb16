package sse

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// readAll reads every event from r, and the error that ended the stream.
func readAll(r *Reader) ([]Event, error) {
	var events []Event
	for {
		e, err := r.Next()
		if err != nil {
			return events, err
		}
		events = append(events, e)
	}
}

// readers returns the ways the tests feed a stream to a Reader, so that
// every rule is also checked across read boundaries.
func readers(input string) map[string]io.Reader {
	return map[string]io.Reader{
		"whole":   strings.NewReader(input),
		"onebyte": iotest.OneByteReader(strings.NewReader(input)),
		"half":    iotest.HalfReader(strings.NewReader(input)),
		"dataerr": iotest.DataErrReader(strings.NewReader(input)),
	}
}

func sameEvents(t testing.TB, got, want []Event) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d events %s, want %d %s", len(got), show(got...), len(want), show(want...))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("event %d = %s, want %s", i, show(got[i]), show(want[i]))
		}
	}
}

// show formats events with their strings quoted.
func show(events ...Event) string {
	var b strings.Builder
	for _, e := range events {
		fmt.Fprintf(&b, "{ID:%q HasID:%v Type:%q Data:%q Retry:%v}", e.ID, e.HasID, e.Type, e.Data, e.Retry)
	}
	return b.String()
}

func TestReaderRules(t *testing.T) {
	const huge = time.Duration(math.MaxInt64/int64(time.Millisecond)) * time.Millisecond
	tests := []struct {
		name   string
		input  string
		want   []Event
		lastID string
		retry  time.Duration
	}{
		{"lf", "data: hello\n\n", []Event{{Data: "hello"}}, "", 0},
		{"crlf", "data: a\r\ndata: b\r\n\r\n", []Event{{Data: "a\nb"}}, "", 0},
		{"cr", "data: a\rdata: b\r\r", []Event{{Data: "a\nb"}}, "", 0},
		{"mixed line ends", "data: a\r\ndata: b\rdata: c\n\r\n", []Event{{Data: "a\nb\nc"}}, "", 0},
		{"cr then crlf is two line ends", "data: a\r\r\ndata: b\n\n", []Event{{Data: "a"}, {Data: "b"}}, "", 0},
		{"lf then cr is two line ends", "data: a\n\rdata: b\n\n", []Event{{Data: "a"}, {Data: "b"}}, "", 0},
		{"blank lines first", "\n\r\n\rdata: a\n\n\n", []Event{{Data: "a"}}, "", 0},
		{"bom", "\xEF\xBB\xBFdata: a\n\n", []Event{{Data: "a"}}, "", 0},
		{"only one bom is stripped", "\xEF\xBB\xBF\xEF\xBB\xBFdata: a\n\ndata: b\n\n", []Event{{Data: "b"}}, "", 0},
		{"bom later is data", "data: a\n\n\xEF\xBB\xBFdata: b\n\ndata: \xEF\xBB\xBFc\n\n", []Event{{Data: "a"}, {Data: "\uFEFFc"}}, "", 0},
		{"comments", ": hi\ndata: a\n:\n:data: b\n\n", []Event{{Data: "a"}}, "", 0},
		{"comment block dispatches nothing", ": x\n\n", nil, "", 0},
		{"no space after colon", "data:a\n\n", []Event{{Data: "a"}}, "", 0},
		{"only one space removed", "data:  a \n\n", []Event{{Data: " a "}}, "", 0},
		{"tab is not removed", "data:\ta\n\n", []Event{{Data: "\ta"}}, "", 0},
		{"split on first colon", "data: a: b:c\n\n", []Event{{Data: "a: b:c"}}, "", 0},
		{"field without colon", "data\n\n", []Event{{Data: ""}}, "", 0},
		{"two fields without colon", "data\ndata\n\n", []Event{{Data: "\n"}}, "", 0},
		{"empty data", "data:\n\n", []Event{{Data: ""}}, "", 0},
		{"empty data lines", "data:\ndata:\ndata: x\ndata:\n\n", []Event{{Data: "\n\nx\n"}}, "", 0},
		{"priming event", "id: 7\nretry: 1000\ndata:\n\n",
			[]Event{{ID: "7", HasID: true, Retry: time.Second}}, "7", time.Second},
		{"no data dispatches nothing", "id: 1\nevent: x\n\ndata: a\n\n", []Event{{ID: "1", Data: "a"}}, "1", 0},
		{"event type", "event: ping\ndata: a\n\n", []Event{{Type: "ping", Data: "a"}}, "", 0},
		{"type resets after dispatch", "event: x\ndata: a\n\ndata: b\n\n", []Event{{Type: "x", Data: "a"}, {Data: "b"}}, "", 0},
		{"type resets without dispatch", "event: x\n\ndata: b\n\n", []Event{{Data: "b"}}, "", 0},
		{"last type wins", "event: a\nevent: b\ndata: x\n\n", []Event{{Type: "b", Data: "x"}}, "", 0},
		{"empty type", "event: a\nevent\ndata: x\n\n", []Event{{Data: "x"}}, "", 0},
		{"type message", "event: message\ndata: x\n\n", []Event{{Type: "message", Data: "x"}}, "", 0},
		{"id persists", "id: 1\ndata: a\n\ndata: b\n\n",
			[]Event{{ID: "1", HasID: true, Data: "a"}, {ID: "1", Data: "b"}}, "1", 0},
		{"id after data in block", "data: a\nid: 2\n\n", []Event{{ID: "2", HasID: true, Data: "a"}}, "2", 0},
		{"last id wins", "id: 1\nid: 2\ndata: a\n\n", []Event{{ID: "2", HasID: true, Data: "a"}}, "2", 0},
		{"empty id resets", "id: 1\ndata: a\n\nid\ndata: b\n\nid:\ndata: c\n\n",
			[]Event{{ID: "1", HasID: true, Data: "a"}, {HasID: true, Data: "b"}, {HasID: true, Data: "c"}}, "", 0},
		{"id with nul ignored", "id: 1\ndata: a\n\nid: 2\x003\ndata: b\n\n",
			[]Event{{ID: "1", HasID: true, Data: "a"}, {ID: "1", Data: "b"}}, "1", 0},
		{"id of undispatched block persists", "id: 5\n\ndata: a\n\n", []Event{{ID: "5", Data: "a"}}, "5", 0},
		{"id keeps spaces", "id:  x \ndata: a\n\n", []Event{{ID: " x ", HasID: true, Data: "a"}}, " x ", 0},
		{"retry", "retry: 1500\ndata: a\n\n", []Event{{Data: "a", Retry: 1500 * time.Millisecond}}, "", 1500 * time.Millisecond},
		{"retry leading zeros", "retry: 0010\ndata: a\n\n", []Event{{Data: "a", Retry: 10 * time.Millisecond}}, "", 10 * time.Millisecond},
		{"retry zero", "retry: 5\n\nretry: 0\ndata: a\n\n", []Event{{Data: "a"}}, "", 0},
		{"invalid retries ignored", "retry: 2\nretry: 15x\nretry: -1\nretry: 1.5\nretry:\nretry\nretry:  15\nretry: +3\nretry: 1 \ndata: a\n\n",
			[]Event{{Data: "a", Retry: 2 * time.Millisecond}}, "", 2 * time.Millisecond},
		{"retry of undispatched block", "retry: 3000\n\ndata: a\n\n", []Event{{Data: "a"}}, "", 3 * time.Second},
		{"retry per event", "retry: 1\ndata: a\n\ndata: b\n\n", []Event{{Data: "a", Retry: time.Millisecond}, {Data: "b"}}, "", time.Millisecond},
		{"huge retry clamped", "retry: 99999999999999999999999999\ndata: a\n\n", []Event{{Data: "a", Retry: huge}}, "", huge},
		{"unknown fields", "foo: bar\nDATA: x\ndata : y\n data: z\nData: w\n\n", nil, "", 0},
		{"unknown fields skipped", "foo: bar\ndata: a\nfoo\n\n", []Event{{Data: "a"}}, "", 0},
		{"unfinished event discarded", "data: a\n\ndata: b\n", []Event{{Data: "a"}}, "", 0},
		{"unfinished line discarded", "data: a\n\ndata: b", []Event{{Data: "a"}}, "", 0},
		{"unfinished id does not count", "data: a\n\nid: 9\ndata: b\n", []Event{{Data: "a"}}, "", 0},
		{"unfinished id after a finished one", "id: 1\ndata: a\n\nid: 2\ndata: b\n", []Event{{ID: "1", HasID: true, Data: "a"}}, "1", 0},
		{"empty stream", "", nil, "", 0},
		{"invalid utf-8", "data: a\xffb\n\n", []Event{{Data: "a\uFFFDb"}}, "", 0},
		{"truncated sequence is one replacement", "data: \xe2\x82x\n\n", []Event{{Data: "\uFFFDx"}}, "", 0},
		{"truncated sequence at line end", "data: \xf0\x9f\x99\ndata: \xf0\x9f\x99\x82\n\n", []Event{{Data: "\uFFFD\n🙂"}}, "", 0},
		{"invalid utf-8 in type and id", "event: \xc3\nid: \xed\xa0\x80\ndata: a\n\n",
			[]Event{{Type: "\uFFFD", ID: "\uFFFD\uFFFD\uFFFD", HasID: true, Data: "a"}}, "\uFFFD\uFFFD\uFFFD", 0},
		{"nul in data", "data: a\x00b\n\n", []Event{{Data: "a\x00b"}}, "", 0},
		{"unicode", "event: 日本\ndata: é🙂\n\n", []Event{{Type: "日本", Data: "é🙂"}}, "", 0},
	}
	for _, tt := range tests {
		for how, rd := range readers(tt.input) {
			t.Run(tt.name+"/"+how, func(t *testing.T) {
				r := NewReader(rd)
				got, err := readAll(r)
				if err != io.EOF {
					t.Fatalf("stream ended with %v, want io.EOF", err)
				}
				sameEvents(t, got, tt.want)
				if r.LastEventID() != tt.lastID {
					t.Errorf("LastEventID() = %q, want %q", r.LastEventID(), tt.lastID)
				}
				if r.Retry() != tt.retry {
					t.Errorf("Retry() = %v, want %v", r.Retry(), tt.retry)
				}
				if _, err := r.Next(); err != io.EOF {
					t.Errorf("Next after the end = %v, want io.EOF again", err)
				}
			})
		}
	}
}

// chunkReader returns its chunks one per Read.
type chunkReader struct{ chunks []string }

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.chunks) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.chunks[0])
	c.chunks[0] = c.chunks[0][n:]
	if c.chunks[0] == "" {
		c.chunks = c.chunks[1:]
	}
	return n, nil
}

// A CR ending one read and an LF starting the next are one line end.
func TestReaderCRLFAcrossReads(t *testing.T) {
	tests := []struct {
		chunks []string
		want   []Event
	}{
		{[]string{"data: a\r", "\ndata: b\r", "\n\r", "\n"}, []Event{{Data: "a\nb"}}},
		{[]string{"data: a\r", "\r", "\n", "data: b\r\n", "\r\n"}, []Event{{Data: "a"}, {Data: "b"}}},
		{[]string{"id: 1\r", "\n", "data:\r", "\n", "\r", "\n"}, []Event{{ID: "1", HasID: true}}},
		{[]string{"\xEF", "\xBB", "\xBF", "data: a\r", "\n\r"}, []Event{{Data: "a"}}},
	}
	for _, tt := range tests {
		got, err := readAll(NewReader(&chunkReader{chunks: tt.chunks}))
		if err != io.EOF {
			t.Fatalf("%q: stream ended with %v", tt.chunks, err)
		}
		sameEvents(t, got, tt.want)
	}
}

// Next returns an event as soon as its blank line is read, without waiting
// for more bytes: a live stream's writer may pause after any event.
func TestReaderDoesNotReadAhead(t *testing.T) {
	pr, pw := io.Pipe()
	defer pr.Close()
	r := NewReader(pr)
	for _, tt := range []struct{ write, want string }{
		{"data: a\r\r", "a"},   // a CR at the end might be followed by LF
		{"\ndata: b\n\n", "b"}, // it was: the LF is skipped, not a blank line
		{"data: c\r\n\r\n", "c"},
		{"data: d\n\n", "d"},
	} {
		go pw.Write([]byte(tt.write))
		e, err := r.Next()
		if err != nil || e.Data != tt.want {
			t.Fatalf("Next() = %s, %v; want data %q", show(e), err, tt.want)
		}
	}
	pw.Close()
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("Next at the end = %v, want io.EOF", err)
	}
}

func TestReaderSizeLimit(t *testing.T) {
	const limit = 100
	tests := []struct {
		name  string
		input string
		ok    bool
	}{
		// One data line: the line (5+95 bytes) fits, then the buffer holds 96.
		{"line at limit", "data:" + strings.Repeat("x", 95) + "\n\n", true},
		{"line over limit", "data:" + strings.Repeat("x", 96) + "\n\n", false},
		{"unfinished line over limit", "data:" + strings.Repeat("x", 96), false},
		// The data buffer (40+1) and the next line (5+54) add up to 100.
		{"event at limit", "data:" + strings.Repeat("x", 40) + "\ndata:" + strings.Repeat("y", 54) + "\n\n", true},
		{"event over limit", "data:" + strings.Repeat("x", 40) + "\ndata:" + strings.Repeat("y", 55) + "\n\n", false},
		{"comment over limit", ":" + strings.Repeat("x", 100) + "\n\n", false},
		{"many events under limit", strings.Repeat("data:"+strings.Repeat("x", 90)+"\n\n", 50), true},
		// Three bytes of ill-formed UTF-8 each decode to a 3-byte U+FFFD.
		{"decoded data over limit", "data:" + strings.Repeat("\xff", 40) + "\n\n", false},
		{"decoded type over limit", "event:" + strings.Repeat("\xff", 40) + "\n\n", false},
		{"decoded id over limit", "id:" + strings.Repeat("\xff", 40) + "\n\n", false},
	}
	for _, tt := range tests {
		for how, rd := range readers(tt.input) {
			t.Run(tt.name+"/"+how, func(t *testing.T) {
				r := NewReaderSize(rd, limit)
				got, err := readAll(r)
				if tt.ok && err != io.EOF {
					t.Fatalf("got %v, want io.EOF", err)
				}
				if !tt.ok {
					if err != ErrEventTooLarge {
						t.Fatalf("got %d events and %v, want ErrEventTooLarge", len(got), err)
					}
					if _, err := r.Next(); err != ErrEventTooLarge {
						t.Fatalf("Next after the error = %v, want it again", err)
					}
				}
				if c := cap(r.buf); c > minBufSize {
					t.Errorf("buffer grew to %d bytes", c)
				}
			})
		}
	}
}

func TestReaderDefaultLimit(t *testing.T) {
	for _, max := range []int{0, -1} {
		if r := NewReaderSize(strings.NewReader(""), max); r.max != 16<<20 {
			t.Errorf("NewReaderSize(r, %d) limit = %d, want 16 MiB", max, r.max)
		}
	}
	// An event above 16 MiB fails; one of 1 MiB does not.
	big := "data: " + strings.Repeat("x", 16<<20) + "\n\n"
	if _, err := NewReader(strings.NewReader(big)).Next(); err != ErrEventTooLarge {
		t.Errorf("17 MiB event: %v, want ErrEventTooLarge", err)
	}
	e, err := NewReader(strings.NewReader(big[:1<<20] + "\n\n")).Next()
	if err != nil || len(e.Data) != 1<<20-6 {
		t.Errorf("1 MiB event: %d bytes, %v", len(e.Data), err)
	}
}

// After a large event the Reader lets its large buffers go.
func TestReaderReleasesLargeBuffers(t *testing.T) {
	big := "data: " + strings.Repeat("x", 4<<20) + "\n\n"
	r := NewReader(&chunkReader{chunks: []string{big[:3<<20], big[3<<20:], "data: a\n\nda", "ta: b\n\n"}})
	for _, want := range []int{4 << 20, 1, 1} {
		e, err := r.Next()
		if err != nil || len(e.Data) != want {
			t.Fatalf("Next() = %d bytes, %v; want %d", len(e.Data), err, want)
		}
	}
	if cap(r.data) > keepBufSize || cap(r.buf) > keepBufSize {
		t.Errorf("kept %d bytes of data and %d of buffer", cap(r.data), cap(r.buf))
	}
}

func TestReaderErrors(t *testing.T) {
	boom := errors.New("boom")
	// The events before the error come first; the error then sticks.
	r := NewReader(io.MultiReader(strings.NewReader("data: a\n\ndata: b\n"), iotest.ErrReader(boom)))
	got, err := readAll(r)
	if err != boom {
		t.Fatalf("stream ended with %v, want boom", err)
	}
	sameEvents(t, got, []Event{{Data: "a"}})
	if _, err := r.Next(); err != boom {
		t.Errorf("Next after the error = %v, want boom again", err)
	}

	if _, err := NewReader(stuckReader{}).Next(); err != io.ErrNoProgress {
		t.Errorf("reader making no progress: %v, want io.ErrNoProgress", err)
	}
	if _, err := NewReader(badReader{}).Next(); err != errNegativeRead {
		t.Errorf("reader returning -1: %v, want errNegativeRead", err)
	}
}

type stuckReader struct{}

func (stuckReader) Read([]byte) (int, error) { return 0, nil }

type badReader struct{}

func (badReader) Read([]byte) (int, error) { return -1, nil }
