package rpcnet_test

import (
	"bytes"
	"errors"
	"io"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/internal/jsonrpcspec"
	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/rpcnet"
)

// fuzzLimit is the fuzzed servers' MaxMessageSize.
const fuzzLimit = 4 << 10

const (
	fuzzSentinel       = `{"jsonrpc":"2.0","method":"sum","params":[40,1,1],"id":"fuzz-sentinel"}`
	fuzzSentinelAnswer = `{"jsonrpc":"2.0","id":"fuzz-sentinel","result":42}`
)

func addServeSeeds(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}` + "\n",
		"Content-Length: 62\r\n\r\n" + `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`,
		`[{"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":"1"},{"foo":"boo"},1]` + "\n",
		"\n\r\n  \n", "no newline", `{"jsonrpc":"2.0","method":"foobar,"params":"bar","baz]` + "\n",
		"Content-Length: 100\r\n\r\n{}", "Content-Length: -1\r\n\r\n", "Content-Length: 99999999999999999999\r\n\r\n",
		"Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}", "garbage\r\n\r\n", "Content-Length: 3\r\n",
		"Content-Length: 20\r\n\r\n" + `{"id":7,"method":"x"}Content-Length: 2` + "\r\n\r\n{}",
		strings.Repeat("y", fuzzLimit+10) + "\n{}\n", "Content-Length: 5000\r\n\r\n" + strings.Repeat("z", 5000),
		"\xff\xfe\n", `{"jsonrpc":"2.0","result":19,"id":1}` + "\n",
	} {
		f.Add([]byte(s))
	}
}

// fuzzServe starts a server of the JSON-RPC specification's service on a
// Unix socket with framing, for the fuzz inputs; it returns the socket's path.
func fuzzServe(f *testing.F, framing runtime.Framing) string {
	path := filepath.Join(f.TempDir(), "f.sock")
	ln, err := rpcnet.Listen("unix", path)
	if err != nil {
		f.Fatal(err)
	}
	srv := &rpcnet.Server{Options: runtime.Options{Handler: jsonrpcspec.NewSpecHandler(&jsonrpcspec.Impl{}),
		Framing: framing, MaxMessageSize: fuzzLimit}}
	go srv.Serve(ln)
	f.Cleanup(func() { srv.Close() })
	return path
}

// fuzzServeBytes writes input, then a valid call, on a fresh connection to
// the server at path, closes its sending side and reads what the server
// sends until it closes: every message must be a JSON-RPC 2.0 response (or
// a batch of them), and the whole must end within seconds. It reports
// whether the valid call was answered.
func fuzzServeBytes(t *testing.T, path string, framing runtime.Framing, input, sentinel []byte) bool {
	nc, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(20 * time.Second))
	wrote := make(chan error, 1)
	go func() {
		_, err := nc.Write(append(append([]byte(nil), input...), sentinel...))
		nc.(*net.UnixConn).CloseWrite()
		wrote <- err
	}()
	f := runtime.NewFramer(framing, nc, io.Discard, 1<<20)
	answered := false
	for {
		msg, err := f.ReadMessage()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("reading what the server sent: %v", err)
		}
		if err := rpctest.CheckReply(msg); err != nil {
			t.Fatal(err)
		}
		answered = answered || rpctest.SameJSON(t, string(msg), fuzzSentinelAnswer)
	}
	if err := <-wrote; err != nil {
		t.Fatalf("write: %v", err)
	}
	return answered
}

// FuzzServeLines feeds any bytes to an rpcnet server in newline-delimited
// framing, then a valid call on a line of its own: every message the
// server sends is a JSON-RPC 2.0 response, the connection ends when the
// client's input does, and the valid call is answered whatever came before.
func FuzzServeLines(f *testing.F) {
	addServeSeeds(f)
	path := fuzzServe(f, runtime.NewlineDelimited)
	f.Fuzz(func(t *testing.T, input []byte) {
		if !fuzzServeBytes(t, path, runtime.NewlineDelimited, input, []byte("\n"+fuzzSentinel+"\n")) {
			t.Fatalf("the valid call after %q was not answered", input)
		}
	})
}

// FuzzServeHeaders is FuzzServeLines in Content-Length framing. The valid
// call follows a blank line, so a malformed header block before it ends
// there; it must be answered unless the input holds a Content-Length of its
// own (which may rightly take the call as its body) or is too long to scan.
func FuzzServeHeaders(f *testing.F) {
	addServeSeeds(f)
	path := fuzzServe(f, runtime.ContentLength)
	sentinel := []byte("\r\n\r\nContent-Length: " + strconv.Itoa(len(fuzzSentinel)) + "\r\n\r\n" + fuzzSentinel)
	f.Fuzz(func(t *testing.T, input []byte) {
		answered := fuzzServeBytes(t, path, runtime.ContentLength, input, sentinel)
		own := bytes.Contains(bytes.ToLower(input), []byte("content-length"))
		if !answered && !own && len(input) < fuzzLimit {
			t.Fatalf("the valid call after %q was not answered", input)
		}
	})
}
