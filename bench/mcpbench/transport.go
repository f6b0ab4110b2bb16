package mcpbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
)

// ServeEnv is the environment variable that turns the benchmark binary into
// a stdio server: its value names the peer to serve (see ServeStdio).
const ServeEnv = "MCPBENCH_SERVE"

// ServerCommand returns the command that starts peer's stdio server: this
// very binary, re-executed with ServeEnv set, so every peer's server is built
// by the same compiler with the same flags as its client.
func ServerCommand(peer string) (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), ServeEnv+"="+peer)
	cmd.Stderr = os.Stderr
	return cmd, nil
}

// ServeStdio serves the peer named by ServeEnv on stdin and stdout until
// stdin ends. It reports whether the variable was set, for TestMain.
func ServeStdio() (bool, error) {
	name := os.Getenv(ServeEnv)
	if name == "" {
		return false, nil
	}
	p, ok := peerByName[name]
	if !ok {
		return true, fmt.Errorf("%s=%q names no peer", ServeEnv, name)
	}
	return true, p.serveStdio(context.Background())
}

// pipePair is two os.Pipe pairs: the client writes to ToServer and reads
// FromServer; the server the other way round.
type pipePair struct {
	ClientR, ServerW *os.File // server → client
	ServerR, ClientW *os.File // client → server
}

func newPipePair() (*pipePair, error) {
	cr, sw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	sr, cw, err := os.Pipe()
	if err != nil {
		cr.Close()
		sw.Close()
		return nil, err
	}
	return &pipePair{ClientR: cr, ServerW: sw, ServerR: sr, ClientW: cw}, nil
}

// closeAll closes every end; closing an already closed file is harmless here.
func (p *pipePair) closeAll() {
	for _, f := range []*os.File{p.ClientR, p.ClientW, p.ServerR, p.ServerW} {
		f.Close()
	}
}

// servedPipes runs serve on the server ends of a new pipe pair and returns
// the pair and a function that, after the client has closed its ends, waits
// for serve to return and closes the rest.
func servedPipes(serve func(r io.Reader, w io.Writer) error) (*pipePair, func() error, error) {
	p, err := newPipePair()
	if err != nil {
		return nil, nil, err
	}
	done := make(chan error, 1)
	go func() {
		err := serve(p.ServerR, p.ServerW)
		p.ServerW.Close()
		done <- err
	}()
	var once sync.Once
	var result error
	wait := func() error {
		once.Do(func() {
			p.ClientW.Close() // EOF for the server
			select {
			case err := <-done:
				if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrClosed) && !errors.Is(err, context.Canceled) {
					result = fmt.Errorf("server: %w", err)
				}
			case <-time.After(5 * time.Second):
				result = errors.New("server did not stop within 5s of EOF")
			}
			p.closeAll()
		})
		return result
	}
	return p, wait, nil
}

// closers runs fns in order on Close and returns the first error.
type closers []func() error

func (cs closers) Close() error {
	var first error
	for _, f := range cs {
		if err := f(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
