package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"
)

// machine describes where the benchmarks ran.
type machine struct {
	cpu    string
	cores  int
	os     string
	goVers string
}

// describeMachine reads the CPU model from /proc/cpuinfo, falling back to
// the "cpu:" line the benchmarks printed.
func describeMachine(benchCPU string) machine {
	m := machine{cpu: benchCPU, cores: runtime.NumCPU(), goVers: runtime.Version()}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.SplitSeq(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	if m.cpu == "" {
		m.cpu = "unknown CPU"
	}
	m.os = runtime.GOOS + "/" + runtime.GOARCH
	if b, err := os.ReadFile("/etc/os-release"); err == nil {
		for line := range strings.SplitSeq(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "PRETTY_NAME="); ok {
				m.os += ", " + strings.Trim(v, `"`)
			}
		}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.os += ", kernel " + strings.TrimSpace(string(b))
	}
	return m
}

// reportInfo is what the header says.
type reportInfo struct {
	started time.Time
	elapsed time.Duration
	machine machine
	command string
	cfg     config
	procs   int
	charts  map[string]string // a table's chart, by table name
}

func writeReport(w io.Writer, info reportInfo, pkgs []*pkgRun, coll *collection) {
	m := info.machine
	fmt.Fprintf(w, "# Benchmark results\n\n")
	fmt.Fprintf(w, "- Date: %s (the run took %s)\n", info.started.UTC().Format("2006-01-02 15:04 MST"), info.elapsed.Round(time.Second))
	fmt.Fprintf(w, "- Machine: %s, %d cores (GOMAXPROCS %d), %s\n", m.cpu, m.cores, info.procs, m.os)
	fmt.Fprintf(w, "- Go: %s\n", m.goVers)
	fmt.Fprintf(w, "- Command, from `bench/`: `%s`\n", info.command)
	fmt.Fprintf(w, "- Each of the %d rounds runs every package's test binary once, in the order below, as\n  `%s`\n",
		info.cfg.rounds, "<pkg>.test "+strings.Join(quoteAll(info.cfg.args()), " "))
	fmt.Fprintf(w, "\nA cell is the median over the rounds of the time per operation (± half the spread between the\n"+
		"fastest and the slowest round), the allocations and the bytes allocated per operation, and any\n"+
		"custom metric. An \"X / rpcgen\" column is the median over the rounds of X's time divided by\n"+
		"rpcgen's in the same row and round: above 1 means X is slower than rpcgen. A table with the\n"+
		"hand-written reference server ends with \"rpcgen / reference\", the same ratio the other way\n"+
		"round: below 1.1 meets the \"within 1.1× of the reference\" targets.\n\n")
	if len(info.charts) > 0 {
		fmt.Fprintf(w, "Below each table with rpcgen and a peer, a chart draws those ratios: a bar group per row, a\n"+
			"bar per implementation, right of the 1× line when it takes longer than rpcgen, on a log scale\n"+
			"(2× slower and 2× faster are bars of one length).\n\n")
	}

	fmt.Fprintf(w, "## Packages\n\n| package | status |\n|---|---|\n")
	for _, p := range pkgs {
		status := p.status
		if p.bin != "" {
			status = fmt.Sprintf("%d benchmarks", len(p.names))
			if len(p.failures) > 0 {
				status += fmt.Sprintf(", %d failed runs (below)", len(p.failures))
			}
		} else if p.detail != "" {
			status += " (below)"
		}
		fmt.Fprintf(w, "| %s | %s |\n", p.path, status)
	}
	for _, p := range pkgs {
		if p.detail != "" {
			fmt.Fprintf(w, "\n%s, %s:\n\n```\n%s\n```\n", p.path, p.status, p.detail)
		}
		for _, f := range p.failures {
			head, body, _ := strings.Cut(f, "\n")
			fmt.Fprintf(w, "\n%s, failed run, %s:\n\n```\n%s\n```\n", p.path, head, body)
		}
	}
	for _, t := range coll.tables {
		fmt.Fprintf(w, "\n## %s\n\nFrom `%s`.\n\n", t.name, t.pkg)
		t.writeMarkdown(w)
		if link := info.charts[t.name]; link != "" {
			fmt.Fprintf(w, "\n![%s: each implementation's time per operation as a multiple of rpcgen's](%s)\n", t.name, link)
		}
	}
}

func quoteAll(args []string) []string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = shellQuote(a)
	}
	return q
}
