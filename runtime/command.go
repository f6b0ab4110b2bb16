package runtime

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"
)

// commandGrace is how long Close lets a subprocess exit on its own after its stdin is
// closed before killing it.
const commandGrace = 5 * time.Second

// DialCommand starts cmd as a subprocess and returns a Conn over its stdin and stdout
// with opts.Framing. cmd.Stderr defaults to os.Stderr. Closing the Conn closes the
// child's stdin, waits for it to exit (killing it after a grace period) and reports a
// non-zero exit as an error. ctx bounds only the start.
func DialCommand(ctx context.Context, cmd *exec.Cmd, opts Options) (*Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if cmd.Stderr == nil {
		cmd.Stderr = os.Stderr
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("dial command: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("dial command: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("dial command %s: %w", cmd.Path, err)
	}
	// The reader is not closed by the framer: the child closing its stdout (by exiting)
	// is what ends the reader, so its last responses are still read.
	f := NewFramer(opts.Framing, io.Reader(readerOnly{stdout}), stdin, opts.MaxMessageSize)
	c := newConn(f, opts)
	c.afterClose = func() error { return waitCommand(cmd) }
	c.start()
	return c, nil
}

// readerOnly hides a reader's Close method.
type readerOnly struct{ r io.Reader }

func (r readerOnly) Read(p []byte) (int, error) { return r.r.Read(p) }

// waitCommand waits for cmd to exit after its stdin was closed, killing it if it
// outstays the grace period.
func waitCommand(cmd *exec.Cmd) error {
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var err error
	select {
	case err = <-exited:
	case <-time.After(commandGrace):
		cmd.Process.Kill()
		err = <-exited
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return fmt.Errorf("jsonrpc: command %s: %w", cmd.Path, err)
	}
	if err != nil {
		return fmt.Errorf("jsonrpc: wait for command %s: %w", cmd.Path, err)
	}
	return nil
}
