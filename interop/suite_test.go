package interop

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

// note is a stored note, as examples/notes returns it.
type note struct {
	ID       string    `json:"id"`
	Text     string    `json:"text"`
	Tags     []string  `json:"tags,omitempty"`
	Priority string    `json:"priority"`
	Created  time.Time `json:"created"`
}

// toolExpect is what notes.go promises about one tool.
type toolExpect struct {
	phrase     string   // a phrase of its doc comment
	properties []string // its argument keys
	required   []string
	output     bool // whether it has an output schema
	readOnly   bool
	destroys   bool
	idempotent bool
}

var wantTools = map[string]toolExpect{
	"add_note":     {phrase: "stores a new note", properties: []string{"priority", "tags", "text"}, required: []string{"text"}, output: true},
	"search_notes": {phrase: "text contains query", properties: []string{"limit", "query"}, required: []string{"query"}, output: true, readOnly: true},
	"get_note":     {phrase: "with the given id", properties: []string{"id"}, required: []string{"id"}, output: true, readOnly: true},
	"delete_note":  {phrase: "removes a note", properties: []string{"id"}, required: []string{"id"}, destroys: true, idempotent: true},
	"reindex":      {phrase: "rebuilds the search index", output: true, idempotent: true},
}

// runSuite checks everything a user of the notes server would, through s.
func runSuite(t *testing.T, s session, wantVersion string) {
	if got := s.ProtocolVersion(); got != wantVersion {
		t.Errorf("negotiated protocol version %q, want %q", got, wantVersion)
	}
	outputs := map[string]*jsonschema.Resolved{}
	t.Run("tools/list", func(t *testing.T) { outputs = checkToolList(t, s) })

	marker := fmt.Sprintf("zq%d", time.Now().UnixNano()%1e9)
	var added []note
	t.Run("add_note", func(t *testing.T) {
		for _, args := range []map[string]any{
			{"text": "Buy milk " + marker, "tags": []string{"shopping", "home"}, "priority": "high"},
			{"text": "Call the plumber " + marker},
			{"text": "milk the cows " + marker, "priority": "low"},
		} {
			var n note
			callOK(t, s, outputs, "add_note", args, &n)
			wantPriority, _ := args["priority"].(string)
			if wantPriority == "" {
				wantPriority = "normal" // notes.go: "normal when absent"
			}
			wantTags, _ := args["tags"].([]string)
			if n.ID == "" || n.Text != args["text"] || n.Priority != wantPriority || !slices.Equal(n.Tags, wantTags) {
				t.Errorf("add_note(%v) = %+v", args, n)
			}
			if d := time.Since(n.Created); d < -time.Minute || d > time.Minute {
				t.Errorf("add_note: created %v is not about now", n.Created)
			}
			for _, prev := range added {
				if prev.ID == n.ID {
					t.Errorf("add_note returned id %q twice", n.ID)
				}
			}
			added = append(added, n)
		}
	})
	if len(added) != 3 {
		t.Fatalf("cannot go on without the three notes")
	}

	t.Run("get_note", func(t *testing.T) {
		var n note
		callOK(t, s, outputs, "get_note", map[string]any{"id": added[0].ID}, &n)
		if !reflect.DeepEqual(n.Tags, added[0].Tags) || n.ID != added[0].ID || n.Text != added[0].Text ||
			n.Priority != added[0].Priority || !n.Created.Equal(added[0].Created) {
			t.Errorf("get_note = %+v, want %+v", n, added[0])
		}
	})

	t.Run("search_notes", func(t *testing.T) {
		ids := func(ns []note) []string {
			var out []string
			for _, n := range ns {
				out = append(out, n.ID)
			}
			return out
		}
		for _, c := range []struct {
			args map[string]any
			want []note
		}{
			{map[string]any{"query": strings.ToUpper(marker)}, []note{added[2], added[1], added[0]}},
			{map[string]any{"query": "MILK"}, []note{added[2], added[0]}},
			{map[string]any{"query": "milk", "limit": 1}, []note{added[2]}},
			{map[string]any{"query": "nothing matches " + marker}, []note{}},
		} {
			var got struct {
				Result []note `json:"result"`
			}
			callOK(t, s, outputs, "search_notes", c.args, &got)
			if got.Result == nil || !slices.Equal(ids(got.Result), ids(c.want)) {
				t.Errorf("search_notes(%v) = ids %v, want %v (newest first)", c.args, ids(got.Result), ids(c.want))
			}
		}
	})

	t.Run("reindex with progress", func(t *testing.T) {
		token := "reindex-" + marker
		var rep struct {
			Notes int `json:"notes"`
			Terms int `json:"terms"`
		}
		callOKToken(t, s, outputs, "reindex", map[string]any{}, token, &rep)
		if rep.Notes != len(added) || rep.Terms < 5 {
			t.Errorf("reindex = %+v, want %d notes and some terms", rep, len(added))
		}
		// A round trip after the response as a fence: on stdio the server's
		// messages are one ordered stream, so any progress it wrote before
		// answering this has been read; over HTTP the call's stream ended
		// with its response.
		if _, err := s.ListTools(t); err != nil {
			t.Fatalf("tools/list after the reindex: %v", err)
		}
		checkProgress(t, s.Wire(token), rep.Notes)
	})

	t.Run("invalid arguments", func(t *testing.T) {
		tags := make([]string, 11)
		for i := range tags {
			tags[i] = fmt.Sprint("t", i)
		}
		for _, c := range []struct {
			tool  string
			args  map[string]any
			field string
		}{
			{"search_notes", map[string]any{"query": 5}, "query"},
			{"search_notes", map[string]any{"query": "x", "limit": "ten"}, "limit"},
			{"search_notes", map[string]any{"query": "x", "limit": 1.5}, "limit"},
			{"search_notes", map[string]any{}, "query"},
			{"search_notes", map[string]any{"query": "x", "lmit": 3}, "lmit"},
			{"add_note", map[string]any{"text": strings.Repeat("a", 10001)}, "text"},
			{"add_note", map[string]any{"text": ""}, "text"},
			{"add_note", map[string]any{"text": "x", "priority": "urgent"}, "priority"},
			{"add_note", map[string]any{"text": "x", "tags": tags}, "tags"},
			{"add_note", map[string]any{"text": "x", "tags": []any{"a", 2}}, "tags"},
			{"get_note", map[string]any{"id": 7}, "id"},
			{"delete_note", map[string]any{}, "id"},
			{"reindex", map[string]any{"verbose": true}, "verbose"},
		} {
			r, err := s.CallTool(t, c.tool, c.args, nil)
			if err != nil {
				t.Errorf("%s(%s): protocol error %v, want an isError result", c.tool, brief(c.args), err)
				continue
			}
			if !r.IsError {
				t.Errorf("%s(%s): isError false, want true; result %s", c.tool, brief(c.args), brief(r.text()))
				continue
			}
			if !regexp.MustCompile(`\b` + c.field + `\b`).MatchString(r.text()) {
				t.Errorf("%s(%s): error %q does not name the field %q", c.tool, brief(c.args), r.text(), c.field)
			}
		}
	})

	t.Run("unknown tool", func(t *testing.T) {
		r, err := s.CallTool(t, "no_such_tool", map[string]any{}, nil)
		if err == nil {
			t.Fatalf("calling an unknown tool gave a result (isError %v, %q), want JSON-RPC error -32602", r.IsError, r.text())
		}
		if code, ok := s.ErrorCode(err); !ok || code != -32602 {
			t.Errorf("unknown tool: error %v (code %d, %v), want code -32602", err, code, ok)
		}
	})

	t.Run("delete_note", func(t *testing.T) {
		id := added[1].ID
		r, err := s.CallTool(t, "delete_note", map[string]any{"id": id}, nil)
		if err != nil || r.IsError {
			t.Fatalf("delete_note(%s): %v %+v", id, err, r)
		}
		for _, tool := range []string{"get_note", "delete_note"} {
			r, err := s.CallTool(t, tool, map[string]any{"id": id}, nil)
			if err != nil {
				t.Errorf("%s of a deleted note: protocol error %v, want an isError result", tool, err)
			} else if !r.IsError || !strings.Contains(r.text(), id) {
				t.Errorf("%s of a deleted note: isError %v, text %q; want an error naming %s", tool, r.IsError, r.text(), id)
			}
		}
	})

	if c, ok := s.(canceller); ok {
		t.Run("cancel", func(t *testing.T) { checkCancel(t, c, outputs, marker) })
	}
}

// checkToolList checks the descriptors and returns the resolved output
// schemas by tool name.
func checkToolList(t *testing.T, s session) map[string]*jsonschema.Resolved {
	tools, err := s.ListTools(t)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	outputs := map[string]*jsonschema.Resolved{}
	var names []string
	for _, tool := range tools {
		names = append(names, tool.Name)
		want, ok := wantTools[tool.Name]
		if !ok {
			continue
		}
		if !strings.Contains(tool.Description, want.phrase) {
			t.Errorf("%s: description %q lacks %q from its doc comment", tool.Name, tool.Description, want.phrase)
		}
		in := resolve(t, tool.Name+" inputSchema", tool.InputSchema)
		var shape struct {
			Type                 string                     `json:"type"`
			Properties           map[string]json.RawMessage `json:"properties"`
			Required             []string                   `json:"required"`
			AdditionalProperties *bool                      `json:"additionalProperties"`
		}
		if err := json.Unmarshal(tool.InputSchema, &shape); err != nil {
			t.Errorf("%s inputSchema: %v", tool.Name, err)
		}
		var props []string
		for k := range shape.Properties {
			props = append(props, k)
		}
		slices.Sort(props)
		req := slices.Sorted(slices.Values(shape.Required))
		if in != nil && (shape.Type != "object" || !slices.Equal(props, want.properties) || !slices.Equal(req, want.required) ||
			shape.AdditionalProperties == nil || *shape.AdditionalProperties) {
			t.Errorf("%s inputSchema %s: want type object, properties %v, required %v, additionalProperties false",
				tool.Name, tool.InputSchema, want.properties, want.required)
		}
		hasOutput := len(tool.OutputSchema) > 0 && string(tool.OutputSchema) != "null"
		if hasOutput != want.output {
			t.Errorf("%s: has outputSchema %v, want %v (%s)", tool.Name, hasOutput, want.output, tool.OutputSchema)
		} else if hasOutput {
			outputs[tool.Name] = resolve(t, tool.Name+" outputSchema", tool.OutputSchema)
		}
		if tool.Name == "search_notes" {
			checkDescriptor(t, s.ProtocolVersion(), tool)
		}
		a := tool.Annotations
		if a == nil {
			t.Errorf("%s: no annotations", tool.Name)
			continue
		}
		is := func(p *bool, def bool) bool {
			if p == nil {
				return def
			}
			return *p
		}
		if is(a.ReadOnlyHint, false) != want.readOnly || is(a.OpenWorldHint, true) ||
			(want.destroys && !is(a.DestructiveHint, true)) || (want.idempotent && !is(a.IdempotentHint, false)) {
			ann, _ := json.Marshal(a)
			t.Errorf("%s: annotations %s, want readOnly %v, destructive %v, idempotent %v, openWorld false",
				tool.Name, ann, want.readOnly, want.destroys, want.idempotent)
		}
	}
	slices.Sort(names)
	want := slices.Sorted(func(yield func(string) bool) {
		for k := range wantTools {
			if !yield(k) {
				return
			}
		}
	})
	if !slices.Equal(names, want) {
		t.Errorf("tools/list names %v, want %v", names, want)
	}
	return outputs
}

