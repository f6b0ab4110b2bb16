package mdlinks

import (
	"bufio"
	"bytes"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// pending are pages that links may name before they exist, each with who
// writes it; once a page exists its links are checked like any other.
var pending = map[string]string{
	"docs/architecture.md": "the generator's restructuring (issue 15)",
}

// inlineLink matches [text](target) and ![alt](target), target up to a space
// (a title may follow) or the closing parenthesis.
var inlineLink = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)

// refDef matches a reference definition, "[name]: target".
var refDef = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s+(\S+)`)

func TestRelativeLinks(t *testing.T) {
	root := repoRoot(t)
	pages := markdownFiles(t, root)
	if len(pages) < 10 {
		t.Fatalf("found %d Markdown files under %s, want the repository's", len(pages), root)
	}
	anchors := map[string]map[string]bool{} // page → its heading anchors
	checked := 0
	for _, page := range pages {
		for _, l := range pageLinks(t, filepath.Join(root, page)) {
			target, frag, ok := resolve(page, l.target)
			if !ok {
				continue
			}
			checked++
			if target == "" {
				target = page
			}
			info, err := os.Stat(filepath.Join(root, target))
			if err != nil {
				if _, ok := pending[target]; !ok {
					t.Errorf("%s:%d: link %q: %s does not exist", page, l.line, l.target, target)
				}
				continue
			}
			if frag == "" || info.IsDir() || !strings.HasSuffix(target, ".md") {
				continue
			}
			if anchors[target] == nil {
				anchors[target] = headingAnchors(t, filepath.Join(root, target))
			}
			if !anchors[target][frag] {
				t.Errorf("%s:%d: link %q: %s has no heading #%s", page, l.line, l.target, target, frag)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no relative links found")
	}
}

// TestHeadingAnchor pins the anchor rule to what GitHub renders.
func TestHeadingAnchor(t *testing.T) {
	for in, want := range map[string]string{
		"Resources, prompts and completions":     "resources-prompts-and-completions",
		"JSON-RPC over HTTP (rpchttp)":           "json-rpc-over-http-rpchttp",
		"Security settings (mcphttp.Options)":    "security-settings-mcphttpoptions",
		"The `rpcgen` command line":              "the-rpcgen-command-line",
		"API stability before v1":                "api-stability-before-v1",
		"[Unreleased]":                           "unreleased",
		"HTTP: transports and security settings": "http-transports-and-security-settings",
	} {
		if got := anchor(in); got != want {
			t.Errorf("anchor(%q) = %q, want %q", in, got, want)
		}
	}
}

type link struct {
	target string
	line   int
}

// pageLinks returns the links of a page outside code blocks and code spans.
func pageLinks(t *testing.T, path string) []link {
	var links []link
	inFence := false
	forEachLine(t, path, func(n int, line string) {
		if isFence(line) {
			inFence = !inFence
			return
		}
		if inFence {
			return
		}
		line = stripCodeSpans(line)
		for _, m := range inlineLink.FindAllStringSubmatch(line, -1) {
			links = append(links, link{m[1], n})
		}
		if m := refDef.FindStringSubmatch(line); m != nil {
			links = append(links, link{m[1], n})
		}
	})
	return links
}

// resolve turns a link target on page into a path from the repository root
// and a fragment; ok is false for links that leave the repository (a URL
// with a scheme, or a path above the root).
func resolve(page, target string) (path, frag string, ok bool) {
	u, err := url.Parse(target)
	if err != nil || u.Scheme != "" || u.Host != "" {
		return "", "", false
	}
	frag = u.Fragment
	if u.Path == "" {
		return "", frag, true
	}
	p := filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(page), u.Path)))
	if strings.HasPrefix(p, "../") || p == ".." {
		return "", "", false
	}
	return p, frag, true
}

// headingAnchors returns the anchors of a page's headings, numbered as
// GitHub numbers repeats ("x", "x-1", ...).
func headingAnchors(t *testing.T, path string) map[string]bool {
	set := map[string]bool{}
	seen := map[string]int{}
	inFence := false
	forEachLine(t, path, func(_ int, line string) {
		if isFence(line) {
			inFence = !inFence
			return
		}
		if inFence || !strings.HasPrefix(line, "#") {
			return
		}
		text := strings.TrimSpace(strings.TrimLeft(line, "#"))
		a := anchor(text)
		if n := seen[a]; n > 0 {
			set[a+"-"+itoa(n)] = true
		} else {
			set[a] = true
		}
		seen[a]++
	})
	return set
}

// anchor is GitHub's heading anchor: lower case, letters, digits, '-' and
// '_' kept, spaces made '-', everything else dropped.
func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func itoa(n int) string {
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

func isFence(line string) bool {
	l := strings.TrimSpace(line)
	return strings.HasPrefix(l, "```") || strings.HasPrefix(l, "~~~")
}

// stripCodeSpans removes `code` spans, whose brackets are not links.
func stripCodeSpans(line string) string {
	var b strings.Builder
	in := false
	for _, r := range line {
		if r == '`' {
			in = !in
			continue
		}
		if !in {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func forEachLine(t *testing.T, path string, f func(n int, line string)) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		f(n, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// markdownFiles lists the .md files under root, from root, leaving out
// installed dependencies.
func markdownFiles(t *testing.T, root string) []string {
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".md") {
			rel, _ := filepath.Rel(root, path)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// repoRoot is the directory of the root module's go.mod, above this package.
func repoRoot(t *testing.T) string {
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && bytes.HasPrefix(data, []byte("module github.com/rpcgen/rpcgen\n")) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod of github.com/rpcgen/rpcgen above the test's directory")
		}
		dir = parent
	}
}
