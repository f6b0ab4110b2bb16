package jsonrpcspec

import (
	"errors"
	"net"
	"path/filepath"
	"testing"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/rpcnet"
)

// serveNet serves the generated dispatcher on a fresh listener of network
// ("tcp" or "unix") with framing, and returns a function that dials it raw.
func serveNet(t *testing.T, network string, framing runtime.Framing) func(t *testing.T) runtime.Framer {
	t.Helper()
	addr := "127.0.0.1:0"
	if network == "unix" {
		addr = filepath.Join(t.TempDir(), "spec.sock")
	}
	ln, err := rpcnet.Listen(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	srv := &rpcnet.Server{Options: runtime.Options{Handler: NewSpecHandler(&Impl{}), Framing: framing}}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	t.Cleanup(func() {
		srv.Close()
		if err := <-served; !errors.Is(err, rpcnet.ErrServerClosed) {
			t.Errorf("Serve returned %v, want ErrServerClosed", err)
		}
	})
	return func(t *testing.T) runtime.Framer {
		nc, err := net.Dial(network, ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		return runtime.NewFramer(framing, nc, nc, 0)
	}
}

var netTransports = []struct {
	network string
	framing runtime.Framing
}{
	{"tcp", runtime.NewlineDelimited},
	{"tcp", runtime.ContentLength},
	{"unix", runtime.NewlineDelimited},
	{"unix", runtime.ContentLength},
}

// TestSpecExamplesNet runs the specification's examples over TCP and Unix
// sockets served by rpcnet.Server, in both framings.
func TestSpecExamplesNet(t *testing.T) {
	for _, tr := range netTransports {
		t.Run(tr.network+"/"+tr.framing.String(), func(t *testing.T) {
			JudgeExamples(t, serveNet(t, tr.network, tr.framing))
		})
	}
}

// TestBadInputKeepsServingNet writes every bad message on one socket
// connection: each gets its error and the connection goes on serving.
func TestBadInputKeepsServingNet(t *testing.T) {
	for _, tr := range netTransports {
		t.Run(tr.network+"/"+tr.framing.String(), func(t *testing.T) {
			f := serveNet(t, tr.network, tr.framing)(t)
			defer f.Close()
			JudgeBadInput(t, f)
		})
	}
}
