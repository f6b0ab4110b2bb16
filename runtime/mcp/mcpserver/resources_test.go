package mcpserver_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// newFeatureFixture is the tool fixture plus resources, resource templates
// and prompts (page size 2, list TTL 90s).
func newFeatureFixture(t testing.TB) *fixture {
	fx := newFixture(t)
	text := func(s string) mcpserver.ResourceHandler {
		return func(_ context.Context, req *mcpserver.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{MIMEType: "text/plain", Text: s}}, nil
		}
	}
	fx.srv.AddResources(
		mcpserver.Resource{URI: "test://a", Name: "a", Title: "A", Description: "The letter a.", MIMEType: "text/plain", Size: 5,
			Annotations: json.RawMessage(`{ "priority": 0.5 }`), Handler: text("alpha")},
		mcpserver.Resource{URI: "test://b", Name: "b", MIMEType: "application/octet-stream",
			Handler: func(_ context.Context, req *mcpserver.ReadResourceRequest) ([]mcp.ResourceContents, error) {
				return []mcp.ResourceContents{{URI: req.URI, MIMEType: "application/octet-stream", Blob: base64.StdEncoding.EncodeToString([]byte{0, 1, 2, 255})}}, nil
			}},
		mcpserver.Resource{URI: "file:///docs/readme.md", Name: "readme", Handler: text("# Readme")},
		mcpserver.Resource{URI: "test://gone", Name: "gone", Handler: func(context.Context, *mcpserver.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return nil, mcpserver.ResourceNotFound("test://gone")
		}},
		mcpserver.Resource{URI: "test://broken", Name: "broken", Handler: func(context.Context, *mcpserver.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return nil, errors.New("disk on fire")
		}},
	)
	ids := make([]string, 150)
	for i := range ids {
		ids[i] = fmt.Sprintf("n%03d", i)
	}
	fx.srv.AddResourceTemplates(
		mcpserver.ResourceTemplate{URITemplate: "notes://{id}", Name: "note", Title: "Note", MIMEType: "application/json",
			Handler: func(_ context.Context, req *mcpserver.ReadResourceRequest) ([]mcp.ResourceContents, error) {
				if !strings.HasPrefix(req.Vars["id"], "n") {
					return nil, mcpserver.ResourceNotFound(req.URI)
				}
				return []mcp.ResourceContents{{URI: req.URI, MIMEType: "application/json", Text: `{"id":"` + req.Vars["id"] + `"}`}}, nil
			},
			Complete: func(_ context.Context, req *mcpserver.CompleteRequest) (*mcp.Completion, error) {
				var out []string
				for _, id := range ids {
					if strings.HasPrefix(id, req.Value) {
						out = append(out, id)
					}
				}
				return &mcp.Completion{Values: out}, nil
			}},
		mcpserver.ResourceTemplate{URITemplate: "file:///docs/{name}", Name: "doc",
			Handler: func(_ context.Context, req *mcpserver.ReadResourceRequest) ([]mcp.ResourceContents, error) {
				return []mcp.ResourceContents{{Text: "doc " + req.Vars["name"]}}, nil
			}},
	)
	fx.srv.AddPrompts(
		mcpserver.Prompt{Name: "greet", Title: "Greet", Description: "Greets someone.",
			Arguments: []mcp.PromptArgument{{Name: "name", Title: "Name", Description: "Who.", Required: true}, {Name: "style"}},
			Handler: func(_ context.Context, args map[string]string) (*mcp.GetPromptResult, error) {
				s := "Hello " + args["name"]
				if st, ok := args["style"]; ok {
					s += " (" + st + ")"
				}
				return &mcp.GetPromptResult{Description: "A greeting", Messages: []mcp.PromptMessage{
					{Role: "user", Content: mcp.TextContent(s)},
					{Role: "assistant", Content: mcp.ResourceLink("test://a", "a", "text/plain")},
				}, Meta: json.RawMessage(`{"x":1}`)}, nil
			},
			Complete: func(_ context.Context, req *mcpserver.CompleteRequest) (*mcp.Completion, error) {
				if req.Argument != "style" {
					return nil, nil
				}
				v := []string{"formal", "friendly"}
				if req.Context["name"] == "Bob" {
					v = append(v, "bobbish")
				}
				return &mcp.Completion{Values: v, Total: 7, HasMore: true}, nil
			}},
		mcpserver.Prompt{Name: "plain", Arguments: []mcp.PromptArgument{{Name: "x"}}, Handler: func(context.Context, map[string]string) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: "user", Content: mcp.TextContent("plain")}}}, nil
		}},
		mcpserver.Prompt{Name: "fail", Handler: func(context.Context, map[string]string) (*mcp.GetPromptResult, error) {
			return nil, errors.New("no prompt today")
		}},
	)
	return fx
}

