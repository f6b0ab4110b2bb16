package main

import (
	"context"
	"encoding/json"
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

// TestDeclaredErrorReadableByAnyClient divides by zero over MCP and reads
// the result as a client that knows nothing of rpcgen's _meta key would:
// the text the model reads names the error and its code, as the tool's
// description does, and the second text block is the JSON-RPC error
// object, data included.
func TestDeclaredErrorReadableByAnyClient(t *testing.T) {
	ctx := context.Background()
	for _, version := range []string{mcp.Version20241105, mcp.Version20251125, mcp.Version20260728} {
		srv := mcpserver.New(mcp.Implementation{Name: "calculator", Version: "1.0.0"}, nil)
		srv.AddTools(CalculatorTools(&calculator{})...)
		c, err := mcpclient.ConnectTransport(ctx, srv.InProcess(), mcpclient.Options{Info: mcp.Implementation{Name: "test", Version: "1"}, ProtocolVersion: version})
		if err != nil {
			t.Fatalf("MCP %s: %v", version, err)
		}
		t.Cleanup(func() { c.Close() })
		res, err := c.CallToolRaw(ctx, mcp.CallToolParams{Name: CalculatorDivideTool, Arguments: map[string]float64{"a": 7, "b": 0}})
		if err != nil {
			t.Fatalf("MCP %s: %v", version, err)
		}
		const text = "DivisionByZero (code 1001): division by zero"
		if !res.IsError || len(res.Content) != 2 || res.Content[0].Type != "text" || res.Content[0].Text != text {
			t.Fatalf("MCP %s: the model reads %+v, want %q and the error object", version, res.Content, text)
		}
		var obj struct {
			Code    int64
			Message string
			Data    DivisionByZero
		}
		if err := json.Unmarshal([]byte(res.Content[1].Text), &obj); err != nil || obj.Code != CodeDivisionByZero || obj.Message != "division by zero" || obj.Data.Dividend != 7 {
			t.Errorf("MCP %s: second block %q = %+v, %v; want the error object with dividend 7", version, res.Content[1].Text, obj, err)
		}
	}
}

// TestAllInvalidParamsAtOnce sends Add two wrong arguments and an unknown
// one, and checks that one error names all three, so that a model fixes
// them in one retry: over JSON-RPC in the message and, each with its path,
// in the data; over MCP in the text the model reads and in the error meta.
func TestAllInvalidParamsAtOnce(t *testing.T) {
	ctx := context.Background()
	args := json.RawMessage(`{"a":"two","b":1.5,"c":3}`)
	const want = `invalid params: 3 problems: "a": expected an integer, got "two"; "b": expected an integer, got 1.5; unknown field "c" (valid fields: a, b)`
	const wantData = `{"problems":[{"path":"a","message":"expected an integer, got \"two\""},{"path":"b","message":"expected an integer, got 1.5"},{"message":"unknown field \"c\" (valid fields: a, b)"}]}`

	a, b := runtime.Pipe()
	server := runtime.NewConn(a, runtime.Options{Handler: NewCalculatorHandler(&calculator{})})
	client := runtime.NewConn(b, runtime.Options{})
	t.Cleanup(func() { client.Close(); server.Close() })
	err := client.Call(ctx, CalculatorAddMethod, args, nil)
	var rpcErr *runtime.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != runtime.CodeInvalidParams || rpcErr.Message != want || string(rpcErr.Data) != wantData {
		t.Errorf("JSON-RPC: got %v (data %s)\nwant %s (data %s)", err, rpcErr.Data, want, wantData)
	}

	for _, version := range []string{mcp.Version20241105, mcp.Version20260728} {
		srv := mcpserver.New(mcp.Implementation{Name: "calculator", Version: "1.0.0"}, nil)
		srv.AddTools(CalculatorTools(&calculator{})...)
		c, err := mcpclient.ConnectTransport(ctx, srv.InProcess(), mcpclient.Options{Info: mcp.Implementation{Name: "test", Version: "1"}, ProtocolVersion: version})
		if err != nil {
			t.Fatalf("MCP %s: %v", version, err)
		}
		t.Cleanup(func() { c.Close() })
		res, err := c.CallToolRaw(ctx, mcp.CallToolParams{Name: CalculatorAddTool, Arguments: args})
		if err != nil {
			t.Fatalf("MCP %s: %v", version, err)
		}
		if !res.IsError || len(res.Content) != 1 || res.Content[0].Text != want {
			t.Errorf("MCP %s: the model reads %+v, want %q", version, res.Content, want)
		}
		if !strings.Contains(string(res.Meta), wantData) {
			t.Errorf("MCP %s: _meta %s lacks the data %s", version, res.Meta, wantData)
		}
	}
}
