package mcpserver_test

import (
	"fmt"
	"strings"
	"testing"
)

func complete(id, ref, arg, extra string) string {
	return req(id, "completion/complete", `{"ref":`+ref+`,"argument":`+arg+extra+`}`)
}

func TestCompletionWire(t *testing.T) {
	fx := newFeatureFixture(t)
	ids := func(from, to int) string {
		var s []string
		for i := from; i < to; i++ {
			s = append(s, fmt.Sprintf(`"n%03d"`, i))
		}
		return strings.Join(s, ",")
	}
	for _, drv := range drivers {
		t.Run(drv.name, func(t *testing.T) {
			d := drv.new(t, fx.srv)
			d.exchange(t, req("0", "initialize", `{"protocolVersion":"2025-11-25","capabilities":{}}`), 1)
			greet := `{"type":"ref/prompt","name":"greet"}`
			expect(t, d, complete("1", greet, `{"name":"style","value":"f"}`, ""),
				res("1", `{"completion":{"values":["formal","friendly"],"total":7,"hasMore":true}}`))
			expect(t, d, complete("2", greet, `{"name":"style","value":""}`, `,"context":{"arguments":{"name":"Bob"}}`),
				res("2", `{"completion":{"values":["formal","friendly","bobbish"],"total":7,"hasMore":true}}`))
			// The handler returned nothing.
			expect(t, d, complete("3", greet, `{"name":"name","value":""}`, ""), res("3", `{"completion":{"values":[]}}`))
			// No provider.
			expect(t, d, complete("4", `{"type":"ref/prompt","name":"plain"}`, `{"name":"x","value":"a"}`, ""), res("4", `{"completion":{"values":[]}}`))
			expect(t, d, complete("5", `{"type":"ref/resource","uri":"test://a"}`, `{"name":"x","value":"a"}`, ""), res("5", `{"completion":{"values":[]}}`))
			// At most 100 values; total and hasMore say there are more.
			note := `{"type":"ref/resource","uri":"notes://{id}"}`
			expect(t, d, complete("6", note, `{"name":"id","value":"n"}`, ""),
				res("6", `{"completion":{"values":[`+ids(0, 100)+`],"total":150,"hasMore":true}}`))
			expect(t, d, complete("7", note, `{"name":"id","value":"n14"}`, ""),
				res("7", `{"completion":{"values":[`+ids(140, 150)+`]}}`))
			// Unknown refs and arguments.
			expect(t, d, complete("8", `{"type":"ref/prompt","name":"nope"}`, `{"name":"x","value":""}`, ""),
				errRes("8", "-32602", `"invalid params: unknown prompt \"nope\""`))
			expect(t, d, complete("9", `{"type":"ref/resource","uri":"x://nope/{id}"}`, `{"name":"id","value":""}`, ""),
				errRes("9", "-32602", `"invalid params: unknown resource \"x://nope/{id}\""`))
			expect(t, d, complete("10", greet, `{"name":"age","value":""}`, ""),
				errRes("10", "-32602", `"invalid params: prompt \"greet\" has no argument \"age\""`))
			expect(t, d, complete("11", note, `{"name":"name","value":""}`, ""),
				errRes("11", "-32602", `"invalid params: resource template \"notes://{id}\" has no variable \"name\""`))
			expect(t, d, complete("12", `{"type":"ref/tool","name":"search"}`, `{"name":"query","value":""}`, ""),
				errRes("12", "-32602", `"invalid params: unknown ref type \"ref/tool\": want \"ref/prompt\" or \"ref/resource\""`))
			expect(t, d, complete("13", greet, `{"name":"style"}`, ""),
				errRes("13", "-32602", `"invalid params: \"argument\" must be an object with string members \"name\" and \"value\""`))
			expect(t, d, req("14", "completion/complete", `{"argument":{"name":"a","value":""}}`),
				errRes("14", "-32602", `"invalid params: \"ref\" must be an object: {\"type\":\"ref/prompt\",\"name\":…} or {\"type\":\"ref/resource\",\"uri\":…}"`))
			d.finish(t)
		})
	}
	// 2026-07-28: the same, with the result's tail.
	d := &handleDriver{ss: fx.srv.NewSession()}
	expect(t, d, modernReq("1", "completion/complete", `"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"style","value":""},`),
		res("1", `{"completion":{"values":["formal","friendly"],"total":7,"hasMore":true}`+modernTail))
	d.finish(t)
}
