package runtime

import (
	"bytes"
	"strings"
	"testing"
)

// TestLineFramerLetsGoOfLargeBuffers reads a long line, skips an overlong
// one and writes a pretty-printed message, each over the buffer a framer
// keeps between messages: afterwards it holds no buffer of their size (it
// kept them for as long as the connection lived), and still frames
// messages.
func TestLineFramerLetsGoOfLargeBuffers(t *testing.T) {
	const limit = 1 << 20
	long := `["` + strings.Repeat("x", 4*maxKeptBuffer) + `"]`
	over := `["` + strings.Repeat("y", limit) + `"]`
	in := strings.NewReader(long + "\n" + over + "\n" + `{"a":1}` + "\n")
	var out bytes.Buffer
	f := NewLineFramer(in, &out, limit).(*lineFramer)
	check := func(after string) {
		t.Helper()
		if c := cap(f.long); c > maxKeptBuffer {
			t.Errorf("after %s the framer keeps a line buffer of %d KiB", after, c>>10)
		}
		if c := f.flat.Cap(); c > maxKeptBuffer {
			t.Errorf("after %s the framer keeps a write buffer of %d KiB", after, c>>10)
		}
	}
	if msg, err := f.ReadMessage(); err != nil || string(msg) != long {
		t.Fatalf("the long line: %d bytes, %v", len(msg), err)
	}
	check("a long line")
	if _, err := f.ReadMessage(); err != ErrMessageTooLarge {
		t.Fatalf("the overlong line: %v, want ErrMessageTooLarge", err)
	}
	check("an overlong line")
	pretty := "[\n  \"" + strings.Repeat("z", 4*maxKeptBuffer) + "\"\n]"
	if err := f.WriteMessage([]byte(pretty)); err != nil {
		t.Fatal(err)
	}
	check("writing a pretty-printed message")
	if want := `["` + strings.Repeat("z", 4*maxKeptBuffer) + `"]` + "\n"; out.String() != want {
		t.Errorf("wrote %d bytes, want the message compacted on one line", out.Len())
	}
	if msg, err := f.ReadMessage(); err != nil || string(msg) != `{"a":1}` {
		t.Fatalf("the next message: %q, %v", msg, err)
	}
}
