package runtime

import (
	"bytes"
	"io"
	"sync"
)

// pipeEnd is one end of an in-memory message pipe.
type pipeEnd struct {
	in    <-chan []byte
	out   chan<- []byte
	state *pipeState
}

type pipeState struct {
	done chan struct{}
	once sync.Once
}

// pipeDepth lets a writer run a few messages ahead of its reader, as a socket buffer would.
const pipeDepth = 8

// Pipe returns two connected in-memory Framers: what one writes the other reads. Each
// message is copied, so neither side sees the other's buffers. Closing either end makes
// reads on both return io.EOF and writes fail with io.ErrClosedPipe.
func Pipe() (Framer, Framer) {
	ab := make(chan []byte, pipeDepth)
	ba := make(chan []byte, pipeDepth)
	s := &pipeState{done: make(chan struct{})}
	return &pipeEnd{in: ba, out: ab, state: s}, &pipeEnd{in: ab, out: ba, state: s}
}

// ReadMessage returns the next message. Like a socket, a closed pipe still
// delivers what was written before the close, then reports io.EOF.
func (p *pipeEnd) ReadMessage() ([]byte, error) {
	select {
	case msg := <-p.in:
		return msg, nil
	case <-p.state.done:
		select {
		case msg := <-p.in:
			return msg, nil
		default:
			return nil, io.EOF
		}
	}
}

func (p *pipeEnd) WriteMessage(msg []byte) error {
	select {
	case <-p.state.done:
		return io.ErrClosedPipe
	default:
	}
	select {
	case p.out <- bytes.Clone(msg):
		return nil
	case <-p.state.done:
		return io.ErrClosedPipe
	}
}

func (p *pipeEnd) Close() error {
	p.state.once.Do(func() { close(p.state.done) })
	return nil
}
