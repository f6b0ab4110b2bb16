package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

func TestContentAppendJSON(t *testing.T) {
	link := mcp.ResourceLink("file:///a.txt", "a.txt", "text/plain")
	link.Title, link.Description, link.Size = "A", "the A file", 12
	text := mcp.TextContent("")
	text.Annotations = json.RawMessage(`{"audience":["user"]}`)
	text.Meta = json.RawMessage(`{"k":1}`)
	cases := []struct {
		c    mcp.Content
		want string
	}{
		{text, `{"type":"text","text":"","annotations":{"audience":["user"]},"_meta":{"k":1}}`},
		{mcp.ImageContent([]byte{1, 2, 3}, "image/png"), `{"type":"image","data":"AQID","mimeType":"image/png"}`},
		{mcp.AudioContent(nil, "audio/wav"), `{"type":"audio","data":"","mimeType":"audio/wav"}`},
		{mcp.EmbeddedText("test://r", "text/plain", "hi \"there\""), `{"type":"resource","resource":{"uri":"test://r","mimeType":"text/plain","text":"hi \"there\""}}`},
		{mcp.EmbeddedBlob("test://b", "", []byte("ab")), `{"type":"resource","resource":{"uri":"test://b","blob":"YWI="}}`},
		{link, `{"type":"resource_link","uri":"file:///a.txt","name":"a.txt","title":"A","description":"the A file","mimeType":"text/plain","size":12}`},
	}
	for _, c := range cases {
		if got := string(c.c.AppendJSON(nil)); got != c.want {
			t.Errorf("AppendJSON:\n got %s\nwant %s", got, c.want)
		}
		// encoding/json reads back what AppendJSON wrote, and writes it the same way.
		var back mcp.Content
		if err := json.Unmarshal([]byte(c.want), &back); err != nil {
			t.Fatal(err)
		}
		again, err := json.Marshal(back)
		if err != nil || string(again) != c.want {
			t.Errorf("round trip: got %s, %v; want %s", again, err, c.want)
		}
	}
	if got := string(mcp.ContentResult()); got != `{"content":[]}` {
		t.Errorf("ContentResult() = %s", got)
	}
	r := &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("x")}, IsError: true,
		StructuredContent: json.RawMessage(`{"a":1}`), Meta: json.RawMessage(`{"m":2}`)}
	want := `{"content":[{"type":"text","text":"x"}],"structuredContent":{"a":1},"isError":true,"_meta":{"m":2}}`
	if got, err := json.Marshal(r); err != nil || string(got) != want {
		t.Errorf("CallToolResult: got %s, %v; want %s", got, err, want)
	}
	var nilResult *mcp.CallToolResult
	if got, err := json.Marshal(nilResult); err != nil || string(got) != "null" {
		t.Errorf("nil CallToolResult: got %s, %v", got, err)
	}
}

// contentServer serves tools returning content, as generated code does.
func contentServer() *mcpserver.Server {
	mixed := []mcp.Content{
		mcp.TextContent("see:"),
		mcp.AudioContent([]byte("RIFF"), "audio/wav"),
		mcp.ResourceLink("test://doc", "doc", "text/markdown"),
		mcp.EmbeddedText("test://e", "application/json", `{"a":1}`),
	}
	mixed[0].Meta = json.RawMessage(`{"k":true}`)
	list := func(blocks []mcp.Content) mcpserver.ToolHandler {
		return func(context.Context, json.RawMessage) (json.RawMessage, error) {
			return mcp.AppendContentList(nil, blocks), nil
		}
	}
	srv := mcpserver.New(mcp.Implementation{Name: "c", Version: "1"}, nil)
	srv.AddTools(
		mcpserver.Tool{Name: "mixed", InputSchema: json.RawMessage(`{"type":"object"}`), Content: true, Handler: mcpserver.WrapContentList(list(mixed))},
		mcpserver.Tool{Name: "none", InputSchema: json.RawMessage(`{"type":"object"}`), Content: true, Handler: mcpserver.WrapContentList(list(nil))},
		mcpserver.Tool{Name: "one", InputSchema: json.RawMessage(`{"type":"object"}`), Content: true,
			Handler: mcpserver.WrapContent(func(context.Context, json.RawMessage) (json.RawMessage, error) {
				return mcp.TextContent("only").MarshalJSON()
			})},
		mcpserver.Tool{Name: "whole", InputSchema: json.RawMessage(`{"type":"object"}`), Content: true,
			Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) {
				return json.RawMessage(`{"content":[{"type":"text","text":"bad"}],"isError":true,"structuredContent":{"s":1},"resultType":"x","_meta":{"m":1,"io.modelcontextprotocol/serverInfo":0},"other":1}`), nil
			}},
		mcpserver.Tool{Name: "broken", InputSchema: json.RawMessage(`{"type":"object"}`), Content: true,
			Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) {
				return json.RawMessage(`{"content":{"type":"text"}}`), nil
			}},
		mcpserver.Tool{Name: "fails", InputSchema: json.RawMessage(`{"type":"object"}`), Content: true,
			Handler: mcpserver.WrapContent(func(context.Context, json.RawMessage) (json.RawMessage, error) {
				return nil, errors.New("no luck")
			})},
	)
	return srv
}

