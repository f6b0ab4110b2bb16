package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// Bad input gets the JSON-RPC error it deserves and the server keeps serving.
func TestMalformedInput(t *testing.T) {
	parseErr := `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`
	invalid := `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}`
	for _, dr := range drivers {
		t.Run(dr.name, func(t *testing.T) {
			rpctest.CheckLeaks(t)
			fx := newFixture(t)
			d := dr.new(t, fx.srv)
			expect(t, d, `{"jsonrpc":"2.0","id":1,"method":`, parseErr)
			expect(t, d, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\xff\"}", parseErr)
			expect(t, d, `42`, invalid)
			expect(t, d, `{"jsonrpc":"2.0","id":3}`, `{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"Invalid Request"}}`)
			expect(t, d, `{"jsonrpc":"2.0","id":4,"method":"ping","params":"x"}`, `{"jsonrpc":"2.0","id":4,"error":{"code":-32600,"message":"Invalid Request"}}`)
			expect(t, d, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":[1]}`,
				errRes("5", "-32602", `"invalid params: params must be an object"`))
			expect(t, d, `{"jsonrpc":"2.0","id":6,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}`,
				res("6", `{"protocolVersion":"2025-03-26",`+capsJSON+`,"serverInfo":{"name":"notes","version":"1.0.0"},"instructions":"Use search first."}`))
			expect(t, d, `[]`, invalid)
			expect(t, d, `[1]`, `[`+invalid+`]`)
			expect(t, d, call("7", `{"name":7}`), errRes("7", "-32602", `"invalid params: \"name\" must be a string"`))
			expect(t, d, call("8", `{"arguments":{}}`), errRes("8", "-32602", `"invalid params: missing \"name\""`))
			expect(t, d, `{"jsonrpc":"2.0","id":9,"method":"resources/list"}`,
				`{"jsonrpc":"2.0","id":9,"error":{"code":-32601,"message":"Method not found","data":"resources/list"}}`)
			// A response the server never asked for is dropped.
			expect(t, d, `{"jsonrpc":"2.0","id":99,"result":{}}`)
			expect(t, d, `{"jsonrpc":"2.0","id":10,"method":"ping"}`, res("10", `{}`))
			d.finish(t)
		})
	}
}

