package runtime_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	goruntime "runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/internal/jsonrpcspec"
	"github.com/rpcgen/rpcgen/runtime"
)

// checkLeaks fails t if goroutines started during the test are still running once its
// other cleanups have run. Register it first: cleanups run last-in, first-out.
func checkLeaks(t *testing.T) {
	t.Helper()
	before := goruntime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(5 * time.Second)
		for {
			n := goruntime.NumGoroutine()
			if n <= before {
				return
			}
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<20)
				buf = buf[:goruntime.Stack(buf, true)]
				t.Errorf("goroutine leak: %d before, %d after\n%s", before, n, buf)
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}

// specHandler is the generated dispatcher of the service behind the examples in
// section 7 of the JSON-RPC 2.0 specification, so these tests run the runtime with
// the code rpcgen writes.
var specHandler = jsonrpcspec.NewSpecHandler(&jsonrpcspec.Impl{})

// normalize decodes a JSON message for comparison: member order is ignored, batch
// replies are sorted (their order is free) and error data is dropped when want has none.
func normalize(t *testing.T, raw string, keepData bool) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		t.Fatalf("not JSON: %v: %s", err, raw)
	}
	strip := func(m any) any {
		obj, ok := m.(map[string]any)
		if !ok || keepData {
			return m
		}
		if e, ok := obj["error"].(map[string]any); ok {
			delete(e, "data")
		}
		return m
	}
	if arr, ok := v.([]any); ok {
		for i := range arr {
			arr[i] = strip(arr[i])
		}
		slices.SortFunc(arr, func(a, b any) int {
			ja, _ := json.Marshal(a)
			jb, _ := json.Marshal(b)
			return bytes.Compare(ja, jb)
		})
		return arr
	}
	return strip(v)
}

// sameJSON reports whether got matches want as JSON (see normalize).
func sameJSON(t *testing.T, got, want string) bool {
	t.Helper()
	keepData := strings.Contains(want, `"data"`)
	g, w := normalize(t, got, keepData), normalize(t, want, keepData)
	gj, _ := json.Marshal(g)
	wj, _ := json.Marshal(w)
	return bytes.Equal(gj, wj)
}

const sentinel = `{"jsonrpc":"2.0","method":"sum","params":[40,1,1],"id":"sentinel"}`

// roundTrip writes in (raw bytes) and returns the next message read. When in expects no
// reply, pass noReply: a sentinel request follows it and its reply must come next.
func roundTrip(t *testing.T, f runtime.Framer, in string, noReply bool) string {
	t.Helper()
	if err := f.WriteMessage([]byte(in)); err != nil {
		t.Fatalf("write %s: %v", in, err)
	}
	if noReply {
		if err := f.WriteMessage([]byte(sentinel)); err != nil {
			t.Fatalf("write sentinel: %v", err)
		}
	}
	msg, err := f.ReadMessage()
	if err != nil {
		t.Fatalf("read reply to %s: %v", in, err)
	}
	if noReply && !sameJSON(t, string(msg), `{"jsonrpc":"2.0","result":42,"id":"sentinel"}`) {
		t.Fatalf("got %s, want no reply to %s", msg, in)
	}
	return string(msg)
}

// osPipes returns a client framer and a server framer connected through two OS pipes.
func osPipes(t *testing.T, framing runtime.Framing, maxSize int) (client, server runtime.Framer) {
	t.Helper()
	r1, w1, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r2, w2, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	return runtime.NewFramer(framing, r2, w1, maxSize), runtime.NewFramer(framing, r1, w2, maxSize)
}

// transport names a way to connect a raw client framer to a served connection.
type transport struct {
	name string
	// dial returns the client end of a new connection served with opts.
	dial func(t *testing.T, opts runtime.Options) runtime.Framer
	// oneLine is set when messages must not contain line breaks.
	oneLine bool
}

var transports = []transport{
	{name: "Pipe", dial: func(t *testing.T, opts runtime.Options) runtime.Framer {
		a, b := runtime.Pipe()
		serveOn(t, b, opts)
		return a
	}},
	{name: "os.Pipe/lines", oneLine: true, dial: func(t *testing.T, opts runtime.Options) runtime.Framer {
		client, server := osPipes(t, runtime.NewlineDelimited, opts.MaxMessageSize)
		serveOn(t, server, opts)
		return client
	}},
	{name: "os.Pipe/headers", dial: func(t *testing.T, opts runtime.Options) runtime.Framer {
		client, server := osPipes(t, runtime.ContentLength, opts.MaxMessageSize)
		serveOn(t, server, opts)
		return client
	}},
}

// serveOn serves opts on f until the test ends, closing both ends.
func serveOn(t *testing.T, f runtime.Framer, opts runtime.Options) *runtime.Conn {
	t.Helper()
	c := runtime.NewConn(f, opts)
	t.Cleanup(func() { c.Close() })
	return c
}

// connPair returns a client Conn connected over Pipe to a server Conn.
func connPair(t *testing.T, client, server runtime.Options) (*runtime.Conn, *runtime.Conn) {
	t.Helper()
	a, b := runtime.Pipe()
	s := serveOn(t, b, server)
	c := serveOn(t, a, client)
	return c, s
}

// wantRPCError checks that err is a *runtime.Error with the given code.
func wantRPCError(t *testing.T, err error, code int64) *runtime.Error {
	t.Helper()
	var rpcErr *runtime.Error
	if !errors.As(err, &rpcErr) {
		t.Fatalf("error %v (%T) is not a *runtime.Error", err, err)
	}
	if rpcErr.Code != code {
		t.Fatalf("error code %d (%s), want %d", rpcErr.Code, rpcErr.Message, code)
	}
	return rpcErr
}

// flatten puts a message on one line for newline-delimited framing.
func flatten(s string) string { return strings.NewReplacer("\n", " ", "\r", " ").Replace(s) }

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }
