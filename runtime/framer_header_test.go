package runtime_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime"
)

// frame is a well-formed Content-Length frame of msg.
func frame(msg string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(msg), msg) }

// serveFrames serves in (then EOF) with Content-Length framing and returns the
// replies in order and the connection's Err.
func serveFrames(t *testing.T, in string, logger *slog.Logger) ([]string, error) {
	t.Helper()
	var out bytes.Buffer
	opts := runtime.Options{Handler: specHandler, MaxMessageSize: 1 << 20, Logger: logger, MaxInflight: 1}
	c := runtime.NewConn(runtime.NewHeaderFramer(strings.NewReader(in), &out, 1<<20), opts)
	<-c.Done()
	if err := c.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	var replies []string
	rd := runtime.NewHeaderFramer(bytes.NewReader(out.Bytes()), io.Discard, 0)
	for {
		m, err := rd.ReadMessage()
		if err != nil {
			break
		}
		replies = append(replies, string(m))
	}
	return replies, c.Err()
}

// TestMalformedFrames: each of ten malformed header blocks is answered with a
// Parse error (addressed to the message's id where the frame shows it) and
// costs that frame only: the server resynchronises at the next header block
// and answers the call after it.
func TestMalformedFrames(t *testing.T) {
	rpctest.CheckLeaks(t)
	msg := func(id int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"sum","params":[%d,1,0]}`, id, id)
	}
	next := frame(`{"jsonrpc":"2.0","method":"sum","params":[40,2,0],"id":"next"}`)
	for _, tc := range []struct {
		name, in string
		id       string // the id the error is addressed to
		reason   string
	}{
		{"missing Content-Length", "Content-Type: application/json\r\n\r\n" + msg(1), "null", "missing Content-Length"},
		{"negative length", "Content-Length: -1\r\n\r\n" + msg(2), "null", "invalid Content-Length"},
		{"20-digit length", "Content-Length: 99999999999999999999\r\n\r\n" + msg(3), "null", "invalid Content-Length"},
		{"not a number", "Content-Length: twelve\r\n\r\n" + msg(4), "null", "invalid Content-Length"},
		{"header line over 64 KiB", "X-Padding: " + strings.Repeat("p", 70<<10) + "\r\n" + frame(msg(5)), "5", "longer than 64 KiB"},
		{"line without a colon", "Content-Length: " + fmt.Sprint(len(msg(6))) + "\r\nno colon\r\n\r\n" + msg(6), "6", "malformed header line"},
		{"conflicting lengths", "Content-Length: 10\r\nContent-Length: 20\r\n\r\n" + msg(7), "null", "conflicting Content-Length"},
		{"length too large", fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(msg(8))+20, msg(8)), "8", "does not match"},
		{"length too small", fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(msg(9))-20, msg(9)), "9", "does not match"},
		{"length over the size limit", "Content-Length: 2000000\r\n\r\n" + msg(10) + strings.Repeat(" ", 2000000-len(msg(10))), "null", "exceeds the size limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			replies, err := serveFrames(t, tc.in+next, nil)
			if err != nil {
				t.Errorf("the connection ended with %v", err)
			}
			if len(replies) != 2 {
				t.Fatalf("replies %q, want an error and the next call's answer", replies)
			}
			var e struct {
				ID    json.RawMessage `json:"id"`
				Error *runtime.Error  `json:"error"`
			}
			if json.Unmarshal([]byte(replies[0]), &e) != nil || e.Error == nil || string(e.ID) != tc.id ||
				e.Error.Code != runtime.CodeParseError && e.Error.Code != runtime.CodeInvalidRequest ||
				!strings.Contains(e.Error.Message+string(e.Error.Data), tc.reason) {
				t.Errorf("first reply %s, want an error for id %s naming %q", replies[0], tc.id, tc.reason)
			}
			if want := `{"jsonrpc":"2.0","id":"next","result":42}`; replies[1] != want {
				t.Errorf("the next call got %s, want %s", replies[1], want)
			}
		})
	}
}

// TestUnresynchronisableStream: a malformed frame followed by more than a
// message's worth of bytes with no header block in them, or by the end of
// the stream, cannot be resynchronised: the error is answered, then the
// connection ends, with the reason in Err and in the log.
func TestUnresynchronisableStream(t *testing.T) {
	rpctest.CheckLeaks(t)
	for _, tc := range []struct{ name, in, reason string }{
		{"no header block", "Content-Length: x\r\n\r\n" + strings.Repeat("garbage ", 140<<10) + frame(`{"jsonrpc":"2.0","method":"sum","params":[1],"id":1}`), "cannot be resynchronised"},
		{"end of stream", "Content-Length: x\r\n\r\n{\"jsonrpc\":", "unexpected EOF"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log bytes.Buffer
			replies, err := serveFrames(t, tc.in, slog.New(slog.NewTextHandler(&log, nil)))
			if len(replies) != 1 || !strings.Contains(replies[0], `"code":-32700`) {
				t.Errorf("replies %q, want one Parse error", replies)
			}
			if err == nil || !strings.Contains(err.Error(), tc.reason) {
				t.Errorf("Err() = %v, want one naming %q", err, tc.reason)
			}
			if !strings.Contains(log.String(), "cannot be read on") || !strings.Contains(log.String(), tc.reason) {
				t.Errorf("the log does not give the reason:\n%s", log.String())
			}
		})
	}
}
