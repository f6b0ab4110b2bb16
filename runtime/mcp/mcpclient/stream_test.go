package mcpclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
)

func TestClientProgressOrder(t *testing.T) {
	for _, modern := range []bool{false, true} {
		tools := func(p *clientFakePeer, m clientFakeMsg) {
			var params struct {
				Meta struct {
					ProgressToken json.RawMessage `json:"progressToken"`
				} `json:"_meta"`
			}
			json.Unmarshal(m.Params, &params)
			tok := string(params.Meta.ProgressToken)
			if tok == "" {
				p.reply(m, `{"content":[],"structuredContent":{"sum":0}}`)
				return
			}
			// Another call's token, then this call's three, then one after the response.
			p.send(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"other","progress":9}}`)
			for i, msg := range []string{"one", "two", "three"} {
				p.send(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":` + tok +
					`,"progress":` + string(rune('1'+i)) + `,"total":3,"message":"` + msg + `"}}`)
			}
			p.reply(m, `{"content":[],"structuredContent":{"sum":1}}`)
			p.send(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":` + tok + `,"progress":4,"total":3}}`)
		}
		script := clientLegacyScript(mcp.Version20251125, tools)
		if modern {
			script = clientModernScript(tools)
		}
		peer, f := newClientFakePeer(t, script)
		c := clientConnect(t, f, mcpclient.Options{})
		var mu sync.Mutex
		var got []string
		res, err := c.CallToolRaw(context.Background(), mcp.CallToolParams{Name: "slow", OnProgress: func(pn mcp.ProgressNotification) {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, pn.Message)
			if pn.Total != 3 {
				t.Errorf("total %v", pn.Total)
			}
		}})
		if err != nil || string(res.StructuredContent) != `{"sum":1}` {
			t.Fatalf("CallToolRaw: %+v, %v", res, err)
		}
		mu.Lock()
		if want := []string{"one", "two", "three"}; !reflect.DeepEqual(got, want) {
			t.Errorf("modern %v: progress %q, want %q", modern, got, want)
		}
		mu.Unlock()
		// The late notification must not reach the callback either.
		c.CallTool(context.Background(), "sum", nil, nil)
		mu.Lock()
		if len(got) != 3 {
			t.Errorf("progress after the response reached the callback: %q", got)
		}
		mu.Unlock()
		if call := peer.waitFor("tools/call"); !strings.Contains(string(call.Params), `"progressToken":`) {
			t.Errorf("no progress token sent: %s", call.Params)
		}
	}
}

func TestClientCancel(t *testing.T) {
	for _, modern := range []bool{false, true} {
		started := make(chan struct{}, 1)
		tools := func(p *clientFakePeer, m clientFakeMsg) {
			if m.Method == "tools/list" {
				p.reply(m, `{"tools":[]}`)
				return
			}
			select { // tools/call never gets an answer
			case started <- struct{}{}:
			default:
			}
		}
		script := clientLegacyScript(mcp.Version20251125, tools)
		if modern {
			script = clientModernScript(tools)
		}
		peer, f := newClientFakePeer(t, script)
		c := clientConnect(t, f, mcpclient.Options{})
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			<-started
			cancel()
		}()
		err := c.CallTool(ctx, "hang", nil, nil)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("CallTool: %v", err)
		}
		call := peer.waitFor("tools/call")
		cancelled := peer.waitFor("notifications/cancelled")
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
			Reason    string          `json:"reason"`
		}
		json.Unmarshal(cancelled.Params, &p)
		if string(p.RequestID) != string(call.ID) || p.Reason == "" {
			t.Errorf("modern %v: cancelled %s for call %s", modern, cancelled.Params, call.ID)
		}
		if modern != (cancelled.meta(t)[mcp.MetaProtocolVersion] != nil) {
			t.Errorf("modern %v: cancelled _meta: %s", modern, cancelled.raw)
		}
		// A late answer to the cancelled call is dropped; the client still works.
		peer.reply(call, `{"content":[]}`)
		if _, err := c.ListTools(context.Background()); err != nil {
			t.Errorf("modern %v: after a late answer: %v", modern, err)
		}
		cancel()
	}
}

