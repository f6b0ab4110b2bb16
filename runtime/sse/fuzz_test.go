package sse

import (
	"bytes"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// retryCap is the most milliseconds a time.Duration holds.
const retryCap = math.MaxInt64 / time.Millisecond

// referenceParse interprets a whole stream by the standard's steps, written
// as plainly as possible: decode, then split lines, then one field at a time.
func referenceParse(input []byte) (events []Event, lastID string, retry time.Duration) {
	input = bytes.TrimPrefix(input, []byte("\xEF\xBB\xBF"))
	s := whatwgDecode(input)
	var data, typ strings.Builder
	idBuf, hasID, eventRetry := "", false, time.Duration(0)
	for {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			return events, lastID, retry // the rest is an unfinished line
		}
		line := s[:i]
		if strings.HasPrefix(s[i:], "\r\n") {
			s = s[i+2:]
		} else {
			s = s[i+1:]
		}
		switch {
		case line == "":
			lastID = idBuf
			if data.Len() > 0 {
				events = append(events, Event{
					ID: idBuf, HasID: hasID, Type: typ.String(),
					Data: strings.TrimSuffix(data.String(), "\n"), Retry: eventRetry,
				})
			}
			data.Reset()
			typ.Reset()
			hasID, eventRetry = false, 0
			continue
		case line[0] == ':':
			continue
		}
		name, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch name {
		case "data":
			data.WriteString(value + "\n")
		case "event":
			typ.Reset()
			typ.WriteString(value)
		case "id":
			if !strings.Contains(value, "\x00") {
				idBuf, hasID = value, true
			}
		case "retry":
			if value != "" && strings.Trim(value, "0123456789") == "" {
				ms := retryCap
				if digits := strings.TrimLeft(value, "0"); len(digits) <= len("9223372036854") {
					v, _ := strconv.ParseInt("0"+digits, 10, 64)
					ms = time.Duration(v)
				}
				retry = min(ms, retryCap) * time.Millisecond
				eventRetry = retry
			}
		}
	}
}

var readerSeeds = []string{
	"data: hello\n\n",
	"\xEF\xBB\xBFid: 1\r\nretry: 1000\r\ndata:\r\n\r\n",
	"event: x\rdata: a\rdata: b\r\r: c\n\n",
	"id: 1\n\ndata\n\nid: a\x00\ndata: \xff\xe2\x82\n\n",
	"retry: 5\nretry: x\nfoo: bar\ndata: é\n\ndata: unfinished",
}

