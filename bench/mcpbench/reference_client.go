package mcpbench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
)

// referencePeer is the hand-written minimal server and client (see
// reference_server.go).
var referencePeer = &Peer{
	Name:       "reference",
	connect:    refConnect,
	serveStdio: refServeStdio,
}

type refRequestOut struct {
	JSONRPC string `json:"jsonrpc"`
	ID      int64  `json:"id"`
	Method  string `json:"method"`
	Params  any    `json:"params,omitempty"`
}

type refCallParamsOut struct {
	Name      string   `json:"name"`
	Arguments any      `json:"arguments"`
	Meta      *refMeta `json:"_meta,omitempty"`
}

type refInitParams struct {
	ProtocolVersion string          `json:"protocolVersion"`
	Capabilities    json.RawMessage `json:"capabilities"`
	ClientInfo      refImpl         `json:"clientInfo"`
}

// refResponseIn is a tools/call response with its structured content of
// type T.
type refResponseIn[T any] struct {
	ID     int64 `json:"id"`
	Result struct {
		StructuredContent T      `json:"structuredContent"`
		IsError           bool   `json:"isError"`
		ResultType        string `json:"resultType"`
	} `json:"result"`
	Error *refError `json:"error"`
}

// refClient is the reference client; roundTrip carries one request to the
// server and returns its response.
type refClient struct {
	meta      *refMeta // 2026-07-28 only
	nextID    atomic.Int64
	roundTrip func(ctx context.Context, id int64, msg []byte) ([]byte, error)
	closers
}

func refCall[T any](ctx context.Context, c *refClient, name string, args any) (T, error) {
	id := c.nextID.Add(1)
	var zero T
	msg, err := json.Marshal(&refRequestOut{JSONRPC: "2.0", ID: id, Method: "tools/call",
		Params: &refCallParamsOut{Name: name, Arguments: args, Meta: c.meta}})
	if err != nil {
		return zero, err
	}
	raw, err := c.roundTrip(ctx, id, msg)
	if err != nil {
		return zero, err
	}
	var resp refResponseIn[T]
	if err := json.Unmarshal(raw, &resp); err != nil {
		return zero, err
	}
	switch {
	case resp.Error != nil:
		return zero, fmt.Errorf("error %d: %s", resp.Error.Code, resp.Error.Message)
	case resp.Result.IsError:
		return zero, errors.New("tool error")
	case c.meta != nil && resp.Result.ResultType != "complete":
		return zero, fmt.Errorf("resultType %q", resp.Result.ResultType)
	}
	return resp.Result.StructuredContent, nil
}

func (c *refClient) callRaw(ctx context.Context, tool string, args any) error {
	_, err := refCall[json.RawMessage](ctx, c, tool, args)
	return err
}

func (c *refClient) Add(ctx context.Context, a, b int) (int, error) {
	s, err := refCall[refSum](ctx, c, "add", &AddArgs{A: a, B: b})
	return s.Sum, err
}

func (c *refClient) Echo(ctx context.Context, text string) (string, error) {
	e, err := refCall[refEchoed](ctx, c, "echo", &EchoArgs{Text: text})
	return e.Text, err
}

