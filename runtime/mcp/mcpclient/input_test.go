package mcpclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
)

// clientInputOptions returns options whose handlers answer predictably:
// OnElicit accepts with {"name":"octocat"} (a *runtime.Error for the message
// "reject", a plain error for "fail"), OnSample answers "Paris", Roots lists
// one root.
func clientInputOptions() mcpclient.Options {
	return mcpclient.Options{
		OnElicit: func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			switch p.Message {
			case "reject":
				return nil, runtime.NewError(-1, "User rejected")
			case "fail":
				return nil, errors.New("no user here")
			}
			if p.Mode == "url" {
				return &mcp.ElicitResult{Action: "accept"}, nil
			}
			var schema struct {
				Properties map[string]json.RawMessage `json:"properties"`
			}
			if err := json.Unmarshal(p.RequestedSchema, &schema); err != nil || schema.Properties["name"] == nil {
				return nil, fmt.Errorf("unexpected schema %s", p.RequestedSchema)
			}
			return &mcp.ElicitResult{Action: "accept", Content: json.RawMessage(`{"name":"octocat"}`)}, nil
		},
		OnSample: func(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			if len(p.Messages) != 1 || p.Messages[0].Content.Text != "What is the capital of France?" || p.MaxTokens != 100 {
				return nil, fmt.Errorf("unexpected sampling params %+v", p)
			}
			return &mcp.CreateMessageResult{Role: "assistant", Content: mcp.TextContent("Paris"), Model: "m1", StopReason: "endTurn"}, nil
		},
		Roots: func(ctx context.Context) ([]mcp.Root, error) {
			return []mcp.Root{{URI: "file:///src", Name: "src"}}, nil
		},
	}
}

const (
	clientElicitParams = `{"message":"Your GitHub login?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}`
	clientSampleParams = `{"messages":[{"role":"user","content":{"type":"text","text":"What is the capital of France?"}}],"maxTokens":100}`
	clientElicitAnswer = `{"action":"accept","content":{"name":"octocat"}}`
	clientSampleAnswer = `{"role":"assistant","content":{"type":"text","text":"Paris"},"model":"m1","stopReason":"endTurn"}`
	clientRootsAnswer  = `{"roots":[{"uri":"file:///src","name":"src"}]}`
)

// clientSameJSON reports whether two JSON texts hold the same value.
func clientSameJSON(t *testing.T, got, want string) bool {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Errorf("invalid JSON %s: %v", got, err)
		return false
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("invalid JSON %s: %v", want, err)
	}
	return reflect.DeepEqual(g, w)
}

func TestClientDeclaresCapabilitiesForHandlers(t *testing.T) {
	all := clientInputOptions()
	onlyRoots := mcpclient.Options{Roots: all.Roots}
	explicit := clientInputOptions()
	explicit.Capabilities = json.RawMessage(`{"sampling":{}}`)
	for _, tc := range []struct {
		name string
		opts mcpclient.Options
		want string
	}{
		{"all", all, `{"elicitation":{"form":{},"url":{}},"roots":{"listChanged":false},"sampling":{}}`},
		{"roots", onlyRoots, `{"roots":{"listChanged":false}}`},
		{"none", mcpclient.Options{}, `{}`},
		{"explicit", explicit, `{"sampling":{}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Legacy: initialize's params.capabilities.
			peer, f := newClientFakePeer(t, clientLegacyScript(mcp.Version20251125, nil))
			opts := tc.opts
			opts.ProtocolVersion = mcp.Version20251125
			clientConnect(t, f, opts)
			var p struct {
				Capabilities json.RawMessage `json:"capabilities"`
			}
			json.Unmarshal(peer.waitFor("initialize").Params, &p)
			if string(p.Capabilities) != tc.want {
				t.Errorf("initialize capabilities %s, want %s", p.Capabilities, tc.want)
			}
			// Modern: every request's _meta.
			peer, f = newClientFakePeer(t, clientModernScript(nil))
			opts.ProtocolVersion = mcp.Version20260728
			clientConnect(t, f, opts)
			discover := peer.waitFor("server/discover")
			if got := discover.meta(t)[mcp.MetaClientCapabilities]; string(got) != tc.want {
				t.Errorf("_meta capabilities %s, want %s", got, tc.want)
			}
		})
	}
}

// clientAnswers collects the client's responses to the fake server's requests.
type clientAnswers struct {
	mu  sync.Mutex
	got map[string]clientFakeMsg
	ch  chan struct{}
}

func newClientAnswers() *clientAnswers {
	return &clientAnswers{got: map[string]clientFakeMsg{}, ch: make(chan struct{}, 100)}
}

func (a *clientAnswers) add(m clientFakeMsg) {
	a.mu.Lock()
	a.got[string(m.ID)] = m
	a.mu.Unlock()
	a.ch <- struct{}{}
}

// wait waits for the answers to ids (raw JSON ids).
func (a *clientAnswers) wait(t *testing.T, ids ...string) map[string]clientFakeMsg {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		a.mu.Lock()
		n := 0
		for _, id := range ids {
			if _, ok := a.got[id]; ok {
				n++
			}
		}
		got := make(map[string]clientFakeMsg, len(a.got))
		for k, v := range a.got {
			got[k] = v
		}
		a.mu.Unlock()
		if n == len(ids) {
			return got
		}
		select {
		case <-a.ch:
		case <-deadline:
			t.Fatalf("answers to %v never came; got %v", ids, got)
		}
	}
}

func TestClientLegacyServerRequests(t *testing.T) {
	answers := newClientAnswers()
	release := make(chan struct{})
	opts := clientInputOptions()
	elicit := opts.OnElicit
	opts.OnElicit = func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		if p.Message == "wait" {
			// Blocks until a later message reaches the client: this only
			// ends if handlers run off the reader.
			select {
			case <-release:
				return &mcp.ElicitResult{Action: "decline"}, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return elicit(ctx, p)
	}
	opts.OnLog = func(mcp.LogMessage) { close(release) }
	_, f := newClientFakePeer(t, clientLegacyScript(mcp.Version20251125, func(p *clientFakePeer, m clientFakeMsg) {
		if m.Method == "" {
			answers.add(m)
			return
		}
		if m.Method != "tools/call" {
			p.fail(m, clientMethodNotFound)
			return
		}
		go func() {
			p.send(`{"jsonrpc":"2.0","id":"w","method":"elicitation/create","params":{"message":"wait","requestedSchema":{"type":"object","properties":{}}}}`)
			p.send(`{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":` + clientElicitParams + `}`)
			p.send(`{"jsonrpc":"2.0","id":7,"method":"sampling/createMessage","params":` + clientSampleParams + `}`)
			p.send(`{"jsonrpc":"2.0","id":"r","method":"roots/list"}`)
			p.send(`{"jsonrpc":"2.0","id":"u","method":"tasks/list","params":{}}`)
			p.send(`{"jsonrpc":"2.0","id":"rej","method":"elicitation/create","params":{"message":"reject"}}`)
			p.send(`{"jsonrpc":"2.0","id":"fail","method":"elicitation/create","params":{"message":"fail"}}`)
			p.send(`{"jsonrpc":"2.0","id":"bad","method":"sampling/createMessage","params":{"messages":3}}`)
			p.send(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"go on"}}`)
			answers.wait(t, `"w"`, `"e1"`, `7`, `"r"`, `"u"`, `"rej"`, `"fail"`, `"bad"`)
			p.reply(m, `{"content":[{"type":"text","text":"done"}]}`)
		}()
	}))
	c := clientConnect(t, f, opts)
	res, err := c.CallToolRaw(context.Background(), mcp.CallToolParams{Name: "ask"})
	if err != nil || len(res.Content) != 1 || res.Content[0].Text != "done" {
		t.Fatalf("CallToolRaw: %+v, %v", res, err)
	}
	got := answers.wait(t)
	for id, want := range map[string]string{
		`"w"`:  `{"action":"decline"}`,
		`"e1"`: clientElicitAnswer,
		`7`:    clientSampleAnswer,
		`"r"`:  clientRootsAnswer,
	} {
		if m := got[id]; m.Error != nil || !clientSameJSON(t, string(m.Result), want) {
			t.Errorf("answer to %s: %s", id, m.raw)
		}
	}
	for id, code := range map[string]int64{`"u"`: -32601, `"rej"`: -1, `"fail"`: runtime.CodeInternalError, `"bad"`: runtime.CodeInvalidParams} {
		var e runtime.Error
		if m := got[id]; m.Result != nil || json.Unmarshal(m.Error, &e) != nil || e.Code != code {
			t.Errorf("answer to %s: %s, want error %d", id, m.raw, code)
		}
	}
}

// clientLogRecorder is a slog.Handler that passes each message to a channel.
type clientLogRecorder struct{ msgs chan string }

func (h clientLogRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (h clientLogRecorder) Handle(_ context.Context, r slog.Record) error {
	select {
	case h.msgs <- r.Message:
	default:
	}
	return nil
}
func (h clientLogRecorder) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h clientLogRecorder) WithGroup(string) slog.Handler      { return h }

func TestClientLegacyServerCancelsItsRequest(t *testing.T) {
	answers := newClientAnswers()
	started := make(chan struct{})
	logs := clientLogRecorder{make(chan string, 100)}
	opts := mcpclient.Options{
		Logger: slog.New(logs),
		OnElicit: func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			close(started)
			<-ctx.Done()
			return nil, ctx.Err()
		},
	}
	peer, f := newClientFakePeer(t, clientLegacyScript(mcp.Version20251125, func(p *clientFakePeer, m clientFakeMsg) {
		if m.Method == "" {
			answers.add(m)
		}
	}))
	clientConnect(t, f, opts)
	peer.send(`{"jsonrpc":"2.0","id":"c1","method":"elicitation/create","params":{"message":"hi"}}`)
	<-started
	peer.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c1","reason":"no longer needed"}}`)
	for msg := range logs.msgs {
		if msg == "mcp: the server cancelled its request" {
			break
		}
	}
	peer.send(`{"jsonrpc":"2.0","id":"p","method":"ping"}`)
	if got := answers.wait(t, `"p"`); len(got) != 1 {
		t.Errorf("the client answered a cancelled request: %v", got)
	}
}

func TestClientCloseEndsServerRequestHandlers(t *testing.T) {
	started := make(chan struct{})
	ended := make(chan error, 1)
	opts := mcpclient.Options{OnSample: func(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
		close(started)
		<-ctx.Done()
		ended <- ctx.Err()
		return nil, ctx.Err()
	}}
	peer, f := newClientFakePeer(t, clientLegacyScript(mcp.Version20251125, nil))
	c := clientConnect(t, f, opts)
	peer.send(`{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":` + clientSampleParams + `}`)
	<-started
	c.Close()
	if err := <-ended; !errors.Is(err, context.Canceled) {
		t.Errorf("handler context ended with %v", err)
	}
}
