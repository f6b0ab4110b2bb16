package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// pkgRun is one benchmark package: its test binary, once built, and what
// went wrong with it.
type pkgRun struct {
	path     string // as given, relative to the bench module
	dir      string
	bin      string // "" when there is nothing to run
	status   string // why bin is empty: "missing", "build failed", "no test files"
	detail   string // the build's error output, trimmed
	failures []string
	names    map[string]bool
}

// build compiles the test binary of the package at path into dir tmp.
func build(path, tmp string) *pkgRun {
	p := &pkgRun{path: path, names: map[string]bool{}}
	abs, err := filepath.Abs(path)
	if err != nil {
		p.status, p.detail = "missing", err.Error()
		return p
	}
	p.dir = abs
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		p.status = "missing"
		return p
	}
	bin := filepath.Join(tmp, strings.NewReplacer("/", "_", ".", "_").Replace(strings.Trim(path, "./"))+".test")
	cmd := exec.Command("go", "test", "-c", "-o", bin, path)
	out, err := cmd.CombinedOutput()
	if err != nil {
		p.status, p.detail = "build failed", tail(string(out), 12)
		return p
	}
	if _, err := os.Stat(bin); err != nil {
		p.status = "no test files"
		return p
	}
	p.bin = bin
	return p
}

func (p *pkgRun) buildStatus() string {
	if p.bin != "" {
		return "built"
	}
	return p.status
}

// args are the test binary's flags for one run.
func (cfg config) args() []string {
	return []string{
		"-test.run", "^$",
		"-test.bench", cfg.bench,
		"-test.benchmem",
		"-test.benchtime", cfg.benchtime,
		"-test.count", "1",
		"-test.timeout", cfg.timeout.String(),
	}
}

// run runs the binary once, in the package's directory as go test does, and
// returns what it measured. A failed run is noted; whatever it printed before
// failing is kept.
func (p *pkgRun) run(round int, cfg config, procs int) ([]result, string) {
	cmd := exec.Command(p.bin, cfg.args()...)
	cmd.Dir = p.dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	results, cpu := parseOutput(bytes.NewReader(stdout.Bytes()), procs)
	if err != nil {
		p.failures = append(p.failures, fmt.Sprintf("round %d: %v\n%s", round, err,
			tail(failureLines(stdout.String())+stderr.String(), 12)))
	}
	for _, r := range results {
		p.names[r.name] = true
	}
	return results, cpu
}

// failureLines keeps the lines of a benchmark binary's output that explain a
// failure: everything but result lines.
func failureLines(out string) string {
	var b strings.Builder
	for line := range strings.SplitSeq(out, "\n") {
		if _, ok := parseLine(line, 1); ok || strings.TrimSpace(line) == "" {
			continue
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.String()
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{"…"}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}
