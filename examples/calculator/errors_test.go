package main

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
	"github.com/rpcgen/rpcgen/runtime/rpchttp"
)

// TestDeclaredErrorTyped divides by zero through every client rpcgen
// generated for Calculator, the JSON-RPC clients (in memory, HTTP) and the
// MCP client (in process, every MCP revision), and checks that the error
// arrives as ErrDivisionByZero, the variable Divide returns and the
// directive declares, with its data typed.
func TestDeclaredErrorTyped(t *testing.T) {
	ctx := context.Background()
	httpSrv := httptest.NewServer(rpchttp.NewHandler(NewCalculatorHandler(&calculator{}), rpchttp.Options{}))
	t.Cleanup(httpSrv.Close)
	clients := map[string]Calculator{
		"jsonrpc/memory": memClient(t),
		"jsonrpc/http":   NewCalculatorClient(rpchttp.NewClient(httpSrv.URL)),
	}
	for _, version := range []string{mcp.Version20241105, mcp.Version20250618, mcp.Version20251125, mcp.Version20260728} {
		srv := mcpserver.New(mcp.Implementation{Name: "calculator", Version: "1.0.0"}, nil)
		srv.AddTools(CalculatorTools(&calculator{})...)
		c, err := mcpclient.ConnectTransport(ctx, srv.InProcess(), mcpclient.Options{Info: mcp.Implementation{Name: "test", Version: "1"}, ProtocolVersion: version})
		if err != nil {
			t.Fatalf("MCP %s: %v", version, err)
		}
		t.Cleanup(func() { c.Close() })
		clients["mcp/"+version] = NewCalculatorMCPClient(c)
	}
	for name, calc := range clients {
		t.Run(name, func(t *testing.T) {
			_, err := calc.Divide(ctx, 7, 0)
			if !errors.Is(err, ErrDivisionByZero) {
				t.Fatalf("Divide(7, 0) = %v (%T), want ErrDivisionByZero", err, err)
			}
			data, ok := ErrDivisionByZero.DataOf(err)
			if !ok || data.Dividend != 7 {
				t.Errorf("ErrDivisionByZero.DataOf = %+v, %v; want dividend 7", data, ok)
			}
			var rpcErr *runtime.Error
			if !errors.As(err, &rpcErr) || rpcErr.Code != CodeDivisionByZero || rpcErr.Message != "division by zero" {
				t.Errorf("as *runtime.Error: %#v", rpcErr)
			}
			if q, err := calc.Divide(ctx, 7, 2); err != nil || q != 3.5 {
				t.Errorf("Divide(7, 2) = %v, %v", q, err)
			}
		})
	}
}

// TestDeclaredErrorDocumented checks that the MCP tool's description names
// the declared error, for the model that calls it.
func TestDeclaredErrorDocumented(t *testing.T) {
	for _, tool := range CalculatorTools(&calculator{}) {
		mentions := strings.Contains(tool.Description, `DivisionByZero (code 1001): "division by zero"`)
		if mentions != (tool.Name == CalculatorDivideTool) {
			t.Errorf("tool %s: description %q; the declared error should be named exactly by divide's", tool.Name, tool.Description)
		}
	}
}