// FuzzReader checks that a Reader never panics, reads any stream as the
// plain reference parser does, whatever the read boundaries, and keeps to
// its size limit.
func FuzzReader(f *testing.F) {
	for _, s := range readerSeeds {
		f.Add([]byte(s), uint16(20))
	}
	// Ill-formed UTF-8 grows as it is decoded: past the limit at once.
	f.Add([]byte("data:\xa4\xf5\x8c0\xff\xe2\n"), uint16(15))
	f.Fuzz(func(t *testing.T, input []byte, limit uint16) {
		want, wantID, wantRetry := referenceParse(input)
		for _, rd := range []io.Reader{bytes.NewReader(input), iotest.OneByteReader(bytes.NewReader(input))} {
			r := NewReader(rd)
			got, err := readAll(r)
			if err != io.EOF {
				t.Fatalf("stream ended with %v", err)
			}
			sameEvents(t, got, want)
			if r.LastEventID() != wantID || r.Retry() != wantRetry {
				t.Fatalf("LastEventID, Retry = %q, %v; want %q, %v", r.LastEventID(), r.Retry(), wantID, wantRetry)
			}
		}

		// With a limit, the events before ErrEventTooLarge are the same.
		n := int(limit%512) + 1
		r := NewReaderSize(iotest.HalfReader(bytes.NewReader(input)), n)
		for i := 0; ; i++ {
			e, err := r.Next()
			if len(r.data) > n || cap(r.buf) > max(minBufSize, n+1) {
				t.Fatalf("limit %d: holding %d bytes of data in a buffer of %d", n, len(r.data), cap(r.buf))
			}
			if err == ErrEventTooLarge {
				break
			}
			if err == io.EOF {
				if i != len(want) {
					t.Fatalf("limit %d: %d events, want %d", n, i, len(want))
				}
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if i >= len(want) || e != want[i] {
				t.Fatalf("limit %d: event %d = %s", n, i, show(e))
			}
			if len(e.Data) > n || len(e.ID) > n || len(e.Type) > n {
				t.Fatalf("limit %d: event %s is larger", n, show(e))
			}
		}
	})
}

// normalize returns the event a reader reads after AppendEvent(e), when the
// stream's last event ID was lastID.
func normalize(e Event, lastID string) Event {
	crlf := strings.NewReplacer("\r\n", "\n", "\r", "\n")
	single := strings.NewReplacer("\r", "\uFFFD", "\n", "\uFFFD")
	e.Data = whatwgDecode([]byte(crlf.Replace(e.Data)))
	e.Type = whatwgDecode([]byte(single.Replace(e.Type)))
	if e.HasID || e.ID != "" {
		e.ID = whatwgDecode([]byte(single.Replace(e.ID)))
		e.HasID = !strings.Contains(e.ID, "\x00")
	}
	if !e.HasID {
		e.ID = lastID
	}
	if e.Retry <= 0 {
		e.Retry = 0
		return e
	}
	ms := e.Retry / time.Millisecond
	if e.Retry%time.Millisecond != 0 {
		ms++
	}
	e.Retry = min(ms, retryCap) * time.Millisecond
	return e
}

// checkRoundTrip writes events and reads them back, whole and one byte at
// a time.
func checkRoundTrip(t *testing.T, events []Event) {
	t.Helper()
	var b []byte
	var want []Event
	lastID := ""
	for _, e := range events {
		b = AppendEvent(b, e)
		n := normalize(e, lastID)
		want = append(want, n)
		lastID = n.ID
	}
	for _, rd := range []io.Reader{bytes.NewReader(b), iotest.OneByteReader(bytes.NewReader(b))} {
		got, err := readAll(NewReader(rd))
		if err != io.EOF {
			t.Fatalf("stream ended with %v", err)
		}
		sameEvents(t, got, want)
	}
}

// TestRoundTrip writes random events, whose data mixes line ends, unicode,
// ill-formed UTF-8 and SSE syntax, and reads them back.
func TestRoundTrip(t *testing.T) {
	pieces := []string{"a", "{\"x\":1}", " ", ":", "data: x", "id: 9", "\r", "\n", "\r\n", "\n\r",
		"é", "日本", "🙂", "\uFEFF", "\uFFFD", "\x00", "\xff", "\xe2\x82", "\t"}
	rng := rand.New(rand.NewPCG(1, 2))
	text := func(max int) string {
		var s strings.Builder
		for range rng.IntN(max + 1) {
			s.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return s.String()
	}
	for range 2000 {
		events := make([]Event, 1+rng.IntN(4))
		for i := range events {
			events[i] = Event{ID: text(2), HasID: rng.IntN(2) == 0, Type: text(2), Data: text(8),
				Retry: time.Duration(rng.IntN(3)) * time.Duration(rng.Int64N(int64(time.Hour)))}
		}
		checkRoundTrip(t, events)
	}
}

func FuzzRoundTrip(f *testing.F) {
	f.Add("1", true, "message", "{\"a\":1}\n{\"b\":2}", int64(1000))
	f.Add("", true, "", "", int64(0))
	f.Add("a\nb", false, "t\r", "\r\n\r\xff", int64(-5))
	f.Fuzz(func(t *testing.T, id string, hasID bool, typ, data string, retry int64) {
		checkRoundTrip(t, []Event{
			{ID: id, HasID: hasID, Type: typ, Data: data, Retry: time.Duration(retry)},
			{Data: data},
		})
	})
}