const (
	featureCaps = `"capabilities":{"tools":{"listChanged":true},"logging":{},"resources":{"subscribe":true,"listChanged":true},"prompts":{"listChanged":true},"completions":{}}`
	resA        = `{"uri":"test://a","name":"a","title":"A","description":"The letter a.","mimeType":"text/plain","size":5,"annotations":{"priority":0.5}}`
	resAOld     = `{"uri":"test://a","name":"a","description":"The letter a.","mimeType":"text/plain","size":5,"annotations":{"priority":0.5}}`
	resB        = `{"uri":"test://b","name":"b","mimeType":"application/octet-stream"}`
	resReadme   = `{"uri":"file:///docs/readme.md","name":"readme"}`
	resGone     = `{"uri":"test://gone","name":"gone"}`
	resBroken   = `{"uri":"test://broken","name":"broken"}`
	tmplNote    = `{"uriTemplate":"notes://{id}","name":"note","title":"Note","mimeType":"application/json"}`
	tmplDoc     = `{"uriTemplate":"file:///docs/{name}","name":"doc"}`
	promptGreet = `{"name":"greet","title":"Greet","description":"Greets someone.","arguments":[{"name":"name","title":"Name","description":"Who.","required":true},{"name":"style"}]}`
	promptPlain = `{"name":"plain","arguments":[{"name":"x"}]}`
	promptFail  = `{"name":"fail"}`
	blobB       = `{"uri":"test://b","mimeType":"application/octet-stream","blob":"AAEC/w=="}`
	readCacheJS = `,"ttlMs":0,"cacheScope":"private"`
)

func cursorFor(prefix string, n int) string {
	return base64.RawURLEncoding.EncodeToString(fmt.Appendf(nil, "%s%d", prefix, n))
}

func req(id, method, params string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":` + params + `}`
}

// legacyFeatureSession returns a Handle driver for a session initialized at
// version.
func legacyFeatureSession(t *testing.T, fx *fixture, version string, want string) *handleDriver {
	d := &handleDriver{ss: fx.srv.NewSession()}
	got := d.exchange(t, req("0", "initialize", `{"protocolVersion":"`+version+`","capabilities":{}}`), 1)
	if len(got) != 1 || !strings.Contains(got[0], want) {
		t.Fatalf("initialize: %v\nwant capabilities %s", got, want)
	}
	return d
}

