package mcpserver

import (
	"context"
	"slices"
	"strings"

	"github.com/rpcgen/rpcgen/runtime"
)

// Grant is what the caller of a request may do, as the authorization layer in
// front of the server verified it: package mcphttp sets it from the bearer
// token its Auth accepted. Without a Grant in a request's context (stdio, an
// in-process session, an HTTP handler without Auth) no tool's Scopes are
// checked.
type Grant struct {
	// Scopes are the scopes the caller's access token grants.
	Scopes []string
	// HideTools leaves the tools whose Scopes the grant lacks out of
	// tools/list. Such lists vary by caller, so in 2026-07-28 they are marked
	// cacheScope "private".
	HideTools bool
}

type grantKey struct{}

// WithGrant returns ctx carrying g, the caller's authorization, which
// tools/call and tools/list requests served with ctx are checked against.
func WithGrant(ctx context.Context, g *Grant) context.Context {
	return context.WithValue(ctx, grantKey{}, g)
}

// GrantFromContext returns the Grant of the request ctx belongs to, or nil.
func GrantFromContext(ctx context.Context) *Grant {
	g, _ := ctx.Value(grantKey{}).(*Grant)
	return g
}

// MissingScopes returns the scopes of required that granted lacks, in the
// order of required; nil when granted has them all.
func MissingScopes(required, granted []string) []string {
	var missing []string
	for _, s := range required {
		if !slices.Contains(granted, s) {
			missing = append(missing, s)
		}
	}
	return missing
}

// ValidScope reports whether s is a scope token as OAuth defines it (RFC
// 6749 §3.3): one or more printable ASCII characters other than space, '"'
// and '\\'.
func ValidScope(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c > '~' || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// ToolScopes returns the Scopes of the tool named name, and whether the
// server has such a tool.
func (s *Server) ToolScopes(name string) ([]string, bool) {
	t := s.reg.Load().tool(name)
	if t == nil {
		return nil, false
	}
	return t.Scopes, true
}

// Scopes returns every scope the server's tools require, sorted and without
// repeats: what a Protected Resource Metadata document's scopes_supported
// lists (see mcphttp.ProtectedResourceMetadata).
func (s *Server) Scopes() []string {
	var all []string
	for _, t := range s.reg.Load().tools {
		all = append(all, t.Scopes...)
	}
	slices.Sort(all)
	return slices.Compact(all)
}

// errInsufficientScope is the error of a tools/call whose caller's grant
// lacks scopes the tool requires. An HTTP handler with Auth refuses such a
// call with 403 before it gets here; this is what any other transport that
// sets a Grant answers.
func errInsufficientScope(tool string, missing []string) *runtime.Error {
	return &runtime.Error{
		Code:    runtime.CodeInvalidRequest,
		Message: "insufficient scope: tool " + tool + " requires " + strings.Join(missing, " "),
		Data:    marshal(map[string]any{"requiredScopes": missing}),
	}
}

// visibleTools returns the tools of r that g lets the caller see, or nil
// when g hides none of them.
func visibleTools(tools []*Tool, g *Grant) []*Tool {
	if g == nil || !g.HideTools {
		return nil
	}
	var out []*Tool
	for i, t := range tools {
		if MissingScopes(t.Scopes, g.Scopes) == nil {
			if out != nil {
				out = append(out, t)
			}
			continue
		}
		if out == nil {
			out = append(make([]*Tool, 0, len(tools)), tools[:i]...)
		}
	}
	if out == nil {
		// Every tool is visible; the list is still the caller's own.
		return tools
	}
	return out
}
