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
	child, err := StartCommand(cmd, opts.Framing, opts.MaxMessageSize)
	if err != nil {
		return nil, fmt.Errorf("jsonrpc: %w", err)
	}
	if opts.Transport == "" {
		opts.Transport = TransportPipe
	}
	c := newConn(child, opts)
	c.afterClose = func() error {
		if err := child.Wait(c.done); err != nil {
			return fmt.Errorf("jsonrpc: %w", err)
		}
		return nil
	}
	c.start()
	return c, nil
}

// Command is a subprocess started by StartCommand, spoken to over its stdin and
// stdout. Its Framer's Close closes only the child's stdin: the child exiting, which
// closes its stdout, is what ends a reader, so its last messages are still read.
type Command struct {
	Framer
	cmd *exec.Cmd
}

// StartCommand starts cmd with a Framer over its stdin and stdout, for protocols that
// read the child's messages themselves (DialCommand wraps it in a Conn).
// cmd.Stderr defaults to os.Stderr, so the child's logs pass through.
func StartCommand(cmd *exec.Cmd, framing Framing, maxSize int) (*Command, error) {
	if cmd.Stderr == nil {
		cmd.Stderr = os.Stderr
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("start command: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("start command: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start command %s: %w", cmd.Path, err)
	}
	return &Command{Framer: NewFramer(framing, io.Reader(readerOnly{stdout}), stdin, maxSize), cmd: cmd}, nil
}

// readerOnly hides a reader's Close method.
type readerOnly struct{ r io.Reader }

func (r readerOnly) Read(p []byte) (int, error) { return r.r.Read(p) }

// Wait waits for the child to exit once its stdin is closed, killing it if it
// outstays a grace period, and reports a non-zero exit as an error. readerDone, when
// not nil, is closed by the caller's reader once it has read the child's stdout to
// the end; Wait lets that happen first (exec.Cmd.Wait closes the pipe).
func (c *Command) Wait(readerDone <-chan struct{}) error {
	timer := time.NewTimer(commandGrace)
	defer timer.Stop()
	if readerDone != nil {
		select {
		case <-readerDone:
		case <-timer.C:
			c.cmd.Process.Kill()
			<-readerDone
		}
	}
	exited := make(chan error, 1)
	go func() { exited <- c.cmd.Wait() }()
	var err error
	select {
	case err = <-exited:
	case <-timer.C:
		c.cmd.Process.Kill()
		err = <-exited
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return fmt.Errorf("command %s: %w", c.cmd.Path, err)
	}
	if err != nil {
		return fmt.Errorf("wait for command %s: %w", c.cmd.Path, err)
	}
	return nil
}