// callIn runs a tools/call of name in a session at version (2026-07-28:
// stateless) and returns the result member of the response.
func callIn(t *testing.T, srv *mcpserver.Server, version, name string) string {
	t.Helper()
	ctx := context.Background()
	ss := srv.NewSession()
	meta := ""
	if version == mcp.Version20260728 {
		meta = `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	} else {
		ss.Handle(ctx, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`), nil)
		ss.Handle(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), nil)
	}
	reply := ss.Handle(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+name+`"`+meta+`}}`), nil)
	var msg struct {
		Result json.RawMessage
		Error  json.RawMessage
	}
	if err := json.Unmarshal(reply, &msg); err != nil || msg.Error != nil {
		t.Fatalf("%s %s: reply %s (%v)", version, name, reply, err)
	}
	return string(msg.Result)
}

func TestContentToolResults(t *testing.T) {
	srv := contentServer()
	const (
		text      = `{"type":"text","text":"see:"}`
		textM     = `{"type":"text","text":"see:","_meta":{"k":true}}`
		audio     = `{"type":"audio","data":"UklGRg==","mimeType":"audio/wav"}`
		link      = `{"type":"resource_link","uri":"test://doc","name":"doc","mimeType":"text/markdown"}`
		emb       = `{"type":"resource","resource":{"uri":"test://e","mimeType":"application/json","text":"{\"a\":1}"}}`
		audioText = `{"type":"text","text":"[audio content (audio/wav, about 6 bytes) left out: the client's protocol revision has no audio blocks]"}`
		linkText  = `{"type":"text","text":"Resource: test://doc (doc), text/markdown"}`
		tail      = `,"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"c","version":"1"}}}`
	)
	cases := []struct{ version, tool, want string }{
		{"2024-11-05", "mixed", `{"content":[` + text + `,` + audioText + `,` + linkText + `,` + emb + `]}`},
		{"2025-03-26", "mixed", `{"content":[` + text + `,` + audio + `,` + linkText + `,` + emb + `]}`},
		{"2025-06-18", "mixed", `{"content":[` + textM + `,` + audio + `,` + link + `,` + emb + `]}`},
		{"2025-11-25", "mixed", `{"content":[` + textM + `,` + audio + `,` + link + `,` + emb + `]}`},
		{"2026-07-28", "mixed", `{"content":[` + textM + `,` + audio + `,` + link + `,` + emb + `]` + tail},
		{"2025-11-25", "none", `{"content":[]}`},
		{"2026-07-28", "none", `{"content":[]` + tail},
		{"2024-11-05", "one", `{"content":[{"type":"text","text":"only"}]}`},
		{"2024-11-05", "whole", `{"content":[{"type":"text","text":"bad"}],"isError":true,"_meta":{"m":1,"io.modelcontextprotocol/serverInfo":0}}`},
		{"2025-06-18", "whole", `{"content":[{"type":"text","text":"bad"}],"structuredContent":{"s":1},"isError":true,"_meta":{"m":1,"io.modelcontextprotocol/serverInfo":0}}`},
		{"2026-07-28", "whole", `{"content":[{"type":"text","text":"bad"}],"structuredContent":{"s":1},"isError":true,"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"c","version":"1"},"m":1}}`},
		{"2025-11-25", "broken", `{"content":[{"type":"text","text":"internal error in tool broken"}],"isError":true,"_meta":{"io.github.rpcgen/error":{"code":-32603,"message":"internal error in tool broken"}}}`},
		{"2025-11-25", "fails", `{"content":[{"type":"text","text":"no luck"}],"isError":true,"_meta":{"io.github.rpcgen/error":{"code":-32000,"message":"no luck"}}}`},
	}
	for _, c := range cases {
		if got := callIn(t, srv, c.version, c.tool); got != c.want {
			t.Errorf("%s %s:\n got %s\nwant %s", c.version, c.tool, got, c.want)
		}
	}
}

func TestCallToolContent(t *testing.T) {
	ctx := context.Background()
	for _, version := range []string{mcp.Version20241105, mcp.Version20251125, mcp.Version20260728} {
		c, err := mcpclient.ConnectTransport(ctx, contentServer().InProcess(), mcpclient.Options{ProtocolVersion: version})
		if err != nil {
			t.Fatal(err)
		}
		res, err := mcp.CallToolContent(ctx, c, "mixed", nil)
		if err != nil {
			t.Fatalf("%s: %v", version, err)
		}
		if len(res.Content) != 4 || res.Content[0].Text != "see:" || res.Content[3].Resource == nil || res.Content[3].Resource.Text != `{"a":1}` {
			t.Errorf("%s: content %+v", version, res.Content)
		}
		wantAudio := "audio"
		if version == mcp.Version20241105 {
			wantAudio = "text"
		}
		if res.Content[1].Type != wantAudio {
			t.Errorf("%s: audio block came as %q", version, res.Content[1].Type)
		}
		block, err := mcp.CallToolBlock(ctx, c, "one", map[string]any{})
		if err != nil || block.Type != "text" || block.Text != "only" {
			t.Errorf("%s: CallToolBlock = %+v, %v", version, block, err)
		}
		if _, err := mcp.CallToolBlock(ctx, c, "none", nil); err == nil || !strings.Contains(err.Error(), "returned no content") {
			t.Errorf("%s: CallToolBlock of no content: %v", version, err)
		}
		var te *mcp.ToolError
		if _, err := mcp.CallToolContent(ctx, c, "whole", nil); !errors.As(err, &te) || te.Text != "bad" {
			t.Errorf("%s: isError result: %v", version, err)
		}
		c.Close()
	}
	if _, err := mcp.CallToolContent(ctx, callerOnly{}, "x", nil); err == nil || !strings.Contains(err.Error(), "no CallToolRaw method") {
		t.Errorf("a ToolCaller without CallToolRaw: %v", err)
	}
}

type callerOnly struct{}

func (callerOnly) CallTool(context.Context, string, any, any) error { return nil }
