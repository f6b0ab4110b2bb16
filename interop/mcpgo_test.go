package interop

import (
	"context"
	"errors"
	"os/exec"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// TestMCPGo drives the server with the mcp-go client over stdio: by default
// (it probes server/discover and speaks 2026-07-28 when the server does) and
// pinned to the legacy 2025-11-25 initialize handshake.
func TestMCPGo(t *testing.T) {
	for _, c := range []struct {
		mode string
		opts []client.ClientOption
		want string
	}{
		{"default", nil, "2026-07-28"},
		{"legacy", []client.ClientOption{client.WithProtocolVersion("2025-11-25")}, "2025-11-25"},
	} {
		t.Run(c.mode, func(t *testing.T) {
			s := connectMCPGo(t, c.opts...)
			runSuite(t, s, c.want)
		})
	}
}

type mcpGoSession struct {
	c       *client.Client
	version string
	log     wireLog
	wire    *httpWire // over HTTP: the wire the client reads, instead of log
}

func connectMCPGo(t *testing.T, opts ...client.ClientOption) *mcpGoSession {
	t.Helper()
	cmd := serverCommand(t)
	stdio := transport.NewStdioWithOptions(cmd.Path, nil, cmd.Args[1:],
		transport.WithCommandFunc(func(context.Context, string, []string, []string) (*exec.Cmd, error) {
			// Our own command: its own directory, stderr shown on failure.
			// Not tied to the start context, which ends when we return.
			c := exec.Command(cmd.Path, cmd.Args[1:]...)
			c.Dir, c.Stderr = cmd.Dir, cmd.Stderr
			return c, nil
		}))
	return startMCPGo(t, stdio, opts...)
}

// startMCPGo starts an mcp-go client over tr and runs its handshake.
func startMCPGo(t *testing.T, tr transport.Interface, opts ...client.ClientOption) *mcpGoSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s := &mcpGoSession{c: client.NewClient(tr, opts...)}
	if err := s.c.Start(ctx); err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() { _ = s.c.Close() })
	// Notification handlers run on the transport's read loop, before the
	// response that follows them is delivered: their order is the wire order.
	s.c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method != "notifications/progress" {
			return
		}
		var p progressParams
		if remarshal(n.Params, &p) == nil {
			s.log.add(p.ProgressToken, wireEvent{Progress: p.Progress, Total: p.Total, At: time.Now()})
		}
	})
	var init mcp.InitializeRequest
	init.Params.ClientInfo = mcp.Implementation{Name: "interop-mcp-go", Version: "1"}
	res, err := s.c.Initialize(ctx, init)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	s.version = res.ProtocolVersion
	if v := s.c.ProtocolVersion(); v != s.version {
		t.Errorf("Initialize result says %q, client says %q", s.version, v)
	}
	return s
}

func (s *mcpGoSession) ProtocolVersion() string { return s.version }

func (s *mcpGoSession) ListTools(t *testing.T) ([]wireTool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := s.c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		return nil, err
	}
	var tools []wireTool
	if err := remarshal(res.Tools, &tools); err != nil {
		return nil, err
	}
	return tools, nil
}

func (s *mcpGoSession) CallTool(t *testing.T, name string, args, token any) (*wireResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var req mcp.CallToolRequest
	req.Params.Name = name
	req.Params.Arguments = args
	if token != nil {
		req.Params.Meta = &mcp.Meta{ProgressToken: token}
	}
	res, err := s.c.CallTool(ctx, req)
	if token != nil && err == nil {
		s.log.add(token, wireEvent{Response: true, At: time.Now()})
	}
	if err != nil {
		return nil, err
	}
	var w wireResult
	if err := remarshal(res, &w); err != nil {
		return nil, err
	}
	return &w, nil
}

func (s *mcpGoSession) Wire(token any) []wireEvent {
	if s.wire != nil {
		return s.wire.log.get(token)
	}
	return s.log.get(token)
}

func (s *mcpGoSession) ErrorCode(err error) (int, bool) {
	for code, sentinel := range map[int]error{
		-32700: mcp.ErrParseError, -32600: mcp.ErrInvalidRequest, -32601: mcp.ErrMethodNotFound,
		-32602: mcp.ErrInvalidParams, -32603: mcp.ErrInternalError,
	} {
		if errors.Is(err, sentinel) {
			return code, true
		}
	}
	return 0, false
}
