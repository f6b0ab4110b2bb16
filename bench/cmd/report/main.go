// Command report runs the benchmark packages of this module in interleaved
// rounds and prints their results as Markdown tables: a row per benchmark
// row, a column per implementation (median time, allocations and bytes per
// operation, and any custom metric), and the median per-round time ratio of
// every implementation to rpcgen.
//
//	cd bench && go run ./cmd/report [-rounds 5] [-benchtime 300ms] [-bench REGEXP] [-pkgs ./mcpbench,./rpcbench,./streambench,./otelbench,./replicabench,./taskbench,./coldstart,./genbench]
//
// Each package's test binary is built once; then every round runs each
// binary once, so that slow drift of the machine (heat, other load) spreads
// over all packages and implementations instead of favouring whichever ran
// first. A package that is missing or does not build is reported as such.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
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
}

func main() {
	var cfg config
	var pkgs string
	flag.IntVar(&cfg.rounds, "rounds", 5, "number of interleaved rounds; each runs every package once")
	flag.StringVar(&cfg.benchtime, "benchtime", "300ms", "-test.benchtime of each run")
	flag.StringVar(&cfg.bench, "bench", ".", "-test.bench regular expression of each run")
	flag.StringVar(&pkgs, "pkgs", "./mcpbench,./rpcbench,./streambench,./otelbench,./replicabench,./taskbench,./coldstart,./genbench", "comma-separated benchmark packages, relative to the bench module")
	flag.DurationVar(&cfg.timeout, "timeout", 30*time.Minute, "-test.timeout of each run")
	flag.StringVar(&cfg.out, "o", "", "write the Markdown to this file instead of standard output")
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

	var w io.Writer = os.Stdout
	if cfg.out != "" {
		f, err := os.Create(cfg.out)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	m := describeMachine(cpu)
	writeReport(w, reportInfo{
		started: started, elapsed: time.Since(started), machine: m,
		command: commandLine(args), cfg: cfg, procs: procs,
	}, pkgs, coll)
	if cfg.out != "" {
		return w.(*os.File).Close()
	}
	return nil
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
