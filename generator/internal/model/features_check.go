package model

import (
	"fmt"
	"go/types"
	"strings"

	"github.com/rpcgen/rpcgen/generator/internal/diag"
)

// The checks across the methods of a service or a file: completers linked to
// the prompt or template they complete, names used twice, resource URIs.

// linkCompleters attaches each completer of s to the prompt or template it
// names, reporting unknown targets and arguments and repeats; a prompt's
// enum arguments are completed automatically unless a completer covers them.
func linkCompleters(s *Service, errs *diag.Collector) {
	prompts := map[string]*Method{}
	templates := map[string]*Method{}
	for _, m := range s.Methods {
		if m.Prompt != nil {
			prompts[m.Prompt.Name] = m
		}
		if m.Resource != nil && m.Resource.Template() {
			templates[m.Resource.URI] = m
		}
	}
	covered := map[string]*Method{} // "prompt\x00name\x00arg" -> completer
	for _, m := range s.Methods {
		c := m.Completer
		if c == nil {
			continue
		}
		var key string
		var args []string
		var attach func()
		switch {
		case c.Prompt != "":
			target := prompts[c.Prompt]
			if target == nil {
				errs.AtPosition(c.targetPos, "method %s: interface %s has no prompt named %q", m.Name, s.Name, c.Prompt)
				continue
			}
			p := target.Prompt
			c.Target = target
			for _, a := range p.Args {
				args = append(args, a.Param.Name)
			}
			key = "prompt\x00" + c.Prompt
			attach = func() { p.Completers = append(p.Completers, m) }
		default:
			target := templates[c.Template]
			if target == nil {
				errs.AtPosition(c.targetPos, "method %s: interface %s has no resource template %q", m.Name, s.Name, c.Template)
				continue
			}
			r := target.Resource
			c.Target = target
			args = r.Vars
			key = "resource\x00" + c.Template
			attach = func() { r.Completers = append(r.Completers, m) }
		}
		if !containsString(args, c.Arg) {
			errs.AtPosition(c.argPos, "method %s: %s has no argument %q (it has: %s)", m.Name, CompleterTarget(c), c.Arg, orNone(args))
			continue
		}
		key += "\x00" + c.Arg
		if prev := covered[key]; prev != nil {
			errs.AtPosition(c.argPos, "method %s: argument %q of %s is already completed by %s", m.Name, c.Arg, CompleterTarget(c), prev.Name)
			continue
		}
		covered[key] = m
		attach()
	}
}

// checkFeatureNames reports prompt names and resource URIs used twice across
// the services of one file, which are usually served together.
func checkFeatureNames(services []*Service, errs *diag.Collector) {
	prompts := map[string]string{}
	uris := map[string]string{}
	for _, s := range services {
		for _, m := range s.Methods {
			if p := m.Prompt; p != nil {
				if prev := prompts[p.Name]; prev != "" {
					errs.AtPosition(p.namePos, "method %s: prompt name %q is already used by %s", m.Name, p.Name, prev)
				} else {
					prompts[p.Name] = s.Name + "." + m.Name
				}
			}
			if r := m.Resource; r != nil {
				if prev := uris[r.URI]; prev != "" {
					errs.AtPosition(r.uriPos, "method %s: resource URI %q is already used by %s", m.Name, r.URI, prev)
				} else {
					uris[r.URI] = s.Name + "." + m.Name
				}
			}
			if a := appOf(m); a != nil {
				if prev := uris[a.URI]; prev != "" {
					errs.AtPosition(a.uriPos, "method %s: //rpcgen:app uri=%s: the URI is already used by %s; a view is one tool's", m.Name, a.URI, prev)
				} else {
					uris[a.URI] = s.Name + "." + m.Name
				}
			}
		}
	}
}

// CompleterTarget names what c completes: a prompt or a resource template.
func CompleterTarget(c *Completer) string {
	if c.Prompt != "" {
		return fmt.Sprintf("prompt %q", c.Prompt)
	}
	return fmt.Sprintf("resource template %q", c.Template)
}

func orNone(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, ", ")
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// parseURITemplate checks a resource URI: an absolute URI, which may hold
// RFC 6570 level 1 expressions ({var}, one variable each). It returns the
// variables in order, nil when there are none (a fixed URI).
func parseURITemplate(s string) ([]string, error) {
	if strings.ContainsFunc(s, isSpaceOrControl) {
		return nil, fmt.Errorf("a URI holds no spaces or control characters")
	}
	if !hasScheme(s) {
		return nil, fmt.Errorf("not an absolute URI: it needs a scheme (such as file:// or notes://)")
	}
	var vars []string
	rest := s
	for rest != "" {
		open := strings.IndexAny(rest, "{}")
		if open < 0 {
			break
		}
		if rest[open] == '}' {
			return nil, fmt.Errorf("'}' without '{'")
		}
		end := strings.IndexByte(rest[open:], '}')
		if end < 0 {
			return nil, fmt.Errorf("'{' without '}'")
		}
		expr := rest[open+1 : open+end]
		switch {
		case expr == "":
			return nil, fmt.Errorf("empty expression {}")
		case strings.ContainsAny(expr[:1], "+#./;?&=,!@|"):
			return nil, fmt.Errorf("{%s}: only level 1 expressions {var} are supported, not the operator %q", expr, expr[:1])
		case strings.ContainsAny(expr, ",:*"):
			return nil, fmt.Errorf("{%s}: only level 1 expressions {var} (one variable, no modifier) are supported", expr)
		case !isIdent(expr):
			return nil, fmt.Errorf("{%s}: a variable is named like a Go parameter (letters, digits, _)", expr)
		case containsString(vars, expr):
			return nil, fmt.Errorf("variable {%s} appears twice", expr)
		}
		vars = append(vars, expr)
		rest = rest[open+end+1:]
		if strings.HasPrefix(rest, "{") {
			return nil, fmt.Errorf("{%s} and the expression after it are not separated, so a URI could not be matched", expr)
		}
	}
	if vars == nil {
		return nil, nil
	}
	if i := strings.IndexByte(s, '{'); !hasScheme(s[:i]) {
		return nil, fmt.Errorf("the scheme cannot be a variable")
	}
	return vars, nil
}

// hasScheme reports whether s starts with a URI scheme and ':'.
func hasScheme(s string) bool {
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
		case i > 0 && (r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.'):
		case i > 0 && r == ':':
			return true
		default:
			return false
		}
	}
	return false
}

func isIdent(s string) bool {
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

func isStringType(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Kind() == types.String
}

func isSliceOf(t types.Type, mcpName string) bool {
	s, ok := types.Unalias(t).(*types.Slice)
	return ok && isMCPNamed(s.Elem(), mcpName)
}

func isPointerTo(t types.Type, mcpName string) bool {
	p, ok := types.Unalias(t).(*types.Pointer)
	return ok && isMCPNamed(p.Elem(), mcpName)
}

// appOf returns the view of m's tool, or nil.
func appOf(m *Method) *App {
	if m.Tool == nil {
		return nil
	}
	return m.Tool.App
}
