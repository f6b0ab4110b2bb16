package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime"
)

// TestRobustness sends a bad message, checks the error reply, then checks that a valid
// call on the same connection still succeeds.
func TestRobustness(t *testing.T) {
	deep := strings.Repeat("[", 200) + strings.Repeat("]", 200)
	cases := []struct {
		name, in string
		code     int64
		msg      string // substring of the error message
	}{
		{"invalid JSON", `{"jsonrpc":"2.0",`, runtime.CodeParseError, "Parse error"},
		{"not an object", `"hello"`, runtime.CodeInvalidRequest, "Invalid Request"},
		{"wrong version", `{"jsonrpc":"1.0","method":"sum","params":[1],"id":1}`, runtime.CodeInvalidRequest, "Invalid Request"},
		{"method not a string", `{"jsonrpc":"2.0","method":5,"id":1}`, runtime.CodeInvalidRequest, "Invalid Request"},
		{"id an object", `{"jsonrpc":"2.0","method":"sum","id":{}}`, runtime.CodeInvalidRequest, "Invalid Request"},
		{"params a string", `{"jsonrpc":"2.0","method":"sum","params":"x","id":1}`, runtime.CodeInvalidRequest, "Invalid Request"},
		{"wrong param types", `{"jsonrpc":"2.0","method":"subtract","params":{"minuend":"x"},"id":1}`, runtime.CodeInvalidParams, `"minuend": expected an integer, got "x"`},
		{"unknown method", `{"jsonrpc":"2.0","method":"nope","id":1}`, runtime.CodeMethodNotFound, "Method not found"},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"method\":\"s\xffum\",\"id\":1}", runtime.CodeParseError, "Parse error"},
		{"deep nesting", `{"jsonrpc":"2.0","method":"sum","params":` + deep + `,"id":1}`, runtime.CodeInvalidRequest, "nesting depth exceeds the limit of 128"},
		{"oversized", `{"jsonrpc":"2.0","method":"sum","params":[` + strings.Repeat("1,", 600) + `1],"id":1}`, runtime.CodeInvalidRequest, "exceeds the size limit of 1024 bytes"},
	}
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			rpctest.CheckLeaks(t)
			f := tr.dial(t, runtime.Options{Handler: specHandler, MaxMessageSize: 1024})
			for _, tc := range cases {
				reply := roundTrip(t, f, tc.in, false)
				var resp struct {
					ID    json.RawMessage `json:"id"`
					Error *runtime.Error  `json:"error"`
				}
				if err := json.Unmarshal([]byte(reply), &resp); err != nil || resp.Error == nil {
					t.Fatalf("%s: reply %s is not an error response", tc.name, reply)
				}
				if resp.Error.Code != tc.code || !strings.Contains(resp.Error.Message, tc.msg) {
					t.Errorf("%s: got error %d %q, want %d containing %q", tc.name, resp.Error.Code, resp.Error.Message, tc.code, tc.msg)
				}
				roundTrip(t, f, `{"jsonrpc":"2.0","method":"update"}`, true) // the sentinel call must still succeed
			}
			f.Close()
		})
	}
}

// TestTruncatedFrame checks that a stream ending inside a frame ends the connection with
// an error from Err, and that a fresh connection still works.
func TestTruncatedFrame(t *testing.T) {
	rpctest.CheckLeaks(t)
	for _, framing := range []runtime.Framing{runtime.ContentLength, runtime.NewlineDelimited} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		c := runtime.NewConn(runtime.NewFramer(framing, r, io.Discard, 0), runtime.Options{Handler: specHandler})
		if framing == runtime.ContentLength {
			io.WriteString(w, "Content-Length: 50\r\n\r\n{\"jsonrpc\":")
		} else {
			io.WriteString(w, `{"jsonrpc":"2.0","method":"sum"`)
		}
		w.Close()
		<-c.Done()
		if err := c.Err(); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%v: Err() = %v, want io.ErrUnexpectedEOF", framing, err)
		}
		if err := c.Call(context.Background(), "sum", []int{1}, nil); !errors.Is(err, runtime.ErrClosed) {
			t.Errorf("%v: call after the end: %v, want ErrClosed", framing, err)
		}
		c.Close()
	}
	client, _ := connPair(t, runtime.Options{}, runtime.Options{Handler: specHandler})
	var sum int
	if err := client.Call(context.Background(), "sum", []int{1, 2, 0}, &sum); err != nil || sum != 3 {
		t.Fatalf("fresh connection: %d, %v", sum, err)
	}
}

// TestBadHeader: a malformed header block at the end of the stream is answered with a
// Parse error (see TestMalformedFrames); the connection then ends, with an error only
// when the stream broke off inside a frame.
func TestBadHeader(t *testing.T) {
	rpctest.CheckLeaks(t)
	for in, broken := range map[string]bool{"Content-Length: x\r\n\r\n{}": true, "no colon here\r\n\r\n": false, "Content-Type: a\r\n\r\n{}": true} {
		replies, err := serveFrames(t, in, nil)
		if len(replies) != 1 || !strings.Contains(replies[0], `"code":-32700`) {
			t.Errorf("%q: replies %q, want one Parse error", in, replies)
		}
		if (err != nil) != broken {
			t.Errorf("%q: Err() = %v", in, err)
		}
	}
}

// TestClientDisconnectsMidCall checks that a server whose client vanished while its
// handler ran keeps working for the next client.
func TestClientDisconnectsMidCall(t *testing.T) {
	rpctest.CheckLeaks(t)
	started := make(chan struct{})
	release := make(chan struct{})
	h := runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
		if req.Method == "slow" {
			close(started)
			<-release
		}
		return specHandler.ServeRPC(ctx, req)
	})
	cf, sf := osPipes(t, runtime.NewlineDelimited, 0)
	served := make(chan error, 1)
	go func() { served <- runtime.Serve(context.Background(), sf, runtime.Options{Handler: h}) }()
	client := runtime.NewConn(cf, runtime.Options{})
	callErr := make(chan error, 1)
	go func() { callErr <- client.Call(context.Background(), "slow", nil, nil) }()
	<-started
	client.Close()
	if err := <-callErr; !errors.Is(err, runtime.ErrClosed) {
		t.Errorf("call on a closed connection: %v, want ErrClosed", err)
	}
	close(release)
	if err := <-served; err != nil {
		t.Errorf("Serve after the client left: %v", err)
	}
	c2, _ := connPair(t, runtime.Options{}, runtime.Options{Handler: h})
	var sum int
	if err := c2.Call(context.Background(), "sum", []int{2, 2, 0}, &sum); err != nil || sum != 4 {
		t.Fatalf("next client: %d, %v", sum, err)
	}
}