func TestResourcesLegacyWire(t *testing.T) {
	fx := newFeatureFixture(t)
	for _, drv := range drivers {
		t.Run(drv.name, func(t *testing.T) {
			d := drv.new(t, fx.srv)
			expect(t, d, req("0", "initialize", `{"protocolVersion":"2025-11-25","capabilities":{}}`),
				res("0", `{"protocolVersion":"2025-11-25",`+featureCaps+`,"serverInfo":`+fullInfo+`,"instructions":"Use search first."}`))
			c2 := cursorFor("resources/list:", 2)
			c4 := cursorFor("resources/list:", 4)
			expect(t, d, req("1", "resources/list", `{}`), res("1", `{"resources":[`+resA+`,`+resB+`],"nextCursor":"`+c2+`"}`))
			expect(t, d, req("2", "resources/list", `{"cursor":"`+c2+`"}`), res("2", `{"resources":[`+resReadme+`,`+resGone+`],"nextCursor":"`+c4+`"}`))
			expect(t, d, req("3", "resources/list", `{"cursor":"`+c4+`"}`), res("3", `{"resources":[`+resBroken+`]}`))
			expect(t, d, req("4", "resources/list", `{"cursor":"`+cursorFor("tools/list:", 2)+`"}`), errRes("4", "-32602", `"invalid params: invalid cursor"`))
			expect(t, d, req("5", "resources/templates/list", `{}`), res("5", `{"resourceTemplates":[`+tmplNote+`,`+tmplDoc+`]}`))

			expect(t, d, req("6", "resources/read", `{"uri":"test://a"}`), res("6", `{"contents":[{"uri":"test://a","mimeType":"text/plain","text":"alpha"}]}`))
			expect(t, d, req("7", "resources/read", `{"uri":"test://b"}`), res("7", `{"contents":[`+blobB+`]}`))
			expect(t, d, req("8", "resources/read", `{"uri":"notes://n042"}`), res("8", `{"contents":[{"uri":"notes://n042","mimeType":"application/json","text":"{\"id\":\"n042\"}"}]}`))
			expect(t, d, req("9", "resources/read", `{"uri":"file:///docs/a%20b"}`), res("9", `{"contents":[{"uri":"file:///docs/a%20b","text":"doc a b"}]}`))
			// A file URI is cleaned before it is looked up.
			expect(t, d, req("10", "resources/read", `{"uri":"file:///docs/./readme.md"}`), res("10", `{"contents":[{"uri":"file:///docs/readme.md","mimeType":"text/plain","text":"# Readme"}]}`))
			expect(t, d, req("11", "resources/read", `{"uri":"test://nope"}`),
				`{"jsonrpc":"2.0","id":11,"error":{"code":-32002,"message":"Resource not found","data":{"uri":"test://nope"}}}`)
			expect(t, d, req("12", "resources/read", `{"uri":"notes://x1"}`),
				`{"jsonrpc":"2.0","id":12,"error":{"code":-32002,"message":"Resource not found","data":{"uri":"notes://x1"}}}`)
			expect(t, d, req("13", "resources/read", `{"uri":"test://gone"}`),
				`{"jsonrpc":"2.0","id":13,"error":{"code":-32002,"message":"Resource not found","data":{"uri":"test://gone"}}}`)
			expect(t, d, req("14", "resources/read", `{"uri":"test://broken"}`), errRes("14", "-32603", `"disk on fire"`))
			expect(t, d, req("15", "resources/read", `{"uri":"file:///docs/../etc/passwd"}`),
				errRes("15", "-32602", `"invalid params: uri \"file:///docs/../etc/passwd\": path traversal is not allowed"`))
			expect(t, d, req("16", "resources/read", `{"uri":"file:///docs/%2e%2e/etc/passwd"}`),
				errRes("16", "-32602", `"invalid params: uri \"file:///docs/%2e%2e/etc/passwd\": path traversal is not allowed"`))
			expect(t, d, req("17", "resources/read", `{"uri":"no scheme"}`),
				errRes("17", "-32602", `"invalid params: uri \"no scheme\" holds a control character or a space"`))
			expect(t, d, req("18", "resources/read", `{"uri":"relative/path"}`),
				errRes("18", "-32602", `"invalid params: uri \"relative/path\" is not absolute (no scheme)"`))
			expect(t, d, req("19", "resources/read", `{}`), errRes("19", "-32602", `"invalid params: missing \"uri\""`))
			expect(t, d, req("20", "resources/read", `{"uri":7}`), errRes("20", "-32602", `"invalid params: \"uri\" must be a string"`))
			// A template variable must decode to text: control characters and
			// invalid UTF-8 never reach the handler.
			for i, v := range []string{"n%0a", "n%0d%0a", "n%09", "n%7f", "n%c2%85", "n%ff", "n%c0%ae"} {
				id := fmt.Sprint(30 + i)
				expect(t, d, req(id, "resources/read", `{"uri":"notes://`+v+`"}`),
					errRes(id, "-32602", `"invalid params: uri \"notes://`+v+`\": the value of {id} decodes to a control character or invalid UTF-8"`))
			}
			expect(t, d, req("40", "resources/read", `{"uri":"notes://n%20%C3%A9"}`),
				res("40", `{"contents":[{"uri":"notes://n%20%C3%A9","mimeType":"application/json","text":"{\"id\":\"n é\"}"}]}`))
			// Subscriptions are a legacy method only.
			expect(t, d, req("21", "resources/subscribe", `{"uri":"test://nope"}`),
				`{"jsonrpc":"2.0","id":21,"error":{"code":-32002,"message":"Resource not found","data":{"uri":"test://nope"}}}`)
			expect(t, d, req("22", "resources/subscribe", `{"uri":"notes://n1"}`), res("22", `{}`))
			expect(t, d, req("23", "resources/unsubscribe", `{"uri":"notes://n1"}`), res("23", `{}`))
			d.finish(t)
		})
	}
}

