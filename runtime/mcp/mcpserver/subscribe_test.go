package mcpserver_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// outbox collects what a session sends through its outbound.
type outbox struct {
	mu   sync.Mutex
	msgs []string
}

func (o *outbox) send(msg []byte) {
	o.mu.Lock()
	o.msgs = append(o.msgs, string(msg))
	o.mu.Unlock()
}

// take returns what was sent so far and forgets it.
func (o *outbox) take() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	m := o.msgs
	o.msgs = nil
	return m
}

func sameMsgs(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: got %d messages %q, want %q", what, len(got), got, want)
		return
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%s: message %d\n got %s\nwant %s", what, i, got[i], want[i])
		}
	}
}

func TestLegacySubscribeOutbound(t *testing.T) {
	fx := newFeatureFixture(t)
	var out outbox
	ss, ctl := fx.srv.NewTransportSession()
	d := &handleDriver{ss: ss}
	ctl.SetOutbound(out.send)
	// Nothing goes to a session before initialize.
	fx.srv.AddTools(mcpserver.Tool{Name: "early", Handler: searchTool})
	sameMsgs(t, "before initialize", out.take())
	d.exchange(t, req("0", "initialize", `{"protocolVersion":"2025-11-25","capabilities":{}}`), 1)
	expect(t, d, req("1", "resources/subscribe", `{"uri":"test://a"}`), res("1", `{}`))
	expect(t, d, req("2", "resources/subscribe", `{"uri":"file:///docs/./x.md"}`), res("2", `{}`))

	fx.srv.ResourceUpdated("test://a")
	fx.srv.ResourceUpdated("test://b") // not subscribed
	fx.srv.ResourceUpdated("file:///docs/x.md")
	sameMsgs(t, "updates", out.take(),
		note("notifications/resources/updated", `{"uri":"test://a"}`),
		note("notifications/resources/updated", `{"uri":"file:///docs/x.md"}`))

	expect(t, d, req("3", "resources/unsubscribe", `{"uri":"test://a"}`), res("3", `{}`))
	fx.srv.ResourceUpdated("test://a")
	sameMsgs(t, "after unsubscribe", out.take())

	// list_changed for every kind the session's initialize declared.
	fx.srv.AddPrompts(mcpserver.Prompt{Name: "late", Handler: func(context.Context, map[string]string) (*mcp.GetPromptResult, error) { return nil, nil }})
	fx.srv.AddTools(mcpserver.Tool{Name: "late", Handler: searchTool})
	fx.srv.AddResources(mcpserver.Resource{URI: "test://late", Name: "late", Handler: func(context.Context, *mcpserver.ReadResourceRequest) ([]mcp.ResourceContents, error) { return nil, nil }})
	sameMsgs(t, "list_changed", out.take(),
		`{"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}`,
		`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`,
		`{"jsonrpc":"2.0","method":"notifications/resources/list_changed"}`)
	expect(t, d, req("4", "prompts/list", `{"cursor":"`+cursorFor("prompts/list:", 2)+`"}`), res("4", `{"prompts":[`+promptFail+`,{"name":"late"}]}`))

	// A closed session hears nothing more.
	expect(t, d, req("5", "resources/subscribe", `{"uri":"test://b"}`), res("5", `{}`))
	d.ss.Close()
	fx.srv.ResourceUpdated("test://b")
	fx.srv.AddTools(mcpserver.Tool{Name: "later", Handler: searchTool})
	sameMsgs(t, "after Close", out.take())
	d.finish(t)
}

