// Command report runs the benchmark packages of this module in interleaved
// rounds and prints their results as Markdown tables: a row per benchmark
// row, a column per implementation (median time, allocations and bytes per
// operation, and any custom metric), and the median per-round time ratio of
// every implementation to rpcgen.
//
//	cd bench && go run ./cmd/report [-rounds 5] [-benchtime 300ms] [-bench REGEXP] [-pkgs ./mcpbench,./rpcbench,./streambench,./otelbench,./replicabench,./taskbench,./coldstart,./genbench] [-o RESULTS.md] [-charts charts]
//
// Each package's test binary is built once; then every round runs each
// binary once, so that slow drift of the machine (heat, other load) spreads
// over all packages and implementations instead of favouring whichever ran
// first. A package that is missing or does not build is reported as such.
//
// With -o, a file that has the markers "<!-- report:begin -->" and
// "<!-- report:end -->" keeps everything outside them (hand-written
// sections, the public workload's); otherwise the report is the whole file.
// With -charts, each table with rpcgen and a peer also gets an SVG chart in
// that directory (rpcgen against each peer, a bar group per row), linked
// below its table.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// config is what the flags select.
type config struct {
	rounds    int
	benchtime string
	bench     string
	pkgs      []string
	timeout   time.Duration
	out       string
	charts    string
}

func main() {
	var cfg config
	var pkgs string
	flag.IntVar(&cfg.rounds, "rounds", 5, "number of interleaved rounds; each runs every package once")
	flag.StringVar(&cfg.benchtime, "benchtime", "300ms", "-test.benchtime of each run")
	flag.StringVar(&cfg.bench, "bench", ".", "-test.bench regular expression of each run")
	flag.StringVar(&pkgs, "pkgs", "./mcpbench,./rpcbench,./streambench,./otelbench,./replicabench,./taskbench,./coldstart,./genbench", "comma-separated benchmark packages, relative to the bench module")
	flag.DurationVar(&cfg.timeout, "timeout", 30*time.Minute, "-test.timeout of each run")
	flag.StringVar(&cfg.out, "o", "", "write the Markdown to this file (between its report markers when it has them) instead of standard output")
	flag.StringVar(&cfg.charts, "charts", "", "draw each table's chart (rpcgen against each peer) into this directory and link it")
	flag.Parse()
	if cfg.rounds < 1 || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	for p := range strings.SplitSeq(pkgs, ",") {
		if p = strings.TrimSpace(p); p != "" {
			cfg.pkgs = append(cfg.pkgs, p)
		}
	}
	if err := run(cfg, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
}

func run(cfg config, args []string) error {
	tmp, err := os.MkdirTemp("", "bench-report-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	started := time.Now()
	pkgs := make([]*pkgRun, len(cfg.pkgs))
	for i, p := range cfg.pkgs {
		pkgs[i] = build(p, tmp)
		fmt.Fprintf(os.Stderr, "report: %s: %s\n", p, pkgs[i].buildStatus())
	}
	procs := runtime.GOMAXPROCS(0)
	coll := newCollection()
	var cpu string
	for round := 1; round <= cfg.rounds; round++ {
		for _, p := range pkgs {
			if p.bin == "" {
				continue
			}
			fmt.Fprintf(os.Stderr, "report: round %d/%d: %s\n", round, cfg.rounds, p.path)
			results, c := p.run(round, cfg, procs)
			if c != "" {
				cpu = c
			}
			for _, r := range results {
				coll.add(p.path, round, r)
			}
		}
	}

	var links map[string]string
	if cfg.charts != "" {
		mdDir := "."
		if cfg.out != "" {
			mdDir = filepath.Dir(cfg.out)
		}
		if links, err = writeCharts(coll, cfg.charts, mdDir); err != nil {
			return err
		}
	}
	var md bytes.Buffer
	m := describeMachine(cpu)
	writeReport(&md, reportInfo{
		started: started, elapsed: time.Since(started), machine: m,
		command: commandLine(args), cfg: cfg, procs: procs, charts: links,
	}, pkgs, coll)
	if cfg.out == "" {
		_, err := os.Stdout.Write(md.Bytes())
		return err
	}
	return writeMarked(cfg.out, md.String())
}

const (
	beginMark = "<!-- report:begin (written by go run ./cmd/report) -->"
	endMark   = "<!-- report:end -->"
)

// writeMarked writes the report into path: between the markers when the
// file has them, the rest kept; otherwise as the whole file.
func writeMarked(path, report string) error {
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	text := string(old)
	b, e := strings.Index(text, beginMark), strings.Index(text, endMark)
	if b >= 0 && e > b {
		text = text[:b] + beginMark + "\n" + report + text[e:]
	} else {
		text = report
	}
	return os.WriteFile(path, []byte(text), 0o644)
}

// commandLine is the command that produced the report, as a user types it
// from the bench module.
func commandLine(args []string) string {
	quoted := []string{"go", "run", "./cmd/report"}
	for _, a := range args {
		quoted = append(quoted, shellQuote(a))
	}
	return strings.Join(quoted, " ")
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '-' || r == '.' || r == '/' || r == ',' || r == '=' || r == '_' || r == ':' ||
			'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