func TestResourcesOldRevisions(t *testing.T) {
	fx := newFeatureFixture(t)
	// 2024-11-05: no titles, no completions capability.
	d := legacyFeatureSession(t, fx, "2024-11-05", `"capabilities":{"tools":{"listChanged":true},"logging":{},"resources":{"subscribe":true,"listChanged":true},"prompts":{"listChanged":true}}`)
	expect(t, d, req("1", "resources/list", `{}`), res("1", `{"resources":[`+resAOld+`,`+resB+`],"nextCursor":"`+cursorFor("resources/list:", 2)+`"}`))
	expect(t, d, req("2", "prompts/list", `{}`), res("2", `{"prompts":[{"name":"greet","description":"Greets someone.","arguments":[{"name":"name","description":"Who.","required":true},{"name":"style"}]},`+promptPlain+`],"nextCursor":"`+cursorFor("prompts/list:", 2)+`"}`))
	// A resource link becomes text for a revision without them.
	expect(t, d, req("3", "prompts/get", `{"name":"greet","arguments":{"name":"Al"}}`),
		res("3", `{"description":"A greeting","messages":[{"role":"user","content":{"type":"text","text":"Hello Al"}},{"role":"assistant","content":{"type":"text","text":"Resource: test://a (a), text/plain"}}],"_meta":{"x":1}}`))
	d.finish(t)
}

func TestResourcesModernWire(t *testing.T) {
	fx := newFeatureFixture(t)
	for _, drv := range drivers {
		t.Run(drv.name, func(t *testing.T) {
			d := drv.new(t, fx.srv)
			expect(t, d, modernReq("1", "server/discover", ""),
				res("1", `{"supportedVersions":["2026-07-28"],`+featureCaps+`,"instructions":"Use search first."`+cacheJSON+modernTail))
			c2 := cursorFor("resources/list:", 2)
			expect(t, d, modernReq("2", "resources/list", ""), res("2", `{"resources":[`+resA+`,`+resB+`],"nextCursor":"`+c2+`"`+cacheJSON+modernTail))
			expect(t, d, modernReq("3", "resources/templates/list", `"cursor":null,`), res("3", `{"resourceTemplates":[`+tmplNote+`,`+tmplDoc+`]`+cacheJSON+modernTail))
			expect(t, d, modernReq("4", "resources/read", `"uri":"test://b",`), res("4", `{"contents":[`+blobB+`]`+readCacheJS+modernTail))
			expect(t, d, modernReq("5", "resources/read", `"uri":"notes://n7",`),
				res("5", `{"contents":[{"uri":"notes://n7","mimeType":"application/json","text":"{\"id\":\"n7\"}"}]`+readCacheJS+modernTail))
			// No -32002 in 2026-07-28.
			expect(t, d, modernReq("6", "resources/read", `"uri":"test://nope",`),
				`{"jsonrpc":"2.0","id":6,"error":{"code":-32602,"message":"Resource not found","data":{"uri":"test://nope"}}}`)
			expect(t, d, modernReq("7", "resources/read", `"uri":"test://gone",`),
				`{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Resource not found","data":{"uri":"test://gone"}}}`)
			expect(t, d, modernReq("8", "resources/read", `"uri":"file:///docs/..",`),
				errRes("8", "-32602", `"invalid params: uri \"file:///docs/..\": path traversal is not allowed"`))
			expect(t, d, modernReq("9", "resources/subscribe", `"uri":"test://a",`),
				`{"jsonrpc":"2.0","id":9,"error":{"code":-32601,"message":"Method not found","data":"resources/subscribe"}}`)
			d.finish(t)
		})
	}
}

