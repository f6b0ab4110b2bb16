package rpcnet

import (
	"context"
	"errors"
	"io"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCloseDeliversWhatWasWritten closes a socket whose peer has sent what
// was not read (a request sent as the connection ended) and has not yet
// read the answer written before the close: the peer still reads the answer
// and then the end of the stream. Closing at once reset the connection, and
// the peer's system discarded the answer.
func TestCloseDeliversWhatWasWritten(t *testing.T) {
	for _, network := range []string{"tcp", "unix"} {
		t.Run(network, func(t *testing.T) {
			addr := "127.0.0.1:0"
			if network == "unix" {
				addr = filepath.Join(t.TempDir(), "c.sock")
			}
			ln, err := net.Listen(network, addr)
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			peer, err := net.Dial(network, ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer peer.Close()
			nc, err := ln.Accept()
			if err != nil {
				t.Fatal(err)
			}
			s := newSocket(nc, 0, 0, 0)
			if _, err := peer.Write([]byte(`{"jsonrpc":"2.0","id":2,"method":"late"}` + "\n")); err != nil {
				t.Fatal(err)
			}
			answer := `{"jsonrpc":"2.0","id":1,"result":"the answer"}` + "\n"
			if _, err := s.Write([]byte(answer)); err != nil {
				t.Fatal(err)
			}
			// The request has reached the socket's receive buffer by the time
			// the peer reads it back from us: wait for it without reading it.
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(peer)
			if err != nil || string(got) != answer {
				t.Fatalf("the peer read %q, %v; want the answer, then the end of the stream", got, err)
			}
		})
	}
}

// TestClientClosesAtServersEnd has a server end its side of a connection
// Dialer made: the client's socket closes at that end of stream, so the
// server, which reads on after shutting its sending side until the client
// closes (see socket.Close), is not kept waiting for lingerTimeout. Before,
// the client's socket stayed open until the client's next call or Close.
func TestClientClosesAtServersEnd(t *testing.T) {
	for _, network := range []string{"tcp", "unix"} {
		t.Run(network, func(t *testing.T) {
			addr := "127.0.0.1:0"
			if network == "unix" {
				addr = filepath.Join(t.TempDir(), "c.sock")
			}
			ln, err := net.Listen(network, addr)
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			c, err := Dialer(network, ln.Addr().String(), nil)(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			nc, err := ln.Accept()
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			if err := nc.(interface{ CloseWrite() error }).CloseWrite(); err != nil {
				t.Fatal(err)
			}
			<-c.Done()
			// The bound only keeps a failing run from hanging.
			nc.SetReadDeadline(time.Now().Add(time.Minute))
			if n, err := nc.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
				t.Fatalf("the server read %d bytes, %v; want the client's end of stream", n, err)
			}
			if err := c.Close(); err != nil {
				t.Errorf("Close after the server's end: %v", err)
			}
		})
	}
}

// TestIdleTimeoutLeavesNothingToLingerFor: a socket whose idle timeout ends
// its reading (a peer gone without closing) closes at once on Close, as
// after any other failed read, instead of waiting lingerTimeout for a peer
// that will not answer.
func TestIdleTimeoutLeavesNothingToLingerFor(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	peer, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Close()
	nc, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	s := newSocket(nc, 0, 10*time.Millisecond, 0)
	defer s.Close()
	if _, err := s.Read(make([]byte, 64)); err == nil || !strings.Contains(err.Error(), "nothing read for") {
		t.Fatalf("Read: %v; want the idle timeout", err)
	}
	select {
	case <-s.readEnded:
	default:
		t.Fatal("the idle timeout ended reading but Close would still linger for the peer")
	}
}
