package interop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestGoSDK drives the server with the official Go SDK client, over its
// CommandTransport: in its default mode, which probes server/discover and
// speaks the stateless 2026-07-28 revision, and in legacy mode, pinned to the
// 2025-11-25 initialize handshake.
func TestGoSDK(t *testing.T) {
	for _, c := range []struct {
		mode, pin, want string
	}{
		{"default", "", "2026-07-28"},
		{"legacy", "2025-11-25", "2025-11-25"},
	} {
		t.Run(c.mode, func(t *testing.T) {
			s := connectGoSDK(t, c.pin)
			runSuite(t, s, c.want)
		})
	}
}

type goSDKSession struct {
	cs  *mcp.ClientSession
	rec *recordingTransport
	// Over HTTP: the wire the client reads (instead of rec's log), and the
	// server process.
	wire *httpWire
	srv  *httpServer
}

func connectGoSDK(t *testing.T, pin string) *goSDKSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	rec := &recordingTransport{inner: &mcp.CommandTransport{Command: serverCommand(t), TerminateDuration: 2 * time.Second}}
	client := mcp.NewClient(&mcp.Implementation{Name: "interop-go-sdk", Version: "1"}, nil)
	cs, err := client.Connect(ctx, rec, &mcp.ClientSessionOptions{ProtocolVersion: pin})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return &goSDKSession{cs: cs, rec: rec}
}

func (s *goSDKSession) ProtocolVersion() string { return s.cs.InitializeResult().ProtocolVersion }

func (s *goSDKSession) ListTools(t *testing.T) ([]wireTool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var tools []wireTool
	for tool, err := range s.cs.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		var w wireTool
		if err := remarshal(tool, &w); err != nil {
			return nil, err
		}
		tools = append(tools, w)
	}
	return tools, nil
}

func (s *goSDKSession) CallTool(t *testing.T, name string, args, token any) (*wireResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return s.call(ctx, name, args, token)
}

func (s *goSDKSession) call(ctx context.Context, name string, args, token any) (*wireResult, error) {
	params := &mcp.CallToolParams{Name: name, Arguments: args}
	if token != nil {
		params.SetProgressToken(token)
	}
	res, err := s.cs.CallTool(ctx, params)
	if err != nil {
		return nil, err
	}
	var w wireResult
	if err := remarshal(res, &w); err != nil {
		return nil, err
	}
	return &w, nil
}

func (s *goSDKSession) Wire(token any) []wireEvent {
	if s.wire != nil {
		return s.wire.log.get(token)
	}
	return s.rec.log.get(token)
}

// cancelledAt reports when the client gave up on the call made with token:
// over stdio when it wrote notifications/cancelled; over HTTP that, or when
// it closed the call's response stream, whichever came first.
func (s *goSDKSession) cancelledAt(token any) (time.Time, bool) {
	if s.wire != nil {
		return s.wire.cancelledAt(token)
	}
	return s.rec.cancelledAt(token)
}

func (s *goSDKSession) ErrorCode(err error) (int, bool) {
	var werr *jsonrpc.Error
	if errors.As(err, &werr) {
		return int(werr.Code), true
	}
	return 0, false
}

func (s *goSDKSession) CallToolCancelled(t *testing.T, name string, args, token any) (time.Time, time.Time, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := time.Now()
	done := make(chan error, 1)
	go func() {
		_, err := s.call(ctx, name, args, token)
		done <- err
	}()
	var log *wireLog
	if s.wire != nil {
		log = &s.wire.log
	} else {
		log = &s.rec.log
	}
	if !log.waitFor(10*time.Second, func() bool { return len(s.Wire(token)) > 0 }) {
		t.Fatalf("no progress from %s within 10s", name)
	}
	cancel()
	err := <-done
	var at time.Time
	if log.waitFor(10*time.Second, func() (ok bool) { at, ok = s.cancelledAt(token); return ok }) {
		return started, at, err
	}
	t.Fatalf("the Go SDK neither wrote notifications/cancelled for the call nor closed its stream")
	return started, time.Time{}, err
}

// recordingTransport wraps the SDK's CommandTransport and notes, in the order
// they are read off the server's stdout, the progress notifications and
// responses of calls that carry a progress token, and when a
// notifications/cancelled for such a call was written.
type recordingTransport struct {
	inner mcp.Transport
	log   wireLog
	tally msgTally // every message the client read
	wrote msgTally // every message the client wrote

	mu        sync.Mutex
	tokenOfID map[string]any
	cancelled map[string]time.Time
}

func (r *recordingTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := r.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &recordingConn{Connection: c, r: r}, nil
}

func (r *recordingTransport) cancelledAt(token any) (time.Time, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	at, ok := r.cancelled[tokenKey(token)]
	return at, ok
}

type recordingConn struct {
	mcp.Connection
	r *recordingTransport
}

func (c *recordingConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	req, _ := msg.(*jsonrpc.Request)
	if req == nil {
		return c.Connection.Write(ctx, msg)
	}
	var p struct {
		Meta      struct{ ProgressToken any } `json:"_meta"`
		RequestID any                         `json:"requestId"`
	}
	_ = json.Unmarshal(req.Params, &p)
	if req.IsCall() && p.Meta.ProgressToken != nil {
		c.r.mu.Lock()
		if c.r.tokenOfID == nil {
			c.r.tokenOfID = map[string]any{}
		}
		c.r.tokenOfID[fmt.Sprint(req.ID.Raw())] = p.Meta.ProgressToken
		c.r.mu.Unlock()
	}
	err := c.Connection.Write(ctx, msg)
	if raw, encErr := jsonrpc.EncodeMessage(msg); encErr == nil && err == nil {
		c.r.wrote.note(raw)
	}
	if req.Method == "notifications/cancelled" {
		c.r.mu.Lock()
		if token, ok := c.r.tokenOfID[fmt.Sprint(p.RequestID)]; ok {
			if c.r.cancelled == nil {
				c.r.cancelled = map[string]time.Time{}
			}
			c.r.cancelled[tokenKey(token)] = time.Now()
			c.r.log.fire()
		}
		c.r.mu.Unlock()
	}
	return err
}

func (c *recordingConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err != nil {
		return msg, err
	}
	now := time.Now()
	if raw, err := jsonrpc.EncodeMessage(msg); err == nil {
		c.r.tally.note(raw)
	}
	switch m := msg.(type) {
	case *jsonrpc.Response:
		c.r.mu.Lock()
		token, ok := c.r.tokenOfID[fmt.Sprint(m.ID.Raw())]
		c.r.mu.Unlock()
		if ok {
			raw := fmt.Sprintf("result %s", m.Result)
			if m.Error != nil {
				raw = fmt.Sprintf("error %v", m.Error)
			}
			c.r.log.add(token, wireEvent{Response: true, At: now, Raw: raw})
		}
	case *jsonrpc.Request:
		if m.Method == "notifications/progress" {
			var p progressParams
			if json.Unmarshal(m.Params, &p) == nil {
				c.r.log.add(p.ProgressToken, wireEvent{Progress: p.Progress, Total: p.Total, At: now})
			}
		}
	}
	return msg, err
}

func (s *goSDKSession) server() *httpServer { return s.srv }
