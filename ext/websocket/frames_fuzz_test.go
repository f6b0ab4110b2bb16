package websocket_test

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	wsrpc "github.com/rpcgen/rpcgen/ext/websocket"
	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime"
)

// FuzzFrames sends any bytes on a fresh WebSocket connection once the
// handshake is done (frames of any opcode, length, mask and flags,
// fragmented or not, control frames among them, or garbage), then a valid
// call, and closes its sending side. Every frame the server sends must be
// well formed: a text frame holding a JSON-RPC 2.0 response, a ping, or a
// close frame. The server must end the connection within seconds of the
// client's end of stream, whatever came before, and serve the next client.
func FuzzFrames(f *testing.F) {
	call := maskedTextFrame([]byte(`{"jsonrpc":"2.0","method":"sum","params":[1,2,3],"id":1}`))
	frag := []byte(`{"jsonrpc":"2.0","method":"sum","params":[3,4,5],"id":2}`)
	for _, seed := range [][]byte{
		call,
		// A message in two fragments with a ping between them.
		append(append(append([]byte{0x01, 0x80 | 10, 0, 0, 0, 0}, frag[:10]...),
			0x89, 0x80|2, 0, 0, 0, 0, 'h', 'i'),
			append([]byte{0x80, 0x80 | byte(len(frag)-10), 0, 0, 0, 0}, frag[10:]...)...),
		{0x82, 0x80 | 3, 0, 0, 0, 0, 1, 2, 3},                              // binary
		{0x88, 0x80 | 2, 0, 0, 0, 0, 0x03, 0xe8},                           // close, 1000
		{0x81, 3, '[', '1', ']'},                                           // not masked
		{0xc1, 0x80 | 2, 0, 0, 0, 0, '[', ']'},                             // a reserved bit
		{0x83, 0x80, 0, 0, 0, 0},                                           // a reserved opcode
		{0x81, 0x80 | 127, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, // a length no one sends
		{0x80, 0x80 | 1, 0, 0, 0, 0, 'x'},                                  // a continuation of nothing
		{0x09, 0x80 | 1, 0, 0, 0, 0, 'x'},                                  // a fragmented ping
		maskedTextFrame([]byte("\xff\xfe")),
		maskedTextFrame([]byte(strings.Repeat("[", 300) + strings.Repeat("]", 300))),
		[]byte("GET / HTTP/1.1\r\n\r\n"),
	} {
		f.Add(seed)
	}
	h := wsrpc.NewHandler(specHandler, &wsrpc.Options{PingInterval: -1, Options: runtime.Options{MaxMessageSize: fuzzLimit}})
	srv := httptest.NewServer(h)
	f.Cleanup(func() { h.Close(); srv.Close() })
	addr := srv.Listener.Addr().String()
	url := "ws://" + addr

	f.Fuzz(func(t *testing.T, data []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
		defer cancel()
		nc, err := handshake(ctx, addr)
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		// The server may close before reading all of it: a failed write is
		// no failure.
		go func() {
			nc.Write(append(append([]byte{}, data...), call...))
			nc.(*bufferedConn).CloseWrite()
		}()
		nc.SetReadDeadline(time.Now().Add(30 * time.Second))
		if err := readServerFrames(nc); err != nil {
			t.Fatal(err)
		}
		// The next client is served.
		ws, _, err := websocket.Dial(ctx, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ws.CloseNow()
		if err := ws.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","method":"sum","params":[40,1,1],"id":"next"}`)); err != nil {
			t.Fatal(err)
		}
		if _, msg, err := ws.Read(ctx); err != nil || !rpctest.SameJSON(t, string(msg), `{"jsonrpc":"2.0","id":"next","result":42}`) {
			t.Fatalf("the next client got %s, %v", msg, err)
		}
	})
}

// readServerFrames reads what a server sends until it ends the connection,
// and checks each frame: unmasked, no reserved bits, a text frame holding a
// JSON-RPC response, a ping, a pong or a close frame (which ends the
// reading: the server closes the connection after it).
func readServerFrames(r io.Reader) error {
	br := bufio.NewReader(r)
	for {
		var head [2]byte
		if _, err := io.ReadFull(br, head[:]); err != nil {
			return ended(err)
		}
		if head[0]&0x70 != 0 || head[1]&0x80 != 0 {
			return fmt.Errorf("a server frame with reserved bits or a mask: % x", head)
		}
		n := uint64(head[1] & 0x7f)
		switch n {
		case 126:
			var b [2]byte
			if _, err := io.ReadFull(br, b[:]); err != nil {
				return fmt.Errorf("a frame's length: %w", err)
			}
			n = uint64(binary.BigEndian.Uint16(b[:]))
		case 127:
			var b [8]byte
			if _, err := io.ReadFull(br, b[:]); err != nil {
				return fmt.Errorf("a frame's length: %w", err)
			}
			n = binary.BigEndian.Uint64(b[:])
		}
		if n > 1<<20 {
			return fmt.Errorf("a server frame of %d bytes", n)
		}
		payload := make([]byte, n)
		if _, err := io.ReadFull(br, payload); err != nil {
			return fmt.Errorf("a frame's payload: %w", err)
		}
		switch op := head[0] & 0x0f; {
		case op == 0x1 && head[0]&0x80 != 0:
			if err := rpctest.CheckReply(payload); err != nil {
				return err
			}
		case op == 0x9 || op == 0xa:
		case op == 0x8:
			_, err := io.Copy(io.Discard, br)
			return ended(err)
		default:
			return fmt.Errorf("a server frame of opcode %#x (fin %v)", op, head[0]&0x80 != 0)
		}
	}
}

// ended accepts the ends of a connection and reports a read that timed out.
func ended(err error) error {
	var ne net.Error
	switch {
	case err == nil, errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return nil
	case errors.As(err, &ne) && ne.Timeout():
		return fmt.Errorf("the server did not end the connection within 30 s of the client's end of stream: %w", err)
	}
	return nil // a reset: the server closed with bytes unread
}