// A session without prompts at initialize is not told of prompt changes.
func TestListChangedOnlyDeclared(t *testing.T) {
	fx := newFixture(t)
	var out outbox
	ss, ctl := fx.srv.NewTransportSession()
	d := &handleDriver{ss: ss}
	ctl.SetOutbound(out.send)
	d.exchange(t, req("0", "initialize", `{"protocolVersion":"2025-06-18","capabilities":{}}`), 1)
	fx.srv.AddPrompts(mcpserver.Prompt{Name: "p", Handler: func(context.Context, map[string]string) (*mcp.GetPromptResult, error) { return nil, nil }})
	sameMsgs(t, "undeclared", out.take())
	fx.srv.AddTools(mcpserver.Tool{Name: "t2", Handler: searchTool})
	sameMsgs(t, "tools", out.take(), `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
}

// Served over a connection, a session's notifications go on it.
func TestLegacySubscribeServe(t *testing.T) {
	rpctest.CheckLeaks(t)
	fx := newFeatureFixture(t)
	d := pipeDriver(t, fx.srv)
	d.exchange(t, req("0", "initialize", `{"protocolVersion":"2025-03-26","capabilities":{}}`), 1)
	expect(t, d, req("1", "resources/subscribe", `{"uri":"notes://n1"}`), res("1", `{}`))
	fx.srv.ResourceUpdated("notes://n1")
	fx.srv.AddPrompts(mcpserver.Prompt{Name: "late", Handler: func(context.Context, map[string]string) (*mcp.GetPromptResult, error) { return nil, nil }})
	sd := d.(*streamDriver)
	for _, want := range []string{
		note("notifications/resources/updated", `{"uri":"notes://n1"}`),
		`{"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}`,
	} {
		select {
		case got := <-sd.msgs:
			if got != want {
				t.Errorf("got %s\nwant %s", got, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("no %s", want)
		}
	}
	d.finish(t)
}

// listenMeta is the modern _meta of a request.
const listenMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// startListen runs a subscriptions/listen through Handle on its own
// goroutine: its notifications arrive on msgs, its reply on reply.
func startListen(ss *mcpserver.Session, ctx context.Context, id, filter string) (msgs chan string, reply chan []byte) {
	msgs, reply = make(chan string, 16), make(chan []byte, 1)
	in := `{"jsonrpc":"2.0","id":` + id + `,"method":"subscriptions/listen","params":{"notifications":` + filter + `,` + listenMeta + `}}`
	go func() { reply <- ss.Handle(ctx, []byte(in), func(m []byte) { msgs <- string(m) }) }()
	return msgs, reply
}

func recv(t *testing.T, ch chan string, want string) {
	t.Helper()
	select {
	case got := <-ch:
		if got != want {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("timed out waiting for %s", want)
	}
}

func recvReply(t *testing.T, ch chan []byte) []byte {
	t.Helper()
	select {
	case got := <-ch:
		return got
	case <-time.After(5 * time.Second):
		t.Fatal("the listen did not end")
		return nil
	}
}

func TestListenHandle(t *testing.T) {
	rpctest.CheckLeaks(t)
	fx := newFeatureFixture(t)
	ss := fx.srv.NewSession()
	ctx, cancel := context.WithCancel(context.Background())
	msgs, reply := startListen(ss, ctx, `"L1"`,
		`{"toolsListChanged":true,"promptsListChanged":true,"resourceSubscriptions":["test://a","test://nope","notes://n9","bad uri"]}`)
	recv(t, msgs, note("notifications/subscriptions/acknowledged",
		`{"_meta":{"io.modelcontextprotocol/subscriptionId":"L1"},"notifications":{"toolsListChanged":true,"promptsListChanged":true,"resourceSubscriptions":["test://a","notes://n9"]}}`))

	fx.srv.ResourceUpdated("test://a")
	recv(t, msgs, note("notifications/resources/updated", `{"_meta":{"io.modelcontextprotocol/subscriptionId":"L1"},"uri":"test://a"}`))
	fx.srv.ResourceUpdated("test://b") // not asked for
	fx.srv.AddResources(mcpserver.Resource{URI: "test://late", Name: "late", Handler: func(context.Context, *mcpserver.ReadResourceRequest) ([]mcp.ResourceContents, error) { return nil, nil }})
	fx.srv.AddPrompts(mcpserver.Prompt{Name: "late", Handler: func(context.Context, map[string]string) (*mcp.GetPromptResult, error) { return nil, nil }})
	recv(t, msgs, note("notifications/prompts/list_changed", `{"_meta":{"io.modelcontextprotocol/subscriptionId":"L1"}}`))
	fx.srv.ResourceUpdated("notes://n9")
	recv(t, msgs, note("notifications/resources/updated", `{"_meta":{"io.modelcontextprotocol/subscriptionId":"L1"},"uri":"notes://n9"}`))

	// The client going away ends the listen with no response.
	cancel()
	if got := recvReply(t, reply); got != nil {
		t.Errorf("cancelled listen answered %s", got)
	}
	fx.srv.ResourceUpdated("test://a")
	select {
	case m := <-msgs:
		t.Errorf("message after the listen ended: %s", m)
	default:
	}

	// EndSubscriptions ends a listen with its complete result...
	msgs, reply = startListen(ss, context.Background(), `7`, `{"resourcesListChanged":true,"toolsListChanged":false}`)
	recv(t, msgs, note("notifications/subscriptions/acknowledged",
		`{"_meta":{"io.modelcontextprotocol/subscriptionId":7},"notifications":{"resourcesListChanged":true}}`))
	fx.srv.AddTools(mcpserver.Tool{Name: "late", Handler: searchTool}) // not asked for
	fx.srv.EndSubscriptions()
	want := res("7", `{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":7,"io.modelcontextprotocol/serverInfo":`+fullInfo+`}}`)
	if got := string(recvReply(t, reply)); got != want {
		t.Errorf("ended listen\n got %s\nwant %s", got, want)
	}
	// ... and a later one at once.
	msgs, reply = startListen(ss, context.Background(), `8`, `{}`)
	want = res("8", `{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":8,"io.modelcontextprotocol/serverInfo":`+fullInfo+`}}`)
	if got := string(recvReply(t, reply)); got != want {
		t.Errorf("later listen\n got %s\nwant %s", got, want)
	}
	select {
	case m := <-msgs:
		t.Errorf("unexpected message: %s", m)
	default:
	}
}

func TestListenErrors(t *testing.T) {
	fx := newFixture(t) // tools only
	d := &handleDriver{ss: fx.srv.NewSession()}
	expect(t, d, modernReq("1", "subscriptions/listen", ""), errRes("1", "-32602", `"invalid params: missing \"notifications\""`))
	expect(t, d, modernReq("2", "subscriptions/listen", `"notifications":[],`), errRes("2", "-32602", `"invalid params: \"notifications\" must be a SubscriptionFilter object"`))
	expect(t, d, modernReq("3", "subscriptions/listen", `"notifications":{"toolsListChanged":"yes"},`), errRes("3", "-32602", `"invalid params: \"notifications\" must be a SubscriptionFilter object"`))
	// Legacy sessions have no listen.
	d.exchange(t, req("0", "initialize", `{"protocolVersion":"2025-11-25","capabilities":{}}`), 1)
	expect(t, d, req("4", "subscriptions/listen", `{"notifications":{}}`),
		`{"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"Method not found","data":"subscriptions/listen"}}`)
	d.finish(t)

	// A server with tools only honours toolsListChanged alone.
	msgs, reply := startListen(fx.srv.NewSession(), context.Background(), `1`,
		`{"toolsListChanged":true,"promptsListChanged":true,"resourcesListChanged":true,"resourceSubscriptions":["test://a"]}`)
	recv(t, msgs, note("notifications/subscriptions/acknowledged",
		`{"_meta":{"io.modelcontextprotocol/subscriptionId":1},"notifications":{"toolsListChanged":true}}`))
	fx.srv.AddTools(mcpserver.Tool{Name: "late", Handler: searchTool})
	recv(t, msgs, note("notifications/tools/list_changed", `{"_meta":{"io.modelcontextprotocol/subscriptionId":1}}`))
	fx.srv.EndSubscriptions()
	recvReply(t, reply)
}

// Over a connection, notifications/cancelled ends a listen with no response.
func TestListenServe(t *testing.T) {
	rpctest.CheckLeaks(t)
	fx := newFeatureFixture(t)
	client, server := runtime.Pipe()
	done := make(chan error, 1)
	go func() { done <- fx.srv.Serve(context.Background(), server) }()
	write := func(s string) {
		if err := client.WriteMessage([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	read := func() string {
		m, err := client.ReadMessage()
		if err != nil {
			t.Fatal(err)
		}
		return string(m)
	}
	write(`{"jsonrpc":"2.0","id":"s","method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":["test://b"]},` + listenMeta + `}}`)
	if got, want := read(), note("notifications/subscriptions/acknowledged", `{"_meta":{"io.modelcontextprotocol/subscriptionId":"s"},"notifications":{"resourceSubscriptions":["test://b"]}}`); got != want {
		t.Errorf("ack\n got %s\nwant %s", got, want)
	}
	fx.srv.ResourceUpdated("test://b")
	if got, want := read(), note("notifications/resources/updated", `{"_meta":{"io.modelcontextprotocol/subscriptionId":"s"},"uri":"test://b"}`); got != want {
		t.Errorf("update\n got %s\nwant %s", got, want)
	}
	write(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"s"}}`)
	// A second listen, ended by the server, answers; the cancelled one never does.
	write(`{"jsonrpc":"2.0","id":"t","method":"subscriptions/listen","params":{"notifications":{},` + listenMeta + `}}`)
	if got, want := read(), note("notifications/subscriptions/acknowledged", `{"_meta":{"io.modelcontextprotocol/subscriptionId":"t"},"notifications":{}}`); got != want {
		t.Errorf("ack\n got %s\nwant %s", got, want)
	}
	fx.srv.EndSubscriptions()
	if got, want := read(), res(`"t"`, `{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":"t","io.modelcontextprotocol/serverInfo":`+fullInfo+`}}`); got != want {
		t.Errorf("end\n got %s\nwant %s", got, want)
	}
	client.Close()
	for {
		m, err := client.ReadMessage()
		if err != nil {
			break
		}
		t.Errorf("unexpected message: %s", m)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return")
	}
}
