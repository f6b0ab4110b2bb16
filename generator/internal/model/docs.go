package model

import (
	"go/ast"
	"slices"
	"strings"
)

// OneLine joins a doc comment's lines into one paragraph-preserving string
// for a JSON Schema description: single line breaks become spaces, blank
// lines stay as paragraph breaks.
func OneLine(doc string) string {
	paras := strings.Split(strings.TrimSpace(doc), "\n\n")
	for i, p := range paras {
		paras[i] = strings.Join(strings.Fields(p), " ")
	}
	return strings.Join(paras, "\n\n")
}

// SplitParamDocs takes the param descriptions out of a method's doc comment
// and returns the rest, which describes the method (and so the MCP tool).
//
// The convention, for methods whose params are not a single struct: a line
// "name: description", where name is one of the method's params (its Go
// name or JSON key), optionally after "- " or "* " and indentation, starts
// that param's description; it continues on the following lines up to a
// blank line or the next param line. For example:
//
//	// SearchNotes returns the notes whose text contains query.
//	//
//	// query: text to look for, case-insensitive.
//	// limit: the most notes to return; all of them when absent.
//
// A line whose word before the colon is not a param name is ordinary prose
// and stays in the doc ("Note: ..." is not an error).
func SplitParamDocs(doc string, params []*Param) string {
	byName := map[string]*Param{}
	for _, p := range params {
		byName[p.Name] = p
		byName[p.JSONKey] = p
	}
	var kept []string
	var cur *Param
	for line := range strings.SplitSeq(doc, "\n") {
		if p, text, ok := paramLine(line, byName); ok {
			cur = p
			if p.Doc != "" {
				p.Doc += " "
			}
			p.Doc += text
			continue
		}
		if strings.TrimSpace(line) == "" {
			cur = nil
		} else if cur != nil {
			cur.Doc += " " + strings.TrimSpace(line)
			continue
		}
		kept = append(kept, line)
	}
	// Drop the blank lines the removed paragraphs leave behind.
	var out []string
	for i, line := range kept {
		if strings.TrimSpace(line) == "" && (len(out) == 0 || i == len(kept)-1 || strings.TrimSpace(out[len(out)-1]) == "") {
			continue
		}
		out = append(out, line)
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

// splitDocs takes the description lines of m's params (unless they are a
// struct's fields, which their own docs describe) and of its result out of
// its doc comment, and returns the rest and the result's: a method that
// returns a value and has no param of that name reads "result: text" as
// SplitParamDocs reads a param's line.
func splitDocs(doc string, m *Method) (rest, result string) {
	var params []*Param
	if !m.StructParams {
		params = m.Params
	}
	var r *Param
	if m.Result != nil && !slices.ContainsFunc(m.Params, func(p *Param) bool { return p.Name == "result" || p.JSONKey == "result" }) {
		r = &Param{Name: "result", JSONKey: "result"}
		params = append(slices.Clip(params), r)
	}
	rest = SplitParamDocs(doc, params)
	if r != nil {
		result = r.Doc
	}
	return rest, result
}

// paramLine recognises "name: text" (after optional indentation and a "- "
// or "* " bullet) where name is a key of byName.
func paramLine(line string, byName map[string]*Param) (*Param, string, bool) {
	s := strings.TrimSpace(line)
	if rest, ok := strings.CutPrefix(s, "- "); ok {
		s = rest
	} else if rest, ok := strings.CutPrefix(s, "* "); ok {
		s = rest
	}
	name, text, ok := strings.Cut(s, ":")
	if !ok || name == "" {
		return nil, "", false
	}
	p := byName[name]
	if p == nil || (text != "" && text[0] != ' ' && text[0] != '\t') {
		return nil, "", false
	}
	return p, strings.TrimSpace(text), true
}

// DocText is the doc comment without directives, or "".
func DocText(g *ast.CommentGroup) string {
	if g == nil {
		return ""
	}
	return strings.TrimSpace(g.Text())
}