func resolve(t *testing.T, what string, raw json.RawMessage) *jsonschema.Resolved {
	t.Helper()
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Errorf("%s: %v in %s", what, err, raw)
		return nil
	}
	r, err := s.Resolve(nil)
	if err != nil {
		t.Errorf("%s does not resolve: %v in %s", what, err, raw)
		return nil
	}
	return r
}

// callOK calls a tool that must succeed and decodes its structured result.
func callOK(t *testing.T, s session, outputs map[string]*jsonschema.Resolved, name string, args, into any) {
	t.Helper()
	callOKToken(t, s, outputs, name, args, nil, into)
}

func callOKToken(t *testing.T, s session, outputs map[string]*jsonschema.Resolved, name string, args, token, into any) {
	t.Helper()
	r, err := s.CallTool(t, name, args, token)
	if err != nil {
		t.Fatalf("%s(%s): %v", name, brief(args), err)
	}
	if r.IsError {
		t.Fatalf("%s(%s): isError: %s", name, brief(args), r.text())
	}
	if len(r.StructuredContent) == 0 {
		t.Fatalf("%s(%s): no structuredContent; content %s", name, brief(args), brief(r.text()))
	}
	var v any
	if err := json.Unmarshal(r.StructuredContent, &v); err != nil {
		t.Fatalf("%s: structuredContent: %v", name, err)
	}
	if out := outputs[name]; out != nil {
		if err := out.Validate(v); err != nil {
			t.Errorf("%s(%s): structuredContent %s does not match outputSchema: %v", name, brief(args), r.StructuredContent, err)
		}
	}
	// Older clients read the text block: it should carry the same JSON.
	var fromText any
	if err := json.Unmarshal([]byte(r.text()), &fromText); err != nil || !reflect.DeepEqual(fromText, v) {
		t.Errorf("%s: text content %q is not the structuredContent %s", name, r.text(), r.StructuredContent)
	}
	dec := json.NewDecoder(bytes.NewReader(r.StructuredContent))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		t.Fatalf("%s: decoding structuredContent %s: %v", name, r.StructuredContent, err)
	}
}

