package mcphttp

import (
	"testing"
)

// WaitUntil is eventually for the package's external tests: it waits until
// cond holds, looking again at each change h notes, failing after 10s.
func (h *Handler) WaitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	eventually(t, h, what, cond)
}
