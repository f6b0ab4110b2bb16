package mcphttp

import (
	"net/http"

	"github.com/rpcgen/rpcgen/runtime"
)

// guard runs the checks every request passes before anything else, in the
// order the protocol's security rules need them: the Origin (a browser page
// of another site gets 403; the protocol's defence against DNS rebinding),
// the Host on a loopback listener (403 for a name other than a loopback one,
// which is what DNS rebinding looks like from the server), then the bearer
// token when Auth is set (401/403). On success it returns the request to
// serve, carrying the token's TokenInfo in its context; otherwise it has
// answered and returns false.
func (h *Handler) guard(w http.ResponseWriter, r *http.Request) (*http.Request, bool) {
	if h.cors != nil {
		// First: a page of a listed origin reads even a refusal.
		h.cors.SetHeaders(w.Header(), r)
	}
	if msg := h.policy.Check(r); msg != "" {
		writeError(w, http.StatusForbidden, nil, runtime.CodeInvalidRequest, msg)
		return nil, false
	}
	if h.opts.Auth != nil {
		return h.opts.Auth.authenticate(w, r)
	}
	return r, true
}
