package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAPIFiles checks --openrpc, --ts, --docs, --api-version and
// --no-discover end to end: the files are written where asked, the Go file
// answers rpc.discover unless told not to, and --check covers the files.
func TestAPIFiles(t *testing.T) {
	dir := newPackage(t, calcSrc)
	args := []string{"--openrpc", "api/calc.openrpc.json", "--ts", "web/calc.ts", "--docs", "API.md", "--api-version", "2.1.0", "Calculator"}
	if code, _, stderr := runIn(t, dir, args...); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}

	doc, err := os.ReadFile(filepath.Join(dir, "api", "calc.openrpc.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		OpenRPC string `json:"openrpc"`
		Info    struct {
			Title, Version string
		}
		Methods []struct {
			Name string
		}
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		t.Fatalf("OpenRPC document is not JSON: %v\n%s", err, doc)
	}
	if d.OpenRPC != "1.3.2" || d.Info.Title != "Calculator" || d.Info.Version != "2.1.0" ||
		len(d.Methods) != 1 || d.Methods[0].Name != "calculator.add" {
		t.Errorf("OpenRPC document:\n%s", doc)
	}
	ts, err := os.ReadFile(filepath.Join(dir, "web", "calc.ts"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(ts), "async add(a: number, b: number, options?: CallOptions): Promise<number>") {
		t.Errorf("TypeScript client has no add method:\n%s", ts)
	}
	md, err := os.ReadFile(filepath.Join(dir, "API.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "## `calculator.add`") || !strings.Contains(string(md), "Version 2.1.0.") {
		t.Errorf("Markdown reference:\n%s", md)
	}
	src, err := os.ReadFile(filepath.Join(dir, "calculator_rpcgen.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), `case "rpc.discover":`) {
		t.Error("the dispatcher does not answer rpc.discover")
	}

	// --check covers the three files.
	if code, stdout, stderr := runIn(t, dir, append([]string{"--check"}, args...)...); code != exitOK || stdout != "" {
		t.Fatalf("fresh output: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	write(t, filepath.Join(dir, "calc.go"), strings.Replace(calcSrc, "// Add returns a + b.", "// Add returns the sum.", 1))
	code, stdout, stderr := runIn(t, dir, append([]string{"--check"}, args...)...)
	for _, f := range []string{"api/calc.openrpc.json", "web/calc.ts", "API.md"} {
		if !strings.Contains(stderr, f+" is stale") {
			t.Errorf("--check does not report %s: exit %d, stderr %q", f, code, stderr)
		}
	}
	if code != exitFail || !strings.Contains(stdout, `+      "description": "Add returns the sum.",`) {
		t.Fatalf("stale OpenRPC document: exit %d, stdout:\n%s", code, stdout)
	}

	// --no-discover keeps the document out of the Go file.
	if code, _, stderr := runIn(t, dir, "--no-discover", "--openrpc", "api/calc.openrpc.json", "Calculator"); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	src, err = os.ReadFile(filepath.Join(dir, "calculator_rpcgen.go"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(src), "rpc.discover") {
		t.Error("--no-discover: the dispatcher still answers rpc.discover")
	}
}

// TestInfoFlags checks --server, --license, --license-url, --contact,
// --contact-email and --contact-url: they reach the OpenRPC document's
// servers and info, and a server that is not an absolute URL is refused.
func TestInfoFlags(t *testing.T) {
	dir := newPackage(t, calcSrc)
	args := []string{"--openrpc", "calc.openrpc.json", "--server", "https://calc.example.com/rpc", "--server", "http://127.0.0.1:8080",
		"--license", "MIT", "--license-url", "https://opensource.org/license/mit", "--contact", "Calc Team",
		"--contact-email", "calc@example.com", "--contact-url", "https://example.com/calc", "Calculator"}
	if code, _, stderr := runIn(t, dir, args...); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	doc, err := os.ReadFile(filepath.Join(dir, "calc.openrpc.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Info struct {
			License struct{ Name, URL string }
			Contact struct{ Name, Email, URL string }
		}
		Servers []struct{ URL string }
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		t.Fatal(err)
	}
	if d.Info.License.Name != "MIT" || d.Info.License.URL != "https://opensource.org/license/mit" ||
		d.Info.Contact.Name != "Calc Team" || d.Info.Contact.Email != "calc@example.com" || d.Info.Contact.URL != "https://example.com/calc" ||
		len(d.Servers) != 2 || d.Servers[0].URL != "https://calc.example.com/rpc" || d.Servers[1].URL != "http://127.0.0.1:8080" {
		t.Errorf("OpenRPC document:\n%s", doc)
	}

	for _, bad := range [][]string{{"--server", "calc.example.com"}, {"--contact-email", "not an address"}, {"--license-url", "/license"}} {
		code, _, stderr := runIn(t, dir, append(append([]string{"--openrpc", "calc.openrpc.json"}, bad...), "Calculator")...)
		if code == exitOK || !strings.Contains(stderr, bad[1]) {
			t.Errorf("%v: exit %d, stderr %q; want a failure naming %q", bad, code, stderr, bad[1])
		}
	}
}
