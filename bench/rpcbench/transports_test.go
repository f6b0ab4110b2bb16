package rpcbench

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"testing"
	"time"
)

// serveEnv names the implementation a re-executed test binary serves on its stdio.
const serveEnv = "RPCBENCH_SERVE"

// transport connects a client of an implementation to its server over one kind of
// channel. connect returns nil when the implementation has no such mode.
type transport struct {
	name    string
	connect func(tb testing.TB, im impl) adder
	// pingpong returns the raw floor on this transport for c concurrent callers.
	pingpong func(tb testing.TB, c int) op
}

var transports = []transport{
	{name: "memory", connect: connectMemory, pingpong: pingpongMemory},
	{name: "ospipe", connect: connectOSPipes, pingpong: pingpongOSPipes},
	{name: "stdio", connect: connectStdio, pingpong: pingpongStdio},
	{name: "http", connect: connectHTTP, pingpong: pingpongHTTP},
}

func connectMemory(tb testing.TB, im impl) adder {
	if im.memory == nil {
		return nil
	}
	return im.memory(tb)
}

// osPipes returns the client and server sides of a duplex stream made of two os.Pipe
// pairs; closing a side closes both of its files.
func osPipes(tb testing.TB) (client, server stream) {
	c2sR, c2sW, err := os.Pipe()
	if err != nil {
		tb.Fatal(err)
	}
	s2cR, s2cW, err := os.Pipe()
	if err != nil {
		tb.Fatal(err)
	}
	client = stream{Reader: s2cR, WriteCloser: c2sW, closers: []io.Closer{c2sW, s2cR}}
	server = stream{Reader: c2sR, WriteCloser: s2cW, closers: []io.Closer{s2cW, c2sR}}
	tb.Cleanup(func() { client.Close(); server.Close() })
	return client, server
}

func connectOSPipes(tb testing.TB, im impl) adder {
	if im.serve == nil || im.dial == nil {
		return nil
	}
	client, server := osPipes(tb)
	go background(im.name+" server", func() error { return im.serve(server.Reader, server) })
	return im.dial(tb, client)
}

// serverCommand is the test binary itself, re-executed to serve name on its stdio
// (TestMain sees serveEnv and serves instead of running tests).
func serverCommand(tb testing.TB, name string) *exec.Cmd {
	exe, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), serveEnv+"="+name)
	cmd.Stderr = os.Stderr
	return cmd
}

// startChild starts cmd and returns a stream over its stdin and stdout. Closing the
// stream closes the child's stdin; the cleanup then waits for the child to exit.
func startChild(tb testing.TB, cmd *exec.Cmd) stream {
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		stdin.Close()
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		select {
		case err := <-exited:
			if err != nil {
				tb.Errorf("server subprocess: %v", err)
			}
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			tb.Errorf("server subprocess did not exit after its stdin closed")
		}
	})
	return stream{Reader: stdout, WriteCloser: stdin, closers: []io.Closer{stdin}}
}

func connectStdio(tb testing.TB, im impl) adder {
	cmd := serverCommand(tb, im.name)
	if im.command != nil {
		return im.command(tb, cmd)
	}
	if im.dial == nil {
		return nil
	}
	return im.dial(tb, startChild(tb, cmd))
}

func connectHTTP(tb testing.TB, im impl) adder {
	if im.http == nil {
		return nil
	}
	return im.http(tb)
}

// httpClient returns a client with its own transport for srv, keeping enough idle
// connections for every caller (net/http keeps 2 per host by default, which would make
// the c=16 rows measure connection setup). It closes srv and the connections at cleanup.
func httpClient(tb testing.TB, srv *httptest.Server) *http.Client {
	tr := &http.Transport{MaxIdleConns: 64, MaxIdleConnsPerHost: 64, IdleConnTimeout: time.Minute}
	tb.Cleanup(func() { srv.Close(); tr.CloseIdleConnections() })
	return &http.Client{Transport: tr}
}
