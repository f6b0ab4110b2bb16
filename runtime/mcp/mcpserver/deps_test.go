package mcpserver_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoCryptography holds package mcpserver to linking no cryptography: its
// initialisation (crypto/internal/fips140 and the rest) is a good part of a
// stdio server's cold start, and only a server that asks the client for input
// needs the ciphers of a requestState, which come with package ask.
func TestNoCryptography(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command:", err)
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if pkg == "crypto" || strings.HasPrefix(pkg, "crypto/") || pkg == "math/big" {
			t.Errorf("package mcpserver depends on %s", pkg)
		}
	}
}
