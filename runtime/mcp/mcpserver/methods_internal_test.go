package mcpserver

import (
	"testing"

	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// TestServerAnswersTheTable checks that the server has a handler for every
// request of the protocol a client sends, and a row for every handler: a
// method added to the table and not to the server (or the reverse) fails
// here.
func TestServerAnswersTheTable(t *testing.T) {
	handled := loadServerMethods()
	for _, m := range mcp.Methods() {
		if m.Extension != "" || m.Notification || m.Direction&mcp.ClientToServer == 0 {
			continue
		}
		if _, ok := handled[m.Name]; !ok && m.Name != mcp.MethodInitialize && m.Name != mcp.MethodPing {
			t.Errorf("the table has %s, which the server does not answer", m.Name)
		}
	}
	for name, sm := range handled {
		if sm.Method == nil {
			t.Errorf("the server answers %s, which the table does not have", name)
		}
	}
}
