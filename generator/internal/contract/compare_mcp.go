package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The MCP rules: tools (names, schemas, annotations), resources and prompts.

func (c *comparer) toolPos(t *Tool) (string, []string) {
	if m := c.method(t.Method); m != nil {
		return m.Pos, c.methodIgnores(m)
	}
	return c.servicePos()
}

func (c *comparer) tools() {
	olds := map[string]*Tool{}
	for _, t := range c.old.Tools {
		olds[t.Name] = t
	}
	news := map[string]*Tool{}
	for _, t := range c.new.Tools {
		news[t.Name] = t
	}
	for _, t := range c.old.Tools {
		if news[t.Name] == nil {
			pos, ig := c.servicePos()
			c.find("TOOL_REMOVED", pos, "tool "+t.Name, "tool "+t.Name, "gone", ig)
		}
	}
	for _, nt := range c.new.Tools {
		pos, ig := c.toolPos(nt)
		subj := "tool " + nt.Name
		ot := olds[nt.Name]
		if ot == nil {
			c.find("TOOL_ADDED", pos, subj, "absent", "tool "+nt.Name+" "+nt.Digest, ig)
			continue
		}
		for _, ch := range compareSchemas(ot.InputSchema, nt.InputSchema, nil, nil) {
			at := subj + " input" + pathSuffix(ch.path)
			switch {
			case ch.narrower:
				c.find("TOOL_INPUT_NARROWED", pos, at, ch.old, ch.new, ig)
			case ch.wider:
				c.find("TOOL_INPUT_WIDENED", pos, at, ch.old, ch.new, ig)
			}
		}
		switch {
		case ot.OutputSchema != nil && nt.OutputSchema == nil:
			c.find("TOOL_OUTPUT_CHANGED", pos, subj+" output", shapeOf(ot.OutputSchema), "no structured output", ig)
		case ot.OutputSchema != nil:
			c.output(pos, subj+" output", ot.OutputSchema, nt.OutputSchema, "TOOL_OUTPUT_CHANGED", "TOOL_OUTPUT_CHANGED", "", ig, nil, nil)
		}
		hint := func(t *Tool, k string) (bool, bool) { v, ok := t.Hints[k]; return v, ok }
		if v, _ := hint(ot, "readOnlyHint"); v {
			if nv, _ := hint(nt, "readOnlyHint"); !nv {
				c.find("TOOL_HINTS_CHANGED", pos, subj+" readOnlyHint", "read-only", "not read-only", ig)
			}
		}
		// destructiveHint defaults to true when readOnlyHint is false
		destructive := func(t *Tool) bool {
			if ro, _ := hint(t, "readOnlyHint"); ro {
				return false
			}
			v, ok := hint(t, "destructiveHint")
			return !ok || v
		}
		if !destructive(ot) && destructive(nt) {
			c.find("TOOL_HINTS_CHANGED", pos, subj+" destructiveHint", "not destructive", "destructive", ig)
		}
		if v, _ := hint(ot, "idempotentHint"); v {
			if nv, _ := hint(nt, "idempotentHint"); !nv {
				c.find("TOOL_HINTS_CHANGED", pos, subj+" idempotentHint", "idempotent", "not idempotent", ig)
			}
		}
		for _, s := range nt.Scopes {
			if !slices.Contains(ot.Scopes, s) {
				c.find("TOOL_SCOPES_ADDED", pos, subj+" scope "+s, "scopes ["+strings.Join(ot.Scopes, " ")+"]", "scopes ["+strings.Join(nt.Scopes, " ")+"]", ig)
			}
		}
		c.descriptor(pos, subj, ig, []string{"title", "description", "icons", "_meta"},
			[]any{ot.Title, ot.Description, ot.Icons, ot.Meta}, []any{nt.Title, nt.Description, nt.Icons, nt.Meta})
		if ot.Digest != "" && nt.Digest != ot.Digest {
			c.find("TOOL_DIGEST_CHANGED", pos, subj+" digest", ot.Digest, nt.Digest, ig)
		}
	}
}

