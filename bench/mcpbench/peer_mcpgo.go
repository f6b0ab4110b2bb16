package mcpbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/rpcgen/rpcgen/bench/mcpbench/service"
)

// mcpgoPeer is mark3labs/mcp-go with its defaults: tools declared with
// schemas derived from the Go types (WithInputSchema, WithOutputSchema) and
// typed handlers (NewStructuredToolHandler), which bind the arguments with
// encoding/json and do not validate them against the schema.
var mcpgoPeer = &Peer{
	Name:       "mcpgo",
	connect:    func(ctx context.Context, tr, era string) (Caller, error) { return mcpgoConnect(ctx, tr, era, false) },
	serveStdio: func(ctx context.Context) error { return mcpgoServeStdio(ctx, false) },
}

// mcpgoValidatePeer is mcp-go with server.WithInputSchemaValidation, which
// checks every call's arguments against the tool's input schema, as rpcgen
// and the Go SDK do.
var mcpgoValidatePeer = &Peer{
	Name:       "mcpgo-validate",
	connect:    func(ctx context.Context, tr, era string) (Caller, error) { return mcpgoConnect(ctx, tr, era, true) },
	serveStdio: func(ctx context.Context) error { return mcpgoServeStdio(ctx, true) },
}

func mcpgoServer(validate bool, extra ...server.ServerOption) *server.MCPServer {
	opts := []server.ServerOption{server.WithToolCapabilities(false)}
	opts = append(opts, extra...)
	if validate {
		opts = append(opts, server.WithInputSchemaValidation())
	}
	s := server.NewMCPServer("bench", "1.0.0", opts...)
	s.AddTool(mcp.NewTool("add",
		mcp.WithDescription("Add returns the sum of a and b."),
		mcp.WithInputSchema[AddArgs](),
		mcp.WithOutputSchema[service.Sum](),
	), mcp.NewStructuredToolHandler(func(ctx context.Context, _ mcp.CallToolRequest, in AddArgs) (service.Sum, error) {
		return service.Sum{Sum: in.A + in.B}, nil
	}))
	s.AddTool(mcp.NewTool("echo",
		mcp.WithDescription("Echo returns text unchanged."),
		mcp.WithInputSchema[EchoArgs](),
		mcp.WithOutputSchema[service.Echoed](),
	), mcp.NewStructuredToolHandler(func(ctx context.Context, _ mcp.CallToolRequest, in EchoArgs) (service.Echoed, error) {
		return service.Echoed{Text: in.Text}, nil
	}))
	return s
}

func mcpgoServeStdio(ctx context.Context, validate bool) error {
	return server.NewStdioServer(mcpgoServer(validate)).Listen(ctx, os.Stdin, os.Stdout)
}

type mcpgoCaller struct {
	c *client.Client
	closers
}

// call returns the structured content of a successful call, as the SDK's
// client decodes it (a map).
func (c *mcpgoCaller) call(ctx context.Context, name string, args any) (map[string]any, error) {
	var req mcp.CallToolRequest
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.c.CallTool(ctx, req)
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

func (c *mcpgoCaller) callRaw(ctx context.Context, tool string, args any) error {
	_, err := c.call(ctx, tool, args)
	return err
}

func (c *mcpgoCaller) Add(ctx context.Context, a, b int) (int, error) {
	m, err := c.call(ctx, "add", AddArgs{A: a, B: b})
	if err != nil {
		return 0, err
	}
	sum, _ := m["sum"].(float64)
	return int(sum), nil
}

func (c *mcpgoCaller) Echo(ctx context.Context, text string) (string, error) {
	m, err := c.call(ctx, "echo", EchoArgs{Text: text})
	if err != nil {
		return "", err
	}
	s, _ := m["text"].(string)
	return s, nil
}

func mcpgoConnect(ctx context.Context, tr, era string, validate bool) (Caller, error) {
	name := "mcpgo"
	if validate {
		name = "mcpgo-validate"
	}
	opts := []client.ClientOption{client.WithProtocolVersion(Versions[era])}
	var (
		c    *client.Client
		done closers
		err  error
	)
	switch tr {
	case InProcess:
		c, err = client.NewInProcessClientWithOptions(mcpgoServer(validate), opts...)
	case Pipes:
		srv := server.NewStdioServer(mcpgoServer(validate))
		p, wait, perr := servedPipes(func(r io.Reader, w io.Writer) error {
			return srv.Listen(context.Background(), r, w)
		})
		if perr != nil {
			return nil, perr
		}
		done = append(done, wait)
		c = client.NewClient(transport.NewIO(p.ClientR, p.ClientW, nil), opts...)
	case Stdio:
		cmd, cerr := ServerCommand(name)
		if cerr != nil {
			return nil, cerr
		}
		t := transport.NewStdioWithOptions(cmd.Path, nil, nil,
			transport.WithCommandFunc(func(context.Context, string, []string, []string) (*exec.Cmd, error) {
				return cmd, nil // not tied to the start context, which may end first
			}))
		c = client.NewClient(t, opts...)
	default:
		return nil, fmt.Errorf("%s: no transport %q", name, tr)
	}
	if err == nil {
		err = c.Start(ctx)
	}
	if err == nil {
		var init mcp.InitializeRequest
		init.Params.ClientInfo = mcp.Implementation{Name: "bench-client", Version: "1.0.0"}
		init.Params.ProtocolVersion = Versions[era]
		_, err = c.Initialize(ctx, init)
	}
	if err == nil && c.ProtocolVersion() != Versions[era] {
		err = fmt.Errorf("%s: negotiated %s, want %s", name, c.ProtocolVersion(), Versions[era])
	}
	if err != nil {
		if c != nil {
			c.Close()
		}
		done.Close()
		return nil, err
	}
	return &mcpgoCaller{c: c, closers: append(closers{c.Close}, done...)}, nil
}
