package mcpbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpcgen/rpcgen/bench/mcpbench/service"
)

// gosdkPeer is the official Go SDK: typed handlers registered with
// mcp.AddTool (schemas inferred from the Go types, arguments validated
// against them), called through its ClientSession.
var gosdkPeer = &Peer{
	Name:    "gosdk",
	connect: gosdkConnect,
	serveStdio: func(ctx context.Context) error {
		return gosdkServer().Run(ctx, &mcp.StdioTransport{})
	},
}

func gosdkServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "Add returns the sum of a and b."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in AddArgs) (*mcp.CallToolResult, service.Sum, error) {
			return nil, service.Sum{Sum: in.A + in.B}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo returns text unchanged."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in EchoArgs) (*mcp.CallToolResult, service.Echoed, error) {
			return nil, service.Echoed{Text: in.Text}, nil
		})
	return s
}

type gosdkCaller struct {
	cs *mcp.ClientSession
	closers
}

// call returns the structured content of a successful call, as the SDK's
// client decodes it (a map).
func (c *gosdkCaller) call(ctx context.Context, name string, args any) (map[string]any, error) {
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return nil, err
	}
	if res.IsError {
		return nil, errors.New("tool error")
	}
	m, ok := res.StructuredContent.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("structured content is %T", res.StructuredContent)
	}
	return m, nil
}

func (c *gosdkCaller) callRaw(ctx context.Context, tool string, args any) error {
	_, err := c.call(ctx, tool, args)
	return err
}

func (c *gosdkCaller) Add(ctx context.Context, a, b int) (int, error) {
	m, err := c.call(ctx, "add", AddArgs{A: a, B: b})
	if err != nil {
		return 0, err
	}
	sum, _ := m["sum"].(float64)
	return int(sum), nil
}

func (c *gosdkCaller) Echo(ctx context.Context, text string) (string, error) {
	m, err := c.call(ctx, "echo", EchoArgs{Text: text})
	if err != nil {
		return "", err
	}
	s, _ := m["text"].(string)
	return s, nil
}

func gosdkConnect(ctx context.Context, transport, era string) (Caller, error) {
	var (
		ct   mcp.Transport
		done closers
	)
	switch transport {
	case InProcess:
		st, t := mcp.NewInMemoryTransports()
		ss, err := gosdkServer().Connect(ctx, st, nil)
		if err != nil {
			return nil, err
		}
		ct = t
		done = append(done, func() error { ss.Wait(); return nil })
	case Pipes:
		srv := gosdkServer()
		p, wait, err := servedPipes(func(r io.Reader, w io.Writer) error {
			return srv.Run(context.Background(), &mcp.IOTransport{Reader: io.NopCloser(r), Writer: nopWriteCloser{w}})
		})
		if err != nil {
			return nil, err
		}
		ct = &mcp.IOTransport{Reader: p.ClientR, Writer: p.ClientW}
		done = append(done, wait)
	case Stdio:
		cmd, err := ServerCommand("gosdk")
		if err != nil {
			return nil, err
		}
		ct = &mcp.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}
	default:
		return nil, fmt.Errorf("gosdk: no transport %q", transport)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "bench-client", Version: "1.0.0"}, nil)
	cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: Versions[era]})
	if err != nil {
		done.Close()
		return nil, err
	}
	if got := cs.InitializeResult().ProtocolVersion; got != Versions[era] {
		cs.Close()
		done.Close()
		return nil, fmt.Errorf("gosdk: negotiated %s, want %s", got, Versions[era])
	}
	return &gosdkCaller{cs: cs, closers: append(closers{cs.Close}, done...)}, nil
}

// nopWriteCloser lets the server side of a pipe pair be closed by its owner
// (servedPipes) rather than by the SDK.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