// handshake sends initialize and notifications/initialized in the legacy
// era; the modern era has none.
func (c *refClient) handshake(ctx context.Context, era string, send func([]byte) error) error {
	if era == EraModern {
		caps := json.RawMessage(`{}`)
		c.meta = &refMeta{ProtocolVersion: Versions[EraModern], ClientCapabilities: &caps, ClientInfo: &refImpl{"bench-client", "1.0.0"}}
		return nil
	}
	id := c.nextID.Add(1)
	msg, _ := json.Marshal(&refRequestOut{JSONRPC: "2.0", ID: id, Method: "initialize",
		Params: &refInitParams{ProtocolVersion: Versions[EraLegacy], Capabilities: json.RawMessage(`{}`), ClientInfo: refImpl{"bench-client", "1.0.0"}}})
	raw, err := c.roundTrip(ctx, id, msg)
	if err != nil {
		return err
	}
	var resp struct {
		Result refInitResult `json:"result"`
		Error  *refError     `json:"error"`
	}
	if err := json.Unmarshal(raw, &resp); err != nil {
		return err
	}
	if resp.Error != nil || resp.Result.ProtocolVersion != Versions[EraLegacy] {
		return fmt.Errorf("initialize: %s", raw)
	}
	return send([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
}

func refConnect(ctx context.Context, transport, era string) (Caller, error) {
	c := &refClient{}
	switch transport {
	case InProcess:
		s := &refServer{}
		c.roundTrip = func(_ context.Context, _ int64, msg []byte) ([]byte, error) { return s.handle(msg), nil }
		return c, c.handshake(ctx, era, func(msg []byte) error { s.handle(msg); return nil })
	case Pipes:
		p, wait, err := servedPipes(refServe)
		if err != nil {
			return nil, err
		}
		st := newRefStream(p.ClientR, p.ClientW)
		c.roundTrip, c.closers = st.roundTrip, closers{st.close, wait}
		if err := c.handshake(ctx, era, st.send); err != nil {
			c.Close()
			return nil, err
		}
		return c, nil
	case Stdio:
		cmd, err := ServerCommand("reference")
		if err != nil {
			return nil, err
		}
		in, err := cmd.StdinPipe()
		if err != nil {
			return nil, err
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			return nil, err
		}
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		st := newRefStream(out, in)
		c.roundTrip, c.closers = st.roundTrip, closers{st.close, cmd.Wait}
		if err := c.handshake(ctx, era, st.send); err != nil {
			c.Close()
			return nil, err
		}
		return c, nil
	}
	return nil, fmt.Errorf("reference: no transport %q", transport)
}

// refStream is the reference client's side of a stream: one writer lock,
// one reader goroutine that routes each response to its caller by id.
type refStream struct {
	w       io.WriteCloser
	writeMu sync.Mutex

	mu      sync.Mutex
	pending map[int64]chan []byte
	err     error // set when the reader stops
	done    chan struct{}
}

func newRefStream(r io.Reader, w io.WriteCloser) *refStream {
	s := &refStream{w: w, pending: map[int64]chan []byte{}, done: make(chan struct{})}
	go s.read(bufio.NewReaderSize(r, 64<<10))
	return s
}

func (s *refStream) send(msg []byte) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	_, err := s.w.Write(append(msg, '\n'))
	return err
}

func (s *refStream) roundTrip(ctx context.Context, id int64, msg []byte) ([]byte, error) {
	ch := make(chan []byte, 1)
	s.mu.Lock()
	if s.err != nil {
		s.mu.Unlock()
		return nil, s.err
	}
	s.pending[id] = ch
	s.mu.Unlock()
	if err := s.send(msg); err != nil {
		return nil, err
	}
	select {
	case raw := <-ch:
		return raw, nil
	case <-s.done:
		return nil, s.err
	case <-ctx.Done():
		s.mu.Lock()
		delete(s.pending, id)
		s.mu.Unlock()
		return nil, ctx.Err()
	}
}

func (s *refStream) read(br *bufio.Reader) {
	var err error
	for {
		var line []byte
		if line, err = br.ReadBytes('\n'); err != nil {
			break
		}
		var env struct {
			ID int64 `json:"id"`
		}
		if json.Unmarshal(line, &env) != nil {
			continue
		}
		s.mu.Lock()
		ch := s.pending[env.ID]
		delete(s.pending, env.ID)
		s.mu.Unlock()
		if ch != nil {
			ch <- line
		}
	}
	s.mu.Lock()
	s.err = fmt.Errorf("reference: connection closed: %w", err)
	s.mu.Unlock()
	close(s.done)
}

func (s *refStream) close() error { return s.w.Close() }