// MCP ids are strings or integers, never null: a request with a null, a
// fractional or an exponent id is refused with Invalid Request and id null,
// on every transport and in both eras, and the server keeps serving.
func TestRequestIDsStringOrInteger(t *testing.T) {
	invalid := `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}`
	for _, dr := range drivers {
		t.Run(dr.name, func(t *testing.T) {
			rpctest.CheckLeaks(t)
			fx := newFixture(t)
			d := dr.new(t, fx.srv)
			for _, id := range []string{`null`, `1.5`, `2.0`, `1e3`, `-7E-1`} {
				expect(t, d, `{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`, invalid)
				expect(t, d, modernReq(id, "server/discover", ""), invalid)
			}
			expect(t, d, `{"jsonrpc":"2.0","id":-3,"method":"ping"}`, res("-3", `{}`))
			expect(t, d, `{"jsonrpc":"2.0","id":"1.5","method":"ping"}`, res(`"1.5"`, `{}`))
			expect(t, d, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}`,
				res("0", `{"protocolVersion":"2025-03-26",`+capsJSON+`,"serverInfo":{"name":"notes","version":"1.0.0"},"instructions":"Use search first."}`))
			// In a 2025-03-26 batch, each element is judged alone.
			expect(t, d, `[{"jsonrpc":"2.0","id":null,"method":"ping"},{"jsonrpc":"2.0","id":4,"method":"ping"}]`,
				`[`+invalid+`,`+res("4", `{}`)+`]`)
			d.finish(t)
		})
	}
}

// A client that disappears in the middle of a call leaves nothing behind: the
// server's write fails quietly and Serve returns.
func TestClientVanishesMidCall(t *testing.T) {
	rpctest.CheckLeaks(t)
	release := make(chan struct{})
	running := make(chan struct{})
	srv := mcpserver.New(mcp.Implementation{Name: "s", Version: "1"}, nil)
	srv.AddTools(mcpserver.Tool{Name: "wait", Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
		close(running)
		<-release
		mcpserver.Progress(ctx, 1, 0, "nobody listens")
		return json.RawMessage(`{"ok":true}`), nil
	}})
	inR, inW, _ := os.Pipe()
	outR, outW, _ := os.Pipe()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(context.Background(), runtime.NewLineFramer(inR, outW, 0)) }()
	r := bufio.NewReader(outR)
	inW.WriteString(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}` + "\n")
	if line, err := r.ReadString('\n'); err != nil || !strings.Contains(line, `"protocolVersion":"2025-06-18"`) {
		t.Fatalf("initialize: %q %v", line, err)
	}
	inW.WriteString(call("2", `{"name":"wait","_meta":{"progressToken":1}}`) + "\n")
	<-running
	inW.Close()
	outR.Close()
	close(release)
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return")
	}
}

// Nothing reaches notify once Handle has returned, even from a goroutine the
// tool left running.
func TestNoNotificationAfterResponse(t *testing.T) {
	rpctest.CheckLeaks(t)
	stopped, first, after := make(chan struct{}), make(chan struct{}), make(chan struct{})
	srv := mcpserver.New(mcp.Implementation{Name: "s", Version: "1"}, nil)
	srv.AddTools(mcpserver.Tool{Name: "leaky", Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
		// The goroutine sends before the tool returns (first), and the
		// second half of its notifications once Handle has returned (after).
		go func() {
			defer close(stopped)
			for i := 1; i <= 2000; i++ {
				if i == 1001 {
					<-after
				}
				mcpserver.Progress(ctx, float64(i), 0, "")
				mcpserver.Log(ctx, mcp.LevelInfo, "", i)
				if i == 1 {
					close(first)
				}
			}
		}()
		<-first
		return nil, nil
	}})
	ss := srv.NewSession()
	var returned atomic.Bool
	var before atomic.Int32
	notify := func(msg []byte) {
		if returned.Load() {
			t.Errorf("notification after the response: %s", msg)
		}
		before.Add(1)
	}
	ss.Handle(t.Context(), []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`), nil)
	reply := ss.Handle(t.Context(), []byte(call("2", `{"name":"leaky","_meta":{"progressToken":"x"}}`)), notify)
	returned.Store(true)
	close(after)
	<-stopped
	if string(reply) != res("2", `{"content":[]}`) {
		t.Errorf("reply %s", reply)
	}
	if n := before.Load(); n < 2 {
		t.Errorf("%d notifications before the response, want at least the first progress and log", n)
	}
	t.Logf("%d notifications before the response", before.Load())
}

// Without logging/setLevel a legacy session gets every level; Log and
// Progress outside a tool, or without a token, send nothing.
func TestLoggingDefaults(t *testing.T) {
	fx := newFixture(t)
	ss := fx.srv.NewSession()
	ss.Handle(t.Context(), []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`), nil)
	var got []string
	ss.Handle(t.Context(), []byte(call("2", `{"name":"slow"}`)), func(m []byte) { got = append(got, string(m)) })
	want := []string{
		note("notifications/message", `{"level":"debug","logger":"slow","data":"hidden below info"}`),
		note("notifications/message", `{"level":"info","logger":"slow","data":{"step":2}}`),
		note("notifications/message", `{"level":"error","data":"bad"}`),
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	mcpserver.Log(t.Context(), mcp.LevelEmergency, "", "x") // no tool context: a no-op
	mcpserver.Progress(t.Context(), 1, 1, "")
}

func TestContextHelpers(t *testing.T) {
	type seen struct{ version, caps string }
	var s seen
	srv := mcpserver.New(mcp.Implementation{Name: "s", Version: "1"}, nil)
	srv.AddTools(mcpserver.Tool{Name: "look", Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
		s = seen{mcpserver.ProtocolVersion(ctx), string(mcpserver.ClientCapabilities(ctx))}
		return nil, mcpserver.RequireClientCapability(ctx, "sampling")
	}})
	ss := srv.NewSession()
	ss.Handle(t.Context(), []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"sampling":{}}}}`), nil)
	if reply := ss.Handle(t.Context(), []byte(call("2", `{"name":"look"}`)), nil); string(reply) != res("2", `{"content":[]}`) {
		t.Errorf("legacy reply %s", reply)
	}
	if s != (seen{"2025-06-18", `{"sampling":{}}`}) {
		t.Errorf("legacy: %+v", s)
	}
	reply := ss.Handle(t.Context(), []byte(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"look","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{}}}}}`), nil)
	if !strings.Contains(string(reply), `"code":-32021`) || !strings.Contains(string(reply), `{"requiredCapabilities":{"sampling":{}}}`) {
		t.Errorf("modern reply %s", reply)
	}
	if s != (seen{"2026-07-28", `{"roots":{}}`}) {
		t.Errorf("modern: %+v", s)
	}
	if mcpserver.ProtocolVersion(t.Context()) != "" || mcpserver.ClientCapabilities(t.Context()) != nil {
		t.Error("helpers answer outside a tool")
	}
	if err := mcpserver.RequireClientCapability(t.Context(), "roots"); err == nil {
		t.Error("a capability is declared outside a tool")
	}
}

