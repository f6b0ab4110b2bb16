package mcphttp

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// toolScopes checks the tools/call requests of a POST body against the
// scopes their tools require (mcpserver.Tool.Scopes), before anything runs. When
// the token lacks some it answers 403 with error="insufficient_scope" and a
// challenge naming the scopes needed (the endpoint's own Scopes and those of
// every tool the body calls that the token cannot), and returns false. Only
// with Auth; a tool the server does not have is left to the server to
// refuse.
func (h *Handler) toolScopes(w http.ResponseWriter, r *http.Request, body []byte, env *envelope) bool {
	a := h.opts.Auth
	if a == nil {
		return true
	}
	ti := TokenInfoFromContext(r.Context())
	if ti == nil {
		return true
	}
	var missing []string
	check := func(name []byte) {
		var s string
		if json.Unmarshal(name, &s) != nil {
			return
		}
		if need, ok := h.srv.ToolScopes(s); ok && mcpserver.MissingScopes(need, ti.Scopes) != nil {
			missing = append(missing, need...)
		}
	}
	if env.Batch {
		var msgs []json.RawMessage
		if json.Unmarshal(body, &msgs) != nil {
			return true // the server answers the malformed batch
		}
		for _, m := range msgs {
			var e envelope
			if e.Scan(m) && e.MethodIs(mcp.MethodToolsCall) && e.ID != nil {
				e.ScanParams()
				check(e.Name)
			}
		}
	} else if env.MethodIs(mcp.MethodToolsCall) {
		check(env.Name)
	}
	if missing == nil {
		return true
	}
	scopes := union(a.Scopes, missing)
	a.challenge(w, r, http.StatusForbidden, "insufficient_scope", "",
		"Forbidden: the token lacks a scope this tool requires: "+strings.Join(mcpserver.MissingScopes(scopes, ti.Scopes), " "), scopes)
	return false
}

// union returns the scopes of a and then those of b not in a, each once.
func union(a, b []string) []string {
	out := make([]string, 0, len(a)+len(b))
	for _, list := range [][]string{a, b} {
		for _, s := range list {
			if !hasScope(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}
