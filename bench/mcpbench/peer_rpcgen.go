package mcpbench

import (
	"context"
	"fmt"
	"io"

	"github.com/rpcgen/rpcgen/bench/mcpbench/service"
	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// rpcgenPeer serves service.Impl through the generated BenchTools and calls
// it through the generated BenchMCPClient.
var rpcgenPeer = &Peer{
	Name:       "rpcgen",
	connect:    rpcgenConnect,
	serveStdio: func(ctx context.Context) error { return rpcgenServer().ServeStdio(ctx) },
}

func rpcgenServer() *mcpserver.Server {
	srv := mcpserver.New(mcp.Implementation{Name: "bench", Version: "1.0.0"}, nil)
	srv.AddTools(service.BenchTools(service.Impl{})...)
	return srv
}

// rpcgenCaller adapts the generated typed client to Caller.
type rpcgenCaller struct {
	typed *service.BenchMCPClient
	raw   *mcpclient.Client
	io.Closer
}

func (c rpcgenCaller) callRaw(ctx context.Context, tool string, args any) error {
	return c.raw.CallTool(ctx, tool, args, nil)
}

func (c rpcgenCaller) Add(ctx context.Context, a, b int) (int, error) {
	s, err := c.typed.Add(ctx, a, b)
	return s.Sum, err
}

func (c rpcgenCaller) Echo(ctx context.Context, text string) (string, error) {
	e, err := c.typed.Echo(ctx, text)
	return e.Text, err
}

func rpcgenConnect(ctx context.Context, transport, era string) (Caller, error) {
	opts := mcpclient.Options{Info: mcp.Implementation{Name: "bench-client", Version: "1.0.0"}, ProtocolVersion: Versions[era]}
	var (
		c    *mcpclient.Client
		err  error
		done closers
	)
	switch transport {
	case InProcess:
		c, err = mcpclient.ConnectTransport(ctx, rpcgenServer().InProcess(), opts)
	case Pipes:
		srv := rpcgenServer()
		p, wait, perr := servedPipes(func(r io.Reader, w io.Writer) error {
			return srv.Serve(context.Background(), runtime.NewLineFramer(r, w, 0))
		})
		if perr != nil {
			return nil, perr
		}
		done = append(done, wait)
		c, err = mcpclient.Connect(ctx, runtime.NewLineFramer(p.ClientR, p.ClientW, 0), opts)
	case Stdio:
		cmd, cerr := ServerCommand("rpcgen")
		if cerr != nil {
			return nil, cerr
		}
		c, err = mcpclient.DialCommand(ctx, cmd, opts)
	default:
		return nil, fmt.Errorf("rpcgen: no transport %q", transport)
	}
	if err != nil {
		done.Close()
		return nil, err
	}
	if got := c.ProtocolVersion(); got != Versions[era] {
		c.Close()
		done.Close()
		return nil, fmt.Errorf("rpcgen: negotiated %s, want %s", got, Versions[era])
	}
	return rpcgenCaller{service.NewBenchMCPClient(c), c, append(closers{c.Close}, done...)}, nil
}