func TestAddToolsPanics(t *testing.T) {
	h := func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil }
	for name, tools := range map[string][]mcpserver.Tool{
		"empty name":     {{Name: "", Handler: h}},
		"space":          {{Name: "a b", Handler: h}},
		"comma":          {{Name: "a,b", Handler: h}},
		"slash":          {{Name: "a/b", Handler: h}},
		"too long":       {{Name: strings.Repeat("a", 129), Handler: h}},
		"duplicate":      {{Name: "a", Handler: h}, {Name: "a", Handler: h}},
		"nil handler":    {{Name: "a"}},
		"bad schema":     {{Name: "a", Handler: h, InputSchema: json.RawMessage(`{"type":`)}},
		"array schema":   {{Name: "a", Handler: h, InputSchema: json.RawMessage(`[]`)}},
		"dup across add": {{Name: "taken", Handler: h}},
	} {
		t.Run(name, func(t *testing.T) {
			srv := mcpserver.New(mcp.Implementation{Name: "s", Version: "1"}, nil)
			srv.AddTools(mcpserver.Tool{Name: "taken", Handler: h})
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			srv.AddTools(tools...)
		})
	}
	srv := mcpserver.New(mcp.Implementation{Name: "s", Version: "1"}, nil)
	srv.AddTools(mcpserver.Tool{Name: strings.Repeat("a", 128), Handler: h}, mcpserver.Tool{Name: "A-z_0.9", Handler: h})
}

func TestCacheScopeOption(t *testing.T) {
	srv := mcpserver.New(mcp.Implementation{Name: "s", Version: "1"}, &mcpserver.Options{CacheScope: "private", ListTTL: 1500 * time.Microsecond})
	reply := srv.NewSession().Handle(t.Context(), []byte(modernReq("1", "tools/list", "")), nil)
	want := res("1", `{"tools":[],"ttlMs":1,"cacheScope":"private","resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}}`)
	if string(reply) != want {
		t.Errorf("got  %s\nwant %s", reply, want)
	}
	defer func() {
		if recover() == nil {
			t.Error("no panic for an invalid CacheScope")
		}
	}()
	mcpserver.New(mcp.Implementation{}, &mcpserver.Options{CacheScope: "shared"})
}

// TestNullResultWithOutputSchema: a tool that declares an output schema and
// returns no result (a Go method returning a nil pointer) must not send a
// result that breaks its own schema. From 2025-06-18 it is an error result
// marked MetaNull, which the client reads as a null result; before, when
// there are no output schemas, it is the text "null". Nothing is logged: a
// nil result is not a fault.
func TestNullResultWithOutputSchema(t *testing.T) {
	var logs strings.Builder
	srv := mcpserver.New(mcp.Implementation{Name: "s", Version: "1"}, &mcpserver.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	srv.AddTools(mcpserver.Tool{
		Name: "find", OutputSchema: json.RawMessage(`{"type":"object"}`),
		Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) { return json.RawMessage("null"), nil },
	})
	ctx := context.Background()
	for _, c := range []struct{ version, want string }{
		{"2024-11-05", `{"content":[{"type":"text","text":"null"}]}`},
		{"2025-11-25", `{"content":[{"type":"text","text":"tool find returned no result (null)"}],"isError":true,"_meta":{"io.github.rpcgen/null":true}}`},
	} {
		ss := srv.NewSession()
		ss.Handle(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+c.version+`","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`), nil)
		got := string(ss.Handle(ctx, []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"find"}}`), nil))
		if want := `{"jsonrpc":"2.0","id":2,"result":` + c.want + `}`; got != want {
			t.Errorf("%s:\n got %s\nwant %s", c.version, got, want)
		}
	}
	if logs.Len() > 0 {
		t.Errorf("a null result was logged: %s", logs.String())
	}
	for _, version := range []string{mcp.Version20241105, mcp.Version20251125, mcp.Version20260728} {
		c, err := mcpclient.ConnectTransport(ctx, srv.InProcess(), mcpclient.Options{ProtocolVersion: version})
		if err != nil {
			t.Fatal(err)
		}
		got := &struct{ A int }{A: 1}
		if err := c.CallTool(ctx, "find", nil, &got); err != nil || got != nil {
			t.Errorf("%s: CallTool of a null result = %v, %v; want nil, nil", version, got, err)
		}
		c.Close()
	}
}