// A server with nothing of a kind answers its methods -32601, in both eras,
// and declares no capability for it.
func TestNothingRegisteredNotFound(t *testing.T) {
	fx := newFixture(t)
	d := legacyFeatureSession(t, fx, "2025-11-25", capsJSON+`,"serverInfo"`)
	methods := []string{"resources/list", "resources/templates/list", "resources/read", "resources/subscribe", "resources/unsubscribe", "prompts/list", "prompts/get", "completion/complete"}
	for i, m := range methods {
		id := fmt.Sprint(i + 1)
		expect(t, d, req(id, m, `{"uri":"test://a","name":"x"}`),
			`{"jsonrpc":"2.0","id":`+id+`,"error":{"code":-32601,"message":"Method not found","data":"`+m+`"}}`)
	}
	for i, m := range methods[:3] {
		id := fmt.Sprint(i + 10)
		expect(t, d, modernReq(id, m, `"uri":"test://a",`),
			`{"jsonrpc":"2.0","id":`+id+`,"error":{"code":-32601,"message":"Method not found","data":"`+m+`"}}`)
	}
	d.finish(t)

	// Templates alone offer resources: resources/list is then empty.
	srv := mcpserver.New(mcp.Implementation{Name: "t", Version: "1"}, nil)
	srv.AddResourceTemplates(mcpserver.ResourceTemplate{URITemplate: "x://{id}", Name: "x", Handler: func(context.Context, *mcpserver.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return nil, nil // nothing there: not found, never an empty list
	}})
	d = &handleDriver{ss: srv.NewSession()}
	d.exchange(t, req("0", "initialize", `{"protocolVersion":"2025-11-25","capabilities":{}}`), 1)
	expect(t, d, req("1", "resources/list", `{}`), res("1", `{"resources":[]}`))
	expect(t, d, req("2", "resources/read", `{"uri":"x://1"}`),
		`{"jsonrpc":"2.0","id":2,"error":{"code":-32002,"message":"Resource not found","data":{"uri":"x://1"}}}`)
	expect(t, d, req("3", "prompts/list", `{}`), `{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found","data":"prompts/list"}}`)
	d.finish(t)
}

func TestAddPanics(t *testing.T) {
	h := func(context.Context, *mcpserver.ReadResourceRequest) ([]mcp.ResourceContents, error) { return nil, nil }
	ph := func(context.Context, map[string]string) (*mcp.GetPromptResult, error) { return nil, nil }
	srv := mcpserver.New(mcp.Implementation{Name: "t", Version: "1"}, nil)
	srv.AddResources(mcpserver.Resource{URI: "x://a", Name: "a", Handler: h})
	srv.AddResourceTemplates(mcpserver.ResourceTemplate{URITemplate: "x://t/{id}", Name: "t", Handler: h})
	srv.AddPrompts(mcpserver.Prompt{Name: "p", Handler: ph})
	for name, f := range map[string]func(){
		"empty uri":        func() { srv.AddResources(mcpserver.Resource{Name: "a", Handler: h}) },
		"relative uri":     func() { srv.AddResources(mcpserver.Resource{URI: "a/b", Name: "a", Handler: h}) },
		"duplicate uri":    func() { srv.AddResources(mcpserver.Resource{URI: "x://a", Name: "a", Handler: h}) },
		"unclean file uri": func() { srv.AddResources(mcpserver.Resource{URI: "file:///a/../b", Name: "a", Handler: h}) },
		"no name":          func() { srv.AddResources(mcpserver.Resource{URI: "x://b", Handler: h}) },
		"no handler":       func() { srv.AddResources(mcpserver.Resource{URI: "x://b", Name: "b"}) },
		"bad annotations": func() {
			srv.AddResources(mcpserver.Resource{URI: "x://b", Name: "b", Handler: h, Annotations: json.RawMessage(`[1]`)})
		},
		"bad template": func() {
			srv.AddResourceTemplates(mcpserver.ResourceTemplate{URITemplate: "x://{+id}", Name: "t", Handler: h})
		},
		"duplicate tmpl": func() {
			srv.AddResourceTemplates(mcpserver.ResourceTemplate{URITemplate: "x://t/{id}", Name: "t", Handler: h})
		},
		"tmpl no handler":   func() { srv.AddResourceTemplates(mcpserver.ResourceTemplate{URITemplate: "x://u/{id}", Name: "t"}) },
		"prompt no name":    func() { srv.AddPrompts(mcpserver.Prompt{Handler: ph}) },
		"prompt duplicate":  func() { srv.AddPrompts(mcpserver.Prompt{Name: "p", Handler: ph}) },
		"prompt no handler": func() { srv.AddPrompts(mcpserver.Prompt{Name: "q"}) },
		"prompt arg twice": func() {
			srv.AddPrompts(mcpserver.Prompt{Name: "q", Handler: ph, Arguments: []mcp.PromptArgument{{Name: "a"}, {Name: "a"}}})
		},
		"prompt arg noname": func() { srv.AddPrompts(mcpserver.Prompt{Name: "q", Handler: ph, Arguments: []mcp.PromptArgument{{}}}) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}