// checkProgress checks the progress of one call: strictly increasing, at
// most total, one per note, all before the response.
func checkProgress(t *testing.T, events []wireEvent, notes int) {
	t.Helper()
	responded := false
	var values []float64
	last := -1.0
	for _, e := range events {
		switch {
		case e.Response:
			responded = true
		case responded:
			t.Errorf("progress %v arrived after the response: %v", e.Progress, events)
		default:
			values = append(values, e.Progress)
			if e.Progress <= last {
				t.Errorf("progress not strictly increasing: %v", events)
			}
			if e.Total != nil && e.Progress > *e.Total {
				t.Errorf("progress %v exceeds total %v", e.Progress, *e.Total)
			}
			last = e.Progress
		}
	}
	if !responded {
		t.Errorf("no response recorded: %v", events)
	}
	if len(values) != notes {
		t.Errorf("got %d progress notifications %v, want one per note (%d)", len(values), values, notes)
	}
}

// checkDescriptor: search_notes carries its icon (from 2025-11-25) and its
// _meta, the directive's key beside the digest (from 2025-06-18), as the
// client decoded them.
func checkDescriptor(t *testing.T, version string, tool wireTool) {
	t.Helper()
	wantIcon := version >= "2025-11-25"
	hasIcon := len(tool.Icons) == 1 && strings.HasPrefix(tool.Icons[0].Src, "data:image/svg+xml;base64,") &&
		slices.Equal(tool.Icons[0].Sizes, []string{"any"})
	if hasIcon != wantIcon || !wantIcon && len(tool.Icons) > 0 {
		t.Errorf("search_notes in %s: icons %+v, want the note icon: %v", version, tool.Icons, wantIcon)
	}
	wantMeta := version >= "2025-06-18"
	hasMeta := string(tool.Meta["notes/kind"]) == `"query"` && strings.HasPrefix(string(tool.Meta["io.github.rpcgen/digest"]), `"sha256:`)
	if hasMeta != wantMeta || !wantMeta && len(tool.Meta) > 0 {
		t.Errorf("search_notes in %s: _meta %v, want notes/kind and the digest: %v", version, tool.Meta, wantMeta)
	}
}
