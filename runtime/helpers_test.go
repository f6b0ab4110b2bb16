package runtime_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/internal/jsonrpcspec"
	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime"
)

// specHandler is the generated dispatcher of the service behind the examples in
// section 7 of the JSON-RPC 2.0 specification, so these tests run the runtime with
// the code rpcgen writes.
var specHandler = jsonrpcspec.NewSpecHandler(&jsonrpcspec.Impl{})

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
	if noReply && !rpctest.SameJSON(t, string(msg), `{"jsonrpc":"2.0","result":42,"id":"sentinel"}`) {
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

// flatten puts a message on one line for newline-delimited framing.
func flatten(s string) string { return strings.NewReplacer("\n", " ", "\r", " ").Replace(s) }

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }
