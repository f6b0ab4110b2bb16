package contract

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// A Finding is one change between two contracts.
type Finding struct {
	Rule    Rule
	Subject string // what changed, e.g. "method calculator.add param b"
	Old     string // its old shape
	New     string // its new shape
	Pos     string // file:line:col in the current source, "" when unknown
	// Ignored names the //rpcgen:breaking directive's reason when one
	// ignores the finding's rule there.
	Ignored string
}

// Compare reports the changes from old to new, breaking ones first, each
// group in the order of new's source. When old came from an OpenRPC
// document the MCP and Go rules are not checked.
func Compare(old, new *Snapshot) []Finding {
	c := &comparer{old: old, new: new}
	c.methods()
	if !old.FromOpenRPC {
		c.tools()
		c.resources()
		c.prompts()
		c.goAPI()
	}
	slices.SortStableFunc(c.out, func(a, b Finding) int {
		if a.Rule.Breaking != b.Rule.Breaking {
			if a.Rule.Breaking {
				return -1
			}
			return 1
		}
		return 0
	})
	return c.out
}

type comparer struct {
	old, new *Snapshot
	out      []Finding
}

func (c *comparer) find(rule, pos, subject, old, new string, ignore []string) {
	r, ok := RuleByName(rule)
	if !ok {
		panic("contract: no rule " + rule)
	}
	f := Finding{Rule: r, Subject: subject, Old: old, New: new, Pos: pos}
	for _, ig := range ignore {
		name, reason, _ := strings.Cut(ig, ":")
		if name == rule {
			f.Ignored = reason
		}
	}
	c.out = append(c.out, f)
}

// servicePos is where a change without a place of its own (something
// removed) is reported: the first interface.
func (c *comparer) servicePos() (string, []string) {
	if len(c.new.Services) == 0 {
		return "", nil
	}
	var ignore []string
	for _, s := range c.new.Services {
		ignore = append(ignore, s.Ignore...)
	}
	return c.new.Services[0].Pos, ignore
}

func (c *comparer) method(name string) *Method {
	for _, m := range c.new.Methods {
		if m.Name == name {
			return m
		}
	}
	return nil
}

// methodIgnores are the rules ignored for m: its own directives' and its
// interface's.
func (c *comparer) methodIgnores(m *Method) []string {
	ig := slices.Clone(m.Ignore)
	svc, _, _ := strings.Cut(m.GoName, ".")
	for _, s := range c.new.Services {
		if s.Name == svc {
			ig = append(ig, s.Ignore...)
		}
	}
	return ig
}

func (c *comparer) methods() {
	olds := map[string]*Method{}
	for _, m := range c.old.Methods {
		olds[m.Name] = m
	}
	pos, ig := c.servicePos()
	for _, om := range c.old.Methods {
		if c.method(om.Name) == nil {
			c.find("METHOD_REMOVED", pos, "method "+om.Name, "method "+om.Name, "gone", ig)
		}
	}
	for _, nm := range c.new.Methods {
		om := olds[nm.Name]
		ig := c.methodIgnores(nm)
		if om == nil {
			c.find("METHOD_ADDED", nm.Pos, "method "+nm.Name, "absent", "method "+nm.Name, ig)
			continue
		}
		c.methodChanges(om, nm, ig)
	}
}

func kind(n bool) string {
	if n {
		return "notification"
	}
	return "call"
}

func (c *comparer) methodChanges(om, nm *Method, ig []string) {
	subj := "method " + nm.Name
	if om.Notification != nm.Notification {
		c.find("NOTIFICATION_CHANGED", nm.Pos, subj, kind(om.Notification), kind(nm.Notification), ig)
	}
	if om.ParamStructure == "either" && nm.ParamStructure == "by-name" {
		c.find("PARAM_BY_NAME", nm.Pos, subj, "params by name or by position", "params by name only", ig)
	}
	oldp := map[string]*Param{}
	for _, p := range om.Params {
		oldp[p.Name] = p
	}
	newp := map[string]*Param{}
	for _, p := range nm.Params {
		newp[p.Name] = p
	}
	for _, p := range om.Params {
		if newp[p.Name] == nil {
			c.find("PARAM_REMOVED", nm.Pos, subj+" param "+p.Name, "param "+p.Name+" "+shapeOf(p.Schema), "gone", ig)
		}
	}
	if om.ParamStructure != "by-name" && nm.ParamStructure != "by-name" {
		// by position, the params old clients send are the old order's prefix
		var oldOrder, newOrder []string
		for _, p := range om.Params {
			if newp[p.Name] != nil {
				oldOrder = append(oldOrder, p.Name)
			}
		}
		for _, p := range nm.Params {
			if oldp[p.Name] != nil {
				newOrder = append(newOrder, p.Name)
			}
		}
		moved := !slices.Equal(oldOrder, newOrder)
		for i, p := range nm.Params {
			if !moved && i < len(om.Params) && om.Params[i].Name != p.Name && oldp[p.Name] == nil {
				moved = true // a new param took an old one's place
			}
		}
		if moved {
			c.find("PARAM_ORDER", nm.Pos, subj, "("+names(om.Params)+")", "("+names(nm.Params)+")", ig)
		}
	}
	for _, p := range nm.Params {
		op := oldp[p.Name]
		psubj := subj + " param " + p.Name
		switch {
		case op == nil && p.Required:
			c.find("PARAM_REQUIRED", nm.Pos, psubj, "absent", "required "+shapeOf(p.Schema), ig)
		case op == nil:
			c.find("PARAM_ADDED", nm.Pos, psubj, "absent", "optional "+shapeOf(p.Schema), ig)
		case !op.Required && p.Required:
			c.find("PARAM_REQUIRED", nm.Pos, psubj, "optional", "required", ig)
		case op.Required && !p.Required:
			c.find("PARAM_WIDENED", nm.Pos, psubj, "required", "optional", ig)
		}
		if op == nil {
			continue
		}
		for _, ch := range compareSchemas(op.Schema, p.Schema, c.old.Components, c.new.Components) {
			at := psubj + pathSuffix(ch.path)
			switch {
			case ch.narrower:
				c.find("PARAM_NARROWED", nm.Pos, at, ch.old, ch.new, ig)
			case ch.wider:
				c.find("PARAM_WIDENED", nm.Pos, at, ch.old, ch.new, ig)
			}
		}
	}
	if !om.Notification && !nm.Notification {
		c.output(nm.Pos, subj+" result", om.Result, nm.Result, "RESULT_FIELD_REMOVED", "RESULT_CHANGED", "RESULT_FIELD_ADDED", ig, c.old.Components, c.new.Components)
	}
	olde := map[string]*Error{}
	for _, e := range om.Errors {
		olde[e.Name] = e
	}
	newe := map[string]*Error{}
	for _, e := range nm.Errors {
		newe[e.Name] = e
	}
	for _, e := range om.Errors {
		ne := newe[e.Name]
		switch {
		case ne == nil:
			c.find("ERROR_CODE_CHANGED", nm.Pos, subj+" error "+e.Name, fmt.Sprintf("%s (code %d)", e.Name, e.Code), "gone", ig)
		case ne.Code != e.Code:
			c.find("ERROR_CODE_CHANGED", nm.Pos, subj+" error "+e.Name, fmt.Sprintf("code %d", e.Code), fmt.Sprintf("code %d", ne.Code), ig)
		}
	}
	for _, e := range nm.Errors {
		if olde[e.Name] == nil {
			c.find("ERROR_ADDED", nm.Pos, subj+" error "+e.Name, "absent", fmt.Sprintf("%s (code %d)", e.Name, e.Code), ig)
		}
	}
}

// output compares a result schema: what a client reads must stay readable.
func (c *comparer) output(pos, subj string, old, new []byte, removed, changed, added string, ig []string, oc, nc map[string]json.RawMessage) {
	for _, ch := range compareSchemas(old, new, oc, nc) {
		at := subj + pathSuffix(ch.path)
		switch {
		case ch.added:
			if added != "" {
				c.find(added, pos, at, ch.old, ch.new, ig)
			}
		case ch.removed || (ch.required && ch.wider):
			c.find(removed, pos, at, ch.old, ch.new, ig)
		case ch.wider:
			c.find(changed, pos, at, ch.old, ch.new, ig)
		}
	}
}

func pathSuffix(p string) string {
	if p == "" {
		return ""
	}
	return " at " + p
}

func names(ps []*Param) string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Name)
	}
	return strings.Join(out, ", ")
}

func shapeOf(raw []byte) string { return shape(decode(raw)) }

func (c *comparer) goAPI() {
	if c.old.Go == nil {
		return
	}
	olds := map[string]string{}
	for _, d := range c.old.Go {
		olds[d.Name] = d.Decl
	}
	news := map[string]string{}
	for _, d := range c.new.Go {
		news[d.Name] = d.Decl
	}
	for _, name := range slices.SortedFunc(maps.Keys(olds), cmp.Compare) {
		nd, ok := news[name]
		pos, ig := c.goPos(name)
		switch {
		case !ok:
			c.find("GO_REMOVED", pos, "Go "+name, olds[name], "gone", ig)
		case nd != olds[name]:
			c.find("GO_CHANGED", pos, "Go "+name, olds[name], nd, ig)
		}
	}
	for _, d := range c.new.Go {
		if _, ok := olds[d.Name]; !ok {
			pos, ig := c.goPos(d.Name)
			c.find("GO_ADDED", pos, "Go "+d.Name, "absent", d.Decl, ig)
		}
	}
}

// methodConstSuffixes end the names of the constants generated for a
// method, after the interface's and the method's names; clientTypes end
// the names of the client types whose methods are the interface's.
var (
	methodConstSuffixes = []string{"Method", "Tool", "ToolDigest", "Prompt", "URI", "URITemplate", "AppURI", "ParamsSchema", "ResultSchema"}
	clientTypes         = []string{"Client", "MCPClient"}
)

// goPos is where a change to the generated Go name is reported, with the
// rules ignored there: at the method it was generated for (a client's
// method "SvcClient.Sum", a constant "SvcSumMethod"), otherwise at the
// interface.
func (c *comparer) goPos(name string) (string, []string) {
	for _, m := range c.new.Methods {
		svc, meth, ok := strings.Cut(m.GoName, ".")
		if !ok {
			continue
		}
		var fits bool
		if recv, member, isMethod := strings.Cut(name, "."); isMethod {
			kind, ok := strings.CutPrefix(recv, svc)
			fits = ok && member == meth && slices.Contains(clientTypes, kind)
		} else if rest, ok := strings.CutPrefix(name, svc+meth); ok {
			fits = slices.Contains(methodConstSuffixes, rest)
		}
		if fits {
			return m.Pos, c.methodIgnores(m)
		}
	}
	return c.servicePos()
}
