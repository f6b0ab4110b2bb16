package mcpclient_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
)

// clientFakeMsg is one message the scripted peer received.
type clientFakeMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
	raw    string
}

// meta decodes params._meta.
func (m *clientFakeMsg) meta(t *testing.T) map[string]json.RawMessage {
	t.Helper()
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if len(m.Params) > 0 {
		if err := json.Unmarshal(m.Params, &p); err != nil {
			t.Fatalf("params of %s: %v", m.Method, err)
		}
	}
	return p.Meta
}

// clientFakePeer is a scripted server on one end of a runtime.Pipe: script answers
// each message by calling send zero or more times.
type clientFakePeer struct {
	t    *testing.T
	f    runtime.Framer
	mu   sync.Mutex
	got  []clientFakeMsg
	more chan struct{} // closed and replaced under mu when a message arrives
	done chan struct{}
}

func newClientFakePeer(t *testing.T, script func(p *clientFakePeer, m clientFakeMsg)) (*clientFakePeer, runtime.Framer) {
	t.Helper()
	client, server := runtime.Pipe()
	p := &clientFakePeer{t: t, f: server, more: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		for {
			raw, err := server.ReadMessage()
			if err != nil {
				return
			}
			var m clientFakeMsg
			if err := json.Unmarshal(raw, &m); err != nil {
				t.Errorf("peer got malformed JSON %s: %v", raw, err)
				continue
			}
			m.raw = string(raw)
			p.mu.Lock()
			p.got = append(p.got, m)
			close(p.more)
			p.more = make(chan struct{})
			p.mu.Unlock()
			script(p, m)
		}
	}()
	t.Cleanup(func() {
		server.Close()
		<-p.done
	})
	return p, client
}

func (p *clientFakePeer) send(msg string) {
	if err := p.f.WriteMessage([]byte(msg)); err != nil {
		p.t.Logf("peer write: %v", err)
	}
}

// reply answers m with the result JSON.
func (p *clientFakePeer) reply(m clientFakeMsg, result string) {
	p.send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":` + result + `}`)
}

// fail answers m with the error object JSON.
func (p *clientFakePeer) fail(m clientFakeMsg, errObj string) {
	p.send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":` + errObj + `}`)
}

// messages returns what the peer received so far.
func (p *clientFakePeer) messages() []clientFakeMsg {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]clientFakeMsg(nil), p.got...)
}

// methods lists the methods received so far, in order.
func (p *clientFakePeer) methods() []string {
	var ms []string
	for _, m := range p.messages() {
		ms = append(ms, m.Method)
	}
	return ms
}

// waitFor waits until the peer has received a message for method.
func (p *clientFakePeer) waitFor(method string) clientFakeMsg {
	p.t.Helper()
	return p.waitUntil(p.t, method, func(m clientFakeMsg) bool { return m.Method == method })
}

// waitUntil waits until the peer has received a message ok accepts, waking
// at each message it reads.
func (p *clientFakePeer) waitUntil(t *testing.T, what string, ok func(m clientFakeMsg) bool) clientFakeMsg {
	t.Helper()
	timeout := time.NewTimer(5 * time.Second)
	defer timeout.Stop()
	for {
		p.mu.Lock()
		got, more := p.got, p.more
		p.mu.Unlock()
		for _, m := range got {
			if ok(m) {
				return m
			}
		}
		select {
		case <-more:
			continue
		case <-p.done: // it read its last message
		case <-timeout.C:
		}
		for _, m := range p.messages() {
			if ok(m) {
				return m
			}
		}
		t.Fatalf("peer never received %s; got %v", what, p.methods())
		return clientFakeMsg{}
	}
}

const (
	clientDiscoverResult = `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{},"logging":{}},` +
		`"instructions":"be nice","ttlMs":0,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"fake","version":"1.0"}}}`
	clientMethodNotFound = `{"code":-32601,"message":"Method not found"}`
)

// clientLegacyScript answers like a legacy server at version: server/discover is
// unknown, initialize negotiates version.
func clientLegacyScript(version string, tools func(p *clientFakePeer, m clientFakeMsg)) func(p *clientFakePeer, m clientFakeMsg) {
	return func(p *clientFakePeer, m clientFakeMsg) {
		switch m.Method {
		case "server/discover":
			p.fail(m, clientMethodNotFound)
		case "initialize":
			p.reply(m, `{"protocolVersion":"`+version+`","capabilities":{"tools":{}},"serverInfo":{"name":"old","version":"0.1"},"instructions":"hi"}`)
		case "ping", "logging/setLevel":
			p.reply(m, `{}`)
		case "notifications/initialized", "notifications/cancelled":
		default:
			if tools != nil {
				tools(p, m)
			} else if m.ID != nil {
				p.fail(m, clientMethodNotFound)
			}
		}
	}
}

// clientModernScript answers like a modern-only server.
func clientModernScript(tools func(p *clientFakePeer, m clientFakeMsg)) func(p *clientFakePeer, m clientFakeMsg) {
	return func(p *clientFakePeer, m clientFakeMsg) {
		switch m.Method {
		case "server/discover":
			p.reply(m, clientDiscoverResult)
		case "initialize":
			p.fail(m, `{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"2025-11-25"}}`)
		case "notifications/cancelled":
		default:
			if tools != nil {
				tools(p, m)
			} else if m.ID != nil {
				p.fail(m, clientMethodNotFound)
			}
		}
	}
}

func clientConnect(t *testing.T, f runtime.Framer, opts mcpclient.Options) *mcpclient.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := mcpclient.Connect(ctx, f, opts)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}
