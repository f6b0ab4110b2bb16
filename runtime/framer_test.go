package runtime_test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/runtime"
)

// readAll reads messages until an error other than ErrMessageTooLarge, counting skips.
func readAll(f runtime.Framer) (msgs []string, skipped int, err error) {
	for {
		msg, err := f.ReadMessage()
		if errors.Is(err, runtime.ErrMessageTooLarge) {
			skipped++
			continue
		}
		if err != nil {
			return msgs, skipped, err
		}
		msgs = append(msgs, string(msg))
	}
}

func TestLineFramer(t *testing.T) {
	in := "{\"a\":1}\r\n\n  \n{\"b\":2}\n" + `["` + strings.Repeat("x", 100) + `"]` + "\n{\"c\":3}\n"
	msgs, skipped, err := readAll(runtime.NewLineFramer(strings.NewReader(in), io.Discard, 50))
	if err != io.EOF || skipped != 1 || strings.Join(msgs, " ") != `{"a":1} {"b":2} {"c":3}` {
		t.Errorf("got %q, skipped %d, %v", msgs, skipped, err)
	}
	_, _, err = readAll(runtime.NewLineFramer(strings.NewReader(`{"a":1}`+"\n"+`{"trunc`), io.Discard, 0))
	if err != io.ErrUnexpectedEOF {
		t.Errorf("truncated: %v", err)
	}
	var out bytes.Buffer
	f := runtime.NewLineFramer(nil, &out, 0)
	if err := f.WriteMessage([]byte("{\n  \"a\": \"x\\ny\"\n}")); err != nil || out.String() != "{\"a\":\"x\\ny\"}\n" {
		t.Errorf("pretty message written as %q, %v", out.String(), err)
	}
}

func TestHeaderFramer(t *testing.T) {
	in := "Content-Length: 7\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{\"a\":1}" +
		"content-length: 60\r\n\r\n" + strings.Repeat("x", 60) +
		"Content-Length:7\r\n\r\n{\"c\":3}"
	msgs, skipped, err := readAll(runtime.NewHeaderFramer(strings.NewReader(in), io.Discard, 50))
	if err != io.EOF || skipped != 1 || strings.Join(msgs, " ") != `{"a":1} {"c":3}` {
		t.Errorf("got %q, skipped %d, %v", msgs, skipped, err)
	}
	var out bytes.Buffer
	runtime.NewHeaderFramer(nil, &out, 0).WriteMessage([]byte(`{}`))
	if out.String() != "Content-Length: 2\r\n\r\n{}" {
		t.Errorf("wrote %q", out.String())
	}
}

func TestPipeClose(t *testing.T) {
	a, b := runtime.Pipe()
	if err := a.WriteMessage([]byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if msg, err := b.ReadMessage(); err != nil || string(msg) != `{}` {
		t.Fatalf("read %s, %v", msg, err)
	}
	b.Close()
	if _, err := a.ReadMessage(); err != io.EOF {
		t.Errorf("read after close: %v", err)
	}
	if err := b.WriteMessage([]byte(`{}`)); err == nil {
		t.Error("write after close succeeded")
	}
}

// fuzzFramer feeds arbitrary bytes to a framer: it must not panic nor return a message
// over the limit, and after a skipped message it reads on; messages it writes must read
// back unchanged.
func fuzzFramer(f *testing.F, newFramer func(r io.Reader, w io.Writer, max int) runtime.Framer) {
	f.Fuzz(func(t *testing.T, data []byte, msg string) {
		const limit = 64
		fr := newFramer(bytes.NewReader(data), io.Discard, limit)
		for range 1000 {
			m, err := fr.ReadMessage()
			if _, malformed := errors.AsType[*runtime.FrameError](err); malformed || errors.Is(err, runtime.ErrMessageTooLarge) {
				continue // skipped: the framer reads on
			}
			if err != nil {
				break
			}
			if len(m) > limit {
				t.Fatalf("message of %d bytes over the %d limit", len(m), limit)
			}
		}
		// Round trip: a compact JSON string value, which has no raw line breaks.
		want := string(appendJSON(msg))
		var buf bytes.Buffer
		if err := newFramer(nil, &buf, 0).WriteMessage([]byte(want)); err != nil {
			t.Fatal(err)
		}
		got, err := newFramer(&buf, io.Discard, 0).ReadMessage()
		if err != nil || string(got) != want {
			t.Fatalf("round trip of %q: %q, %v", want, got, err)
		}
	})
}

func appendJSON(s string) []byte {
	b, _ := jsonMarshal(s)
	return b
}

func addFramerSeeds(f *testing.F) {
	for _, s := range []string{
		"{\"a\":1}\n", "{\"a\":1}\r\n\r\n", "\n\n\n", strings.Repeat("y", 200) + "\n{}\n", "no newline",
		"Content-Length: 2\r\n\r\n{}", "Content-Length: 100\r\n\r\n{}", "Content-Length: -1\r\n\r\n",
		"Content-Length: 99999999999999999999\r\n\r\n", "garbage\r\n\r\n", "Content-Length: 3\r\n", "\r\n\r\nContent-Length: 1\r\n\r\n1",
	} {
		f.Add([]byte(s), "hello")
	}
	f.Add([]byte{}, "line\nbreak \u2028 \xff")
}

func FuzzLineFramer(f *testing.F) {
	addFramerSeeds(f)
	fuzzFramer(f, runtime.NewLineFramer)
}

func FuzzHeaderFramer(f *testing.F) {
	addFramerSeeds(f)
	fuzzFramer(f, runtime.NewHeaderFramer)
}
