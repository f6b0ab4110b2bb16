package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"sync"
	"time"
)

// maxBuffered bounds the server messages kept for a standalone stream that
// is not open yet; more are dropped (and logged).
const maxBuffered = 1024

// session is one MCP session: a server process and the streams its
// messages go to.
type session struct {
	id     string
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	logger *slog.Logger
	exited chan struct{}

	wmu sync.Mutex // serialises writes to stdin

	mu       sync.Mutex
	pending  []*pending    // requests awaiting their response, oldest first
	get      chan []byte   // the open standalone stream, or nil
	getGone  chan struct{} // closed when that stream ends
	buffered [][]byte      // standalone messages waiting for a GET
	closed   bool
}

// pending is a request whose event stream is open.
type pending struct {
	id, token string
	out       chan []byte
	gone      chan struct{}
}

func startSession(id string, argv []string, logger *slog.Logger) (*session, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %v", argv[0], err)
	}
	s := &session{id: id, cmd: cmd, stdin: stdin, logger: logger.With("session", id), exited: make(chan struct{})}
	go s.read(stdout)
	return s, nil
}

// send writes one message to the server's stdin.
func (s *session) send(msg []byte) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if _, err := s.stdin.Write(append(compact(msg), '\n')); err != nil {
		return fmt.Errorf("write to the server: %v", err)
	}
	return nil
}

// call registers the request id (whose progress token is token) and sends
// it; the server's messages for it arrive on the returned channel.
func (s *session) call(id, token string, msg []byte) (<-chan []byte, error) {
	p := &pending{id: string(compact([]byte(id))), token: token, out: make(chan []byte, 256), gone: make(chan struct{})}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, errors.New("the server has exited")
	}
	s.pending = append(s.pending, p)
	s.mu.Unlock()
	if err := s.send(msg); err != nil {
		s.done(id)
		return nil, err
	}
	return p.out, nil
}

// done forgets the request id once its stream has ended.
func (s *session) done(id string) {
	id = string(compact([]byte(id)))
	s.mu.Lock()
	defer s.mu.Unlock()
	if i := slices.IndexFunc(s.pending, func(p *pending) bool { return p.id == id }); i >= 0 {
		close(s.pending[i].gone)
		s.pending = slices.Delete(s.pending, i, i+1)
	}
}

// standalone serves the GET stream: the messages that belong to no request.
func (s *session) standalone(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	if s.get != nil {
		s.mu.Unlock()
		httpError(w, http.StatusConflict, "the standalone stream is already open")
		return
	}
	out, gone := make(chan []byte, maxBuffered), make(chan struct{})
	for _, msg := range s.buffered {
		out <- msg
	}
	s.buffered = nil
	s.get, s.getGone = out, gone
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.get, s.getGone = nil, nil
		close(gone)
		s.mu.Unlock()
	}()
	stream(w, r, out, false)
}

// read routes the server's messages until its stdout ends.
func (s *session) read(stdout io.Reader) {
	defer close(s.exited)
	br := bufio.NewReaderSize(stdout, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 1 {
			s.route(compact(line))
		}
		if err != nil {
			break
		}
	}
	s.mu.Lock()
	s.closed = true
	for _, p := range s.pending {
		close(p.out)
	}
	s.pending = nil
	s.mu.Unlock()
}

// route sends one message from the server to the stream it belongs to.
func (s *session) route(msg []byte) {
	var m message
	if err := json.Unmarshal(msg, &m); err != nil {
		s.logger.Warn("bridge: the server wrote something that is not JSON", "line", string(msg))
		return
	}
	s.mu.Lock()
	var to *pending
	switch {
	case m.Method == "": // a response
		id := string(compact(m.ID))
		if i := slices.IndexFunc(s.pending, func(p *pending) bool { return p.id == id }); i >= 0 {
			to = s.pending[i]
		}
	case m.Method == "notifications/progress" && len(m.Params.ProgressToken) > 0:
		token := string(compact(m.Params.ProgressToken))
		if i := slices.IndexFunc(s.pending, func(p *pending) bool { return p.token == token }); i >= 0 {
			to = s.pending[i]
		}
	case len(s.pending) > 0:
		to = s.pending[len(s.pending)-1]
	}
	if to != nil {
		s.mu.Unlock()
		select {
		case to.out <- msg:
		case <-to.gone:
		}
		return
	}
	if m.Method == "" {
		s.mu.Unlock()
		s.logger.Warn("bridge: a response to no pending request", "msg", string(msg))
		return
	}
	get, gone := s.get, s.getGone
	if get == nil {
		if len(s.buffered) < maxBuffered {
			s.buffered = append(s.buffered, msg)
		} else {
			s.logger.Warn("bridge: standalone buffer full; message dropped", "msg", string(msg))
		}
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	select {
	case get <- msg:
	case <-gone:
	}
}

// close ends the session: it closes the server's stdin, which a stdio
// server takes as the end, and kills it if it has not exited after a
// second.
func (s *session) close() {
	s.wmu.Lock()
	s.stdin.Close()
	s.wmu.Unlock()
	select {
	case <-s.exited:
	case <-time.After(time.Second):
		s.cmd.Process.Kill()
		<-s.exited
	}
	if err := s.cmd.Wait(); err != nil {
		s.logger.Warn("bridge: server process", "err", err)
	}
}

// compact returns msg without insignificant space (msg itself when it is
// not valid JSON).
func compact(msg []byte) []byte {
	var b bytes.Buffer
	if err := json.Compact(&b, msg); err != nil {
		return msg
	}
	return b.Bytes()
}
