package mcpclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
)

// clientFeatureServer answers resources, prompts and completions like a
// legacy server: lists come in two pages (cursor "p2"), an unknown resource
// is -32002 with data {uri}.
func clientFeatureServer(p *clientFakePeer, m clientFakeMsg) {
	var params struct {
		Cursor    string            `json:"cursor"`
		URI       string            `json:"uri"`
		Name      string            `json:"name"`
		Arguments map[string]string `json:"arguments"`
	}
	json.Unmarshal(m.Params, &params)
	page := func(first, second string) {
		if params.Cursor == "" {
			p.reply(m, first)
		} else if params.Cursor == "p2" {
			p.reply(m, second)
		} else {
			p.fail(m, `{"code":-32602,"message":"bad cursor"}`)
		}
	}
	switch m.Method {
	case "resources/list":
		page(`{"resources":[{"uri":"test://a","name":"a","mimeType":"text/plain"}],"nextCursor":"p2"}`,
			`{"resources":[{"uri":"test://b","name":"b","size":3}]}`)
	case "resources/templates/list":
		page(`{"resourceTemplates":[],"nextCursor":"p2"}`,
			`{"resourceTemplates":[{"uriTemplate":"test://t/{id}","name":"t"}]}`)
	case "prompts/list":
		page(`{"prompts":[{"name":"greet","arguments":[{"name":"who","required":true}]}],"nextCursor":"p2"}`,
			`{"prompts":[{"name":"bye"}],"nextCursor":null}`)
	case "resources/read":
		if params.URI != "test://a" {
			p.fail(m, `{"code":-32002,"message":"Resource not found","data":{"uri":`+clientQuote(params.URI)+`}}`)
			return
		}
		p.reply(m, `{"contents":[{"uri":"test://a","mimeType":"text/plain","text":"A"},{"uri":"test://a#2","blob":"AAE="}]}`)
	case "prompts/get":
		if params.Name != "greet" || params.Arguments["who"] == "" {
			p.fail(m, `{"code":-32602,"message":"missing argument who"}`)
			return
		}
		p.reply(m, `{"description":"a greeting","messages":[{"role":"user","content":{"type":"text","text":"hello `+params.Arguments["who"]+`"}}]}`)
	case "completion/complete":
		p.reply(m, `{"completion":{"values":["alpha","alps"],"total":5,"hasMore":true}}`)
	case "resources/subscribe", "resources/unsubscribe":
		p.reply(m, `{}`)
	default:
		p.fail(m, clientMethodNotFound)
	}
}

func TestClientFeatureLists(t *testing.T) {
	peer, f := newClientFakePeer(t, clientLegacyScript(mcp.Version20251125, clientFeatureServer))
	c := clientConnect(t, f, mcpclient.Options{})
	ctx := context.Background()
	rs, err := c.ListResources(ctx)
	want := []mcp.ResourceInfo{{URI: "test://a", Name: "a", MIMEType: "text/plain"}, {URI: "test://b", Name: "b", Size: 3}}
	if err != nil || !reflect.DeepEqual(rs, want) {
		t.Errorf("ListResources: %+v, %v", rs, err)
	}
	ts, err := c.ListResourceTemplates(ctx)
	if err != nil || len(ts) != 1 || ts[0].URITemplate != "test://t/{id}" || ts[0].Name != "t" {
		t.Errorf("ListResourceTemplates: %+v, %v", ts, err)
	}
	ps, err := c.ListPrompts(ctx)
	if err != nil || len(ps) != 2 || ps[0].Name != "greet" || !ps[0].Arguments[0].Required || ps[1].Name != "bye" {
		t.Errorf("ListPrompts: %+v, %v", ps, err)
	}
	var cursors []string
	for _, m := range peer.messages() {
		if strings.HasSuffix(m.Method, "/list") {
			var p struct {
				Cursor *string `json:"cursor"`
			}
			json.Unmarshal(m.Params, &p)
			if p.Cursor == nil {
				cursors = append(cursors, m.Method+" -")
			} else {
				cursors = append(cursors, m.Method+" "+*p.Cursor)
			}
		}
	}
	wantCursors := []string{"resources/list -", "resources/list p2", "resources/templates/list -", "resources/templates/list p2", "prompts/list -", "prompts/list p2"}
	if !reflect.DeepEqual(cursors, wantCursors) {
		t.Errorf("list requests %v, want %v", cursors, wantCursors)
	}
}

func TestClientListRepeatedCursor(t *testing.T) {
	_, f := newClientFakePeer(t, clientModernScript(func(p *clientFakePeer, m clientFakeMsg) {
		p.reply(m, `{"resultType":"complete","prompts":[{"name":"x"}],"nextCursor":"same"}`)
	}))
	c := clientConnect(t, f, mcpclient.Options{ProtocolVersion: mcp.Version20260728})
	if _, err := c.ListPrompts(context.Background()); err == nil || !strings.Contains(err.Error(), "repeated cursor") {
		t.Errorf("ListPrompts: %v", err)
	}
}

func TestClientReadResourceAndGetPrompt(t *testing.T) {
	peer, f := newClientFakePeer(t, clientLegacyScript(mcp.Version20251125, clientFeatureServer))
	c := clientConnect(t, f, mcpclient.Options{})
	ctx := context.Background()
	contents, err := c.ReadResource(ctx, "test://a")
	want := []mcp.ResourceContents{{URI: "test://a", MIMEType: "text/plain", Text: "A"}, {URI: "test://a#2", Blob: "AAE="}}
	if err != nil || !reflect.DeepEqual(contents, want) {
		t.Errorf("ReadResource: %+v, %v", contents, err)
	}
	read := peer.waitFor("resources/read")
	if !clientSameJSON(t, string(read.Params), `{"uri":"test://a"}`) {
		t.Errorf("resources/read params %s", read.Params)
	}
	_, err = c.ReadResource(ctx, "test://none")
	var rpcErr *runtime.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32002 || string(rpcErr.Data) != `{"uri":"test://none"}` {
		t.Errorf("ReadResource of an unknown resource: %v", err)
	}

	res, err := c.GetPrompt(ctx, "greet", map[string]string{"who": "Ann"})
	if err != nil || res.Description != "a greeting" || len(res.Messages) != 1 ||
		res.Messages[0].Role != "user" || res.Messages[0].Content.Text != "hello Ann" {
		t.Errorf("GetPrompt: %+v, %v", res, err)
	}
	get := peer.waitFor("prompts/get")
	if !clientSameJSON(t, string(get.Params), `{"name":"greet","arguments":{"who":"Ann"}}`) {
		t.Errorf("prompts/get params %s", get.Params)
	}
	if _, err := c.GetPrompt(ctx, "greet", nil); !errors.As(err, &rpcErr) || rpcErr.Code != runtime.CodeInvalidParams {
		t.Errorf("GetPrompt without its argument: %v", err)
	}
}

func TestClientComplete(t *testing.T) {
	peer, f := newClientFakePeer(t, clientModernScript(func(p *clientFakePeer, m clientFakeMsg) {
		switch m.Method {
		case "completion/complete":
			p.reply(m, `{"resultType":"complete","completion":{"values":["alpha","alps"],"total":5,"hasMore":true}}`)
		default:
			p.fail(m, clientMethodNotFound)
		}
	}))
	c := clientConnect(t, f, mcpclient.Options{ProtocolVersion: mcp.Version20260728})
	ctx := context.Background()
	got, err := c.Complete(ctx, mcp.CompletionRef{Type: "ref/resource", URI: "test://t/{id}"}, "id", "al", map[string]string{"kind": "x"})
	if err != nil || !reflect.DeepEqual(got, &mcp.Completion{Values: []string{"alpha", "alps"}, Total: 5, HasMore: true}) {
		t.Errorf("Complete: %+v, %v", got, err)
	}
	m := peer.waitFor("completion/complete")
	var params map[string]json.RawMessage
	json.Unmarshal(m.Params, &params)
	delete(params, "_meta")
	b, _ := json.Marshal(params)
	if !clientSameJSON(t, string(b), `{"ref":{"type":"ref/resource","uri":"test://t/{id}"},"argument":{"name":"id","value":"al"},"context":{"arguments":{"kind":"x"}}}`) {
		t.Errorf("completion/complete params %s", b)
	}
	if _, err := c.Complete(ctx, mcp.CompletionRef{Name: "p"}, "a", "", nil); err == nil {
		t.Error("Complete accepted a ref with no type")
	}
}

func TestClientSubscribeAndNotifications(t *testing.T) {
	var mu sync.Mutex
	var heard []string
	got := make(chan struct{}, 10)
	opts := mcpclient.Options{
		OnResourceUpdated: func(uri string) {
			mu.Lock()
			heard = append(heard, "updated "+uri)
			mu.Unlock()
			got <- struct{}{}
		},
		OnListChanged: func(method string) {
			mu.Lock()
			heard = append(heard, method)
			mu.Unlock()
			got <- struct{}{}
		},
	}
	peer, f := newClientFakePeer(t, clientLegacyScript(mcp.Version20251125, func(p *clientFakePeer, m clientFakeMsg) {
		if m.Method == "resources/subscribe" {
			p.send(`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://a"}}`)
			p.send(`{"jsonrpc":"2.0","method":"notifications/resources/list_changed"}`)
			p.send(`{"jsonrpc":"2.0","method":"notifications/prompts/list_changed","params":{}}`)
			p.send(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
			p.send(`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{}}`) // malformed: dropped
		}
		clientFeatureServer(p, m)
	}))
	c := clientConnect(t, f, opts)
	ctx := context.Background()
	if err := c.Subscribe(ctx, "test://a"); err != nil {
		t.Fatal(err)
	}
	for range 4 {
		select {
		case <-got:
		case <-time.After(5 * time.Second):
			t.Fatal("notifications missing")
		}
	}
	if err := c.Unsubscribe(ctx, "test://a"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	want := []string{"updated test://a", "notifications/resources/list_changed", "notifications/prompts/list_changed", "notifications/tools/list_changed"}
	if !reflect.DeepEqual(heard, want) {
		t.Errorf("heard %v, want %v", heard, want)
	}
	mu.Unlock()
	for _, method := range []string{"resources/subscribe", "resources/unsubscribe"} {
		if m := peer.waitFor(method); !clientSameJSON(t, string(m.Params), `{"uri":"test://a"}`) {
			t.Errorf("%s params %s", method, m.Params)
		}
	}
}

// clientWaitUntil waits until the peer has received a message ok accepts.
func clientWaitUntil(t *testing.T, p *clientFakePeer, what string, ok func(m clientFakeMsg) bool) clientFakeMsg {
	t.Helper()
	return p.waitUntil(t, what, ok)
}

func TestClientModernSubscribe(t *testing.T) {
	updated := make(chan string, 10)
	peer, f := newClientFakePeer(t, clientModernScript(func(p *clientFakePeer, m clientFakeMsg) {
		if m.Method != "subscriptions/listen" {
			return
		}
		var params struct {
			Notifications struct {
				URIs []string `json:"resourceSubscriptions"`
			} `json:"notifications"`
		}
		json.Unmarshal(m.Params, &params)
		if slices.Contains(params.Notifications.URIs, "test://refused") {
			p.fail(m, `{"code":-32602,"message":"no such resource"}`)
			return
		}
		meta := `"_meta":{"io.modelcontextprotocol/subscriptionId":` + string(m.ID) + `}`
		filter, _ := json.Marshal(params.Notifications)
		p.send(`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":` + string(filter) + `,` + meta + `}}`)
		for _, uri := range params.Notifications.URIs {
			p.send(`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":` + clientQuote(uri) + `,` + meta + `}}`)
		}
	}))
	c := clientConnect(t, f, mcpclient.Options{
		ProtocolVersion:   mcp.Version20260728,
		OnResourceUpdated: func(uri string) { updated <- uri },
	})
	ctx := context.Background()
	listens := func() []clientFakeMsg {
		var ls []clientFakeMsg
		for _, m := range peer.messages() {
			if m.Method == "subscriptions/listen" {
				ls = append(ls, m)
			}
		}
		return ls
	}
	cancelled := func(id json.RawMessage) {
		t.Helper()
		clientWaitUntil(t, peer, "notifications/cancelled for "+string(id), func(m clientFakeMsg) bool {
			var p struct {
				RequestID json.RawMessage `json:"requestId"`
			}
			json.Unmarshal(m.Params, &p)
			return m.Method == "notifications/cancelled" && string(p.RequestID) == string(id)
		})
	}

	if err := c.Subscribe(ctx, "test://a"); err != nil {
		t.Fatal(err)
	}
	if uri := <-updated; uri != "test://a" {
		t.Errorf("updated %s", uri)
	}
	if err := c.Subscribe(ctx, "test://b"); err != nil {
		t.Fatal(err)
	}
	ls := listens()
	if len(ls) != 2 || !clientSameJSON(t, string(ls[1].Params), `{"notifications":{"resourceSubscriptions":["test://a","test://b"]},"_meta":`+clientMetaOf(t, ls[1])+`}`) {
		t.Fatalf("listens %v", ls)
	}
	cancelled(ls[0].ID) // the first stream ends once the second is acknowledged
	if err := c.Subscribe(ctx, "test://refused"); err == nil {
		t.Error("Subscribe succeeded though the server refused the stream")
	}
	if err := c.Unsubscribe(ctx, "test://a"); err != nil {
		t.Fatal(err)
	}
	if err := c.Unsubscribe(ctx, "test://b"); err != nil {
		t.Fatal(err)
	}
	ls = listens()
	if len(ls) != 4 { // a+b, a+b+refused, b
		t.Fatalf("%d listens, want 4", len(ls))
	}
	cancelled(ls[1].ID)
	cancelled(ls[3].ID) // nothing left to hear: no new stream
}

// clientMetaOf returns m's params._meta as JSON text.
func clientMetaOf(t *testing.T, m clientFakeMsg) string {
	b, _ := json.Marshal(m.meta(t))
	return string(b)
}

// clientScriptedTransport is a ClientTransport whose server speaks
// 2025-11-25 and, on tools/call, asks the client to elicit before answering,
// as a Streamable HTTP server does on the call's event stream.
type clientScriptedTransport struct {
	answers chan []byte
}

func (tr *clientScriptedTransport) RoundTrip(ctx context.Context, id int64, msg []byte, incoming func([]byte)) ([]byte, error) {
	var req struct {
		Method string `json:"method"`
	}
	json.Unmarshal(msg, &req)
	reply := func(result string) []byte {
		return []byte(`{"jsonrpc":"2.0","id":` + strconv.FormatInt(id, 10) + `,"result":` + result + `}`)
	}
	switch req.Method {
	case "server/discover":
		return []byte(`{"jsonrpc":"2.0","id":` + strconv.FormatInt(id, 10) + `,"error":` + clientMethodNotFound + `}`), nil
	case "initialize":
		return reply(`{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"http","version":"1"}}`), nil
	case "tools/call":
		incoming([]byte(`{"jsonrpc":"2.0","id":"e","method":"elicitation/create","params":` + clientElicitParams + `}`))
		select {
		case a := <-tr.answers:
			return reply(`{"content":[{"type":"text","text":` + clientQuote(string(a)) + `}]}`), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return reply(`{}`), nil
}

func (tr *clientScriptedTransport) Send(ctx context.Context, msg []byte) error {
	var m struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(msg, &m) == nil && m.Method == "" {
		tr.answers <- msg
	}
	return nil
}

func (tr *clientScriptedTransport) Close() error { return nil }

func TestClientTransportAnswersServerRequests(t *testing.T) {
	tr := &clientScriptedTransport{answers: make(chan []byte, 1)}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := mcpclient.ConnectTransport(ctx, tr, clientInputOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := c.CallToolRaw(ctx, mcp.CallToolParams{Name: "ask"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 1 || !clientSameJSON(t, res.Content[0].Text, `{"jsonrpc":"2.0","id":"e","result":`+clientElicitAnswer+`}`) {
		t.Errorf("the transport got %+v", res.Content)
	}
}
