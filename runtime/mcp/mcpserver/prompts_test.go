package mcpserver_test

import (
	"testing"
)

const greetAl = `{"description":"A greeting","messages":[{"role":"user","content":{"type":"text","text":"Hello Al"}},{"role":"assistant","content":{"type":"resource_link","uri":"test://a","name":"a","mimeType":"text/plain"}}]`

func TestPromptsWire(t *testing.T) {
	fx := newFeatureFixture(t)
	for _, drv := range drivers {
		t.Run(drv.name, func(t *testing.T) {
			d := drv.new(t, fx.srv)
			d.exchange(t, req("0", "initialize", `{"protocolVersion":"2025-11-25","capabilities":{}}`), 1)
			c2 := cursorFor("prompts/list:", 2)
			expect(t, d, req("1", "prompts/list", `{}`), res("1", `{"prompts":[`+promptGreet+`,`+promptPlain+`],"nextCursor":"`+c2+`"}`))
			expect(t, d, req("2", "prompts/list", `{"cursor":"`+c2+`"}`), res("2", `{"prompts":[`+promptFail+`]}`))
			expect(t, d, req("3", "prompts/get", `{"name":"greet","arguments":{"name":"Al"}}`), res("3", greetAl+`,"_meta":{"x":1}}`))
			expect(t, d, req("4", "prompts/get", `{"name":"greet","arguments":{"name":"Al","style":"formal","extra":"ignored"}}`),
				res("4", `{"description":"A greeting","messages":[{"role":"user","content":{"type":"text","text":"Hello Al (formal)"}},{"role":"assistant","content":{"type":"resource_link","uri":"test://a","name":"a","mimeType":"text/plain"}}],"_meta":{"x":1}}`))
			expect(t, d, req("5", "prompts/get", `{"name":"plain"}`), res("5", `{"messages":[{"role":"user","content":{"type":"text","text":"plain"}}]}`))
			expect(t, d, req("6", "prompts/get", `{"name":"plain","arguments":null}`), res("6", `{"messages":[{"role":"user","content":{"type":"text","text":"plain"}}]}`))
			expect(t, d, req("7", "prompts/get", `{"name":"greet"}`), errRes("7", "-32602", `"invalid params: prompt \"greet\": missing required argument \"name\""`))
			expect(t, d, req("8", "prompts/get", `{"name":"greet","arguments":{"style":"x"}}`), errRes("8", "-32602", `"invalid params: prompt \"greet\": missing required argument \"name\""`))
			expect(t, d, req("9", "prompts/get", `{"name":"greet","arguments":{"name":3}}`), errRes("9", "-32602", `"invalid params: \"arguments\" must be an object of strings"`))
			expect(t, d, req("10", "prompts/get", `{"name":"greet","arguments":["Al"]}`), errRes("10", "-32602", `"invalid params: \"arguments\" must be an object of strings"`))
			expect(t, d, req("11", "prompts/get", `{"name":"nope"}`), errRes("11", "-32602", `"invalid params: unknown prompt \"nope\""`))
			expect(t, d, req("12", "prompts/get", `{}`), errRes("12", "-32602", `"invalid params: missing \"name\""`))
			expect(t, d, req("13", "prompts/get", `{"name":"fail"}`), errRes("13", "-32603", `"no prompt today"`))
			d.finish(t)
		})
	}
}

func TestPromptsModernWire(t *testing.T) {
	fx := newFeatureFixture(t)
	d := &handleDriver{ss: fx.srv.NewSession()}
	expect(t, d, modernReq("1", "prompts/list", `"cursor":"`+cursorFor("prompts/list:", 2)+`",`), res("1", `{"prompts":[`+promptFail+`]`+cacheJSON+modernTail))
	// The result's own _meta joins the serverInfo one.
	expect(t, d, modernReq("2", "prompts/get", `"name":"greet","arguments":{"name":"Al"},`),
		res("2", greetAl+`,"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":`+fullInfo+`,"x":1}}`))
	expect(t, d, modernReq("3", "prompts/get", `"name":"plain",`), res("3", `{"messages":[{"role":"user","content":{"type":"text","text":"plain"}}]`+modernTail))
	expect(t, d, modernReq("4", "prompts/get", `"name":"nope",`), errRes("4", "-32602", `"invalid params: unknown prompt \"nope\""`))
	expect(t, d, modernReq("5", "prompts/get", `"name":"greet",`), errRes("5", "-32602", `"invalid params: prompt \"greet\": missing required argument \"name\""`))
	d.finish(t)
}