func (c *comparer) resources() {
	key := func(r *Resource) string { return r.URI }
	olds := map[string]*Resource{}
	for _, r := range c.old.Resources {
		olds[key(r)] = r
	}
	news := map[string]*Resource{}
	for _, r := range c.new.Resources {
		news[key(r)] = r
	}
	for _, r := range c.old.Resources {
		if news[key(r)] == nil {
			pos, ig := c.servicePos()
			c.find("RESOURCE_REMOVED", pos, "resource "+r.Name, r.URI, "gone", ig)
		}
	}
	for _, r := range c.new.Resources {
		pos, ig := c.servicePos()
		if m := c.method(r.Method); m != nil {
			pos, ig = m.Pos, c.methodIgnores(m)
		}
		or := olds[key(r)]
		if or == nil {
			c.find("RESOURCE_ADDED", pos, "resource "+r.Name, "absent", r.URI, ig)
			continue
		}
		c.descriptor(pos, "resource "+r.Name, ig, []string{"name", "title", "icons", "_meta"},
			[]any{or.Name, or.Title, or.Icons, or.Meta}, []any{r.Name, r.Title, r.Icons, r.Meta})
	}
}

func (c *comparer) prompts() {
	olds := map[string]*Prompt{}
	for _, p := range c.old.Prompts {
		olds[p.Name] = p
	}
	news := map[string]*Prompt{}
	for _, p := range c.new.Prompts {
		news[p.Name] = p
	}
	for _, p := range c.old.Prompts {
		if news[p.Name] == nil {
			pos, ig := c.servicePos()
			c.find("PROMPT_REMOVED", pos, "prompt "+p.Name, "prompt "+p.Name, "gone", ig)
		}
	}
	for _, np := range c.new.Prompts {
		pos, ig := c.servicePos()
		if m := c.method(np.Method); m != nil {
			pos, ig = m.Pos, c.methodIgnores(m)
		}
		op := olds[np.Name]
		if op == nil {
			c.find("PROMPT_ADDED", pos, "prompt "+np.Name, "absent", "prompt "+np.Name, ig)
			continue
		}
		c.descriptor(pos, "prompt "+np.Name, ig, []string{"title", "icons", "_meta"},
			[]any{op.Title, op.Icons, op.Meta}, []any{np.Title, np.Icons, np.Meta})
		req := map[string]bool{}
		for _, a := range op.Arguments {
			req[a.Name] = a.Required
		}
		for _, a := range np.Arguments {
			if was, ok := req[a.Name]; a.Required && (!ok || !was) {
				c.find("PROMPT_ARG_REQUIRED", pos, "prompt "+np.Name+" argument "+a.Name, "optional or absent", "required", ig)
			}
		}
	}
}

// descriptor lists the changes to what a host shows of a tool, resource
// or prompt (its title, description, icons, _meta): each member whose
// value differs, a string or a JSON document, as DESCRIPTOR_CHANGED.
func (c *comparer) descriptor(pos, subj string, ig []string, members []string, old, new []any) {
	show := func(v any) string {
		switch v := v.(type) {
		case string:
			if v == "" {
				return "none"
			}
			if q := strconv.Quote(v); len(q) <= 120 {
				return q
			}
			return strconv.Quote(v[:min(len(v), 100)]) + "..."
		case json.RawMessage:
			if len(v) == 0 {
				return "none"
			}
			var b bytes.Buffer
			if json.Compact(&b, v) != nil || b.Len() > 120 {
				return fmt.Sprintf("%.117s...", b.String())
			}
			return b.String()
		}
		return fmt.Sprint(v)
	}
	for i, m := range members {
		var same bool
		switch o := old[i].(type) {
		case string:
			same = o == new[i].(string)
		case json.RawMessage:
			n := new[i].(json.RawMessage)
			same = len(o) == 0 && len(n) == 0 || len(o) > 0 && len(n) > 0 && jsonEqual(decodeAny(o), decodeAny(n))
		}
		if !same {
			c.find("DESCRIPTOR_CHANGED", pos, subj+" "+m, show(old[i]), show(new[i]), ig)
		}
	}
}
