package mcp_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoCryptography holds package mcp, the vocabulary every server and
// client links, to linking no cryptography (whose initialisation is a good
// part of a stdio server's cold start) and neither the server nor the
// client.
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
		if pkg == "crypto" || strings.HasPrefix(pkg, "crypto/") || pkg == "math/big" ||
			strings.HasSuffix(pkg, "/mcpserver") || strings.HasSuffix(pkg, "/mcpclient") {
			t.Errorf("package mcp depends on %s", pkg)
		}
	}
}
