package interop

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// TestContentSchemas validates what runtime/mcp writes for each kind of
// content block, and a prompt message, against the Content, ResourceContents
// and PromptMessage components of examples/conformance's committed OpenRPC
// document, with a JSON Schema validator nobody here wrote; and checks that
// the schemas refuse blocks MCP does not allow.
func TestContentSchemas(t *testing.T) {
	raw, err := os.ReadFile("../examples/conformance/conformance.openrpc.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct {
			Schemas map[string]json.RawMessage `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	defs, err := json.Marshal(doc.Components.Schemas)
	if err != nil {
		t.Fatal(err)
	}
	// The components as the $defs of one schema per component.
	defsText := strings.ReplaceAll(string(defs), `"#/components/schemas/`, `"#/$defs/`)
	schemaOf := func(name string) *jsonschema.Resolved {
		if _, ok := doc.Components.Schemas[name]; !ok {
			t.Fatalf("the document has no component %s", name)
		}
		return resolve(t, name, json.RawMessage(`{"$defs":`+defsText+`,"$ref":"#/$defs/`+name+`"}`))
	}
	content, message := schemaOf("Content"), schemaOf("PromptMessage")
	if content == nil || message == nil {
		t.FailNow()
	}

	link := mcp.ResourceLink("file:///a.txt", "a.txt", "text/plain")
	link.Title, link.Description, link.Size = "A", "the letter A", 1
	annotated := mcp.TextContent("hi")
	annotated.Annotations = json.RawMessage(`{"audience":["user"],"priority":0.5}`)
	annotated.Meta = json.RawMessage(`{"x":1}`)
	valid := map[string]mcp.Content{
		"text":          mcp.TextContent("hello"),
		"empty text":    mcp.TextContent(""),
		"image":         mcp.ImageContent([]byte{1, 2, 3}, "image/png"),
		"audio":         mcp.AudioContent([]byte{1, 2, 3}, "audio/wav"),
		"resource link": link,
		"embedded text": mcp.EmbeddedText("file:///b.txt", "text/plain", "bee"),
		"embedded blob": mcp.EmbeddedBlob("file:///c.bin", "", []byte{0xff}),
		"annotated":     annotated,
	}
	for name, c := range valid {
		if err := content.Validate(decode(t, c.AppendJSON(nil))); err != nil {
			t.Errorf("%s: %s does not validate against Content: %v", name, c.AppendJSON(nil), err)
		}
		msg, err := json.Marshal(mcp.PromptMessage{Role: "assistant", Content: c})
		if err != nil {
			t.Fatal(err)
		}
		if err := message.Validate(decode(t, msg)); err != nil {
			t.Errorf("%s: %s does not validate against PromptMessage: %v", name, msg, err)
		}
	}

	invalid := map[string]string{
		"no type":             `{"text":"hi"}`,
		"unknown type":        `{"type":"video","data":"AA=="}`,
		"text without text":   `{"type":"text"}`,
		"image without mime":  `{"type":"image","data":"AA=="}`,
		"link without name":   `{"type":"resource_link","uri":"file:///a"}`,
		"negative size":       `{"type":"resource_link","uri":"file:///a","name":"a","size":-1}`,
		"resource, no text":   `{"type":"resource","resource":{"uri":"file:///a"}}`,
		"bad audience":        `{"type":"text","text":"hi","annotations":{"audience":["robot"]}}`,
		"priority above one":  `{"type":"text","text":"hi","annotations":{"priority":2}}`,
		"text of wrong type":  `{"type":"text","text":5}`,
		"resource, no uri":    `{"type":"resource","resource":{"text":"t"}}`,
		"resource not object": `{"type":"resource","resource":"file:///a"}`,
	}
	for name, text := range invalid {
		if err := content.Validate(decode(t, []byte(text))); err == nil {
			t.Errorf("%s: %s validates against Content", name, text)
		}
	}
	if err := message.Validate(decode(t, []byte(`{"role":"system","content":{"type":"text","text":"hi"}}`))); err == nil {
		t.Error(`a message with role "system" validates against PromptMessage`)
	}
}

func decode(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return v
}
