package rpcnet

import (
	"io"
	"net"
	"path/filepath"
	"testing"
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