func TestClientCancelDeadline(t *testing.T) {
	_, f := newClientFakePeer(t, clientLegacyScript(mcp.Version20251125, func(p *clientFakePeer, m clientFakeMsg) {}))
	c := clientConnect(t, f, mcpclient.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := c.CallTool(ctx, "hang", nil, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("CallTool: %v", err)
	}
	if err := c.CallTool(ctx, "hang", nil, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("CallTool with an expired context: %v", err)
	}
}

func TestClientLogsAndServerRequests(t *testing.T) {
	logs := make(chan mcp.LogMessage, 4)
	var pingReply chan clientFakeMsg = make(chan clientFakeMsg, 2)
	peer, f := newClientFakePeer(t, clientLegacyScript(mcp.Version20251125, func(p *clientFakePeer, m clientFakeMsg) {
		if m.Method == "" { // the client's answers to our requests
			pingReply <- m
			return
		}
		p.send(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"db","data":{"rows":3}}}`)
		p.send(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
		p.send(`{"jsonrpc":"2.0","id":"s1","method":"ping"}`)
		p.send(`{"jsonrpc":"2.0","id":"s2","method":"sampling/createMessage","params":{}}`)
		p.send(`not json`)
		p.reply(m, `{"content":[]}`)
	}))
	c := clientConnect(t, f, mcpclient.Options{OnLog: func(m mcp.LogMessage) { logs <- m }})
	if err := c.CallTool(context.Background(), "x", nil, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-logs:
		if m.Level != "info" || m.Logger != "db" || string(m.Data) != `{"rows":3}` {
			t.Errorf("log %+v", m)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no log message")
	}
	answers := map[string]string{}
	for range 2 {
		select {
		case m := <-pingReply:
			if m.Error != nil {
				answers[string(m.ID)] = "error"
			} else {
				answers[string(m.ID)] = string(m.Result)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("answers so far %v; peer got %v", answers, peer.methods())
		}
	}
	if answers[`"s1"`] != "{}" || answers[`"s2"`] != "error" {
		t.Errorf("answers %v", answers)
	}
}

func TestClientClose(t *testing.T) {
	// The peer hangs up while a call waits.
	release := make(chan struct{})
	peer, f := newClientFakePeer(t, clientLegacyScript(mcp.Version20251125, func(p *clientFakePeer, m clientFakeMsg) {
		close(release)
	}))
	c := clientConnect(t, f, mcpclient.Options{})
	go func() {
		<-release
		peer.f.Close()
	}()
	if err := c.CallTool(context.Background(), "x", nil, nil); !errors.Is(err, runtime.ErrClosed) {
		t.Errorf("CallTool when the peer hangs up: %v", err)
	}
	if err := c.CallTool(context.Background(), "x", nil, nil); !errors.Is(err, runtime.ErrClosed) {
		t.Errorf("CallTool after the peer hung up: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}

	// Close while a call waits: once the peer has the call, which it never
	// answers.
	arrived := make(chan struct{})
	_, f = newClientFakePeer(t, clientLegacyScript(mcp.Version20251125, func(p *clientFakePeer, m clientFakeMsg) {
		close(arrived)
	}))
	c = clientConnect(t, f, mcpclient.Options{})
	done := make(chan error)
	go func() { done <- c.CallTool(context.Background(), "x", nil, nil) }()
	<-arrived
	c.Close()
	if err := <-done; !errors.Is(err, runtime.ErrClosed) {
		t.Errorf("CallTool during Close: %v", err)
	}
}

func TestClientConcurrentCalls(t *testing.T) {
	_, f := newClientFakePeer(t, clientModernScript(clientSumTool(true)))
	c := clientConnect(t, f, mcpclient.Options{})
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			var res clientSumResult
			if err := c.CallTool(context.Background(), "sum", clientSumArgs{i, i}, &res); err != nil || res.Sum != 2*i {
				t.Errorf("call %d: %+v, %v", i, res, err)
			}
		})
	}
	wg.Wait()
}

func TestClientBadOptions(t *testing.T) {
	_, f := newClientFakePeer(t, clientModernScript(nil))
	if _, err := mcpclient.Connect(context.Background(), f, mcpclient.Options{Capabilities: json.RawMessage(`[1]`)}); err == nil {
		t.Error("Connect accepted capabilities that are not an object")
	}
	peer, f := newClientFakePeer(t, clientModernScript(nil))
	clientConnect(t, f, mcpclient.Options{Capabilities: json.RawMessage("{\n \"sampling\": {}\n}")})
	discover := peer.waitFor("server/discover")
	if got := discover.meta(t)[mcp.MetaClientCapabilities]; string(got) != `{"sampling":{}}` {
		t.Errorf("capabilities sent: %s", got)
	}
}
