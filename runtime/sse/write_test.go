package sse

import (
	"io"
	"strings"
	"testing"
	"time"
)

func TestAppendEvent(t *testing.T) {
	tests := []struct {
		name string
		e    Event
		want string
	}{
		{"data", Event{Data: `{"jsonrpc":"2.0"}`}, "data: {\"jsonrpc\":\"2.0\"}\n\n"},
		{"empty", Event{}, "data:\n\n"},
		{"all fields", Event{ID: "s1-4", Type: "message", Data: "x", Retry: 2 * time.Second},
			"id: s1-4\nevent: message\nretry: 2000\ndata: x\n\n"},
		{"priming", Event{ID: "s1-0", HasID: true, Retry: time.Second}, "id: s1-0\nretry: 1000\ndata:\n\n"},
		{"empty id", Event{HasID: true, Data: "x"}, "id:\ndata: x\n\n"},
		{"id implies HasID", Event{ID: "7", Data: "x"}, "id: 7\ndata: x\n\n"},
		{"lines", Event{Data: "a\nb\r\nc\rd"}, "data: a\ndata: b\ndata: c\ndata: d\n\n"},
		{"empty lines", Event{Data: "\na\n\n"}, "data:\ndata: a\ndata:\ndata:\n\n"},
		{"crlf only", Event{Data: "\r\n"}, "data:\ndata:\n\n"},
		{"cr cr lf", Event{Data: "\r\r\n"}, "data:\ndata:\ndata:\n\n"},
		{"leading space kept", Event{Data: " a", ID: " i", Type: " t"}, "id:  i\nevent:  t\ndata:  a\n\n"},
		{"newlines in id and type", Event{ID: "a\nid: b", Type: "t\r\ndata: x", Data: "d"},
			"id: a\uFFFDid: b\nevent: t\uFFFD\uFFFDdata: x\ndata: d\n\n"},
		{"retry rounds up", Event{Retry: 1500 * time.Microsecond, Data: "x"}, "retry: 2\ndata: x\n\n"},
		{"retry under a millisecond", Event{Retry: 1, Data: "x"}, "retry: 1\ndata: x\n\n"},
		{"negative retry omitted", Event{Retry: -time.Second, Data: "x"}, "data: x\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(AppendEvent([]byte("prefix"), tt.e))
			if got != "prefix"+tt.want {
				t.Errorf("AppendEvent = %q, want %q", got, "prefix"+tt.want)
			}
		})
	}
}

func TestAppendComment(t *testing.T) {
	tests := []struct{ text, want string }{
		{"", ":\n\n"},
		{"keep-alive", ": keep-alive\n\n"},
		{" x", ":  x\n\n"},
		{"a\nb", ": a\n: b\n\n"},
		{"a\r\n\r\nb\r", ": a\n:\n: b\n:\n\n"},
		{"\ndata: x\n\n", ":\n: data: x\n:\n:\n\n"},
	}
	for _, tt := range tests {
		if got := string(AppendComment(nil, tt.text)); got != tt.want {
			t.Errorf("AppendComment(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// Comments dispatch nothing and leave the events around them whole, whatever
// their text.
func TestAppendCommentCannotInject(t *testing.T) {
	var b []byte
	b = AppendEvent(b, Event{ID: "1", Data: "a"})
	for _, text := range []string{"", "x", "\n\ndata: evil\n\n", "\rid: 666\r\r", "\r\nretry: 1\r\n", "event: x\ndata: y"} {
		b = AppendComment(b, text)
	}
	b = AppendEvent(b, Event{Data: "b"})
	r := NewReader(strings.NewReader(string(b)))
	got, err := readAll(r)
	if err != io.EOF {
		t.Fatal(err)
	}
	sameEvents(t, got, []Event{{ID: "1", HasID: true, Data: "a"}, {ID: "1", Data: "b"}})
	if r.Retry() != 0 {
		t.Errorf("a comment set retry to %v", r.Retry())
	}
}

func TestAppendEventAllocs(t *testing.T) {
	b := make([]byte, 0, 4096)
	e := Event{ID: "s-12", Type: "message", Data: strings.Repeat("x", 1000), Retry: time.Second}
	if n := testing.AllocsPerRun(100, func() { b = AppendEvent(b[:0], e) }); n != 0 {
		t.Errorf("AppendEvent allocates %v times into a large enough buffer", n)
	}
}
