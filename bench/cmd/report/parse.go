package main

import (
	"bufio"
	"io"
	"strconv"
	"strings"
)

// result is one benchmark line of one run: its full name without the
// GOMAXPROCS suffix, and its metrics by unit (ns/op, B/op, allocs/op and any
// custom metric from b.ReportMetric).
type result struct {
	name    string
	iters   int64
	metrics map[string]float64
}

// parseOutput reads the standard output of a benchmark binary and returns its
// results and the value of its "cpu:" line, if any. procs is the GOMAXPROCS
// the binary ran with: the "-procs" suffix the testing package adds to every
// name is removed (it is absent when procs is 1). Lines that are not results
// (logs, PASS, ok) are skipped.
func parseOutput(r io.Reader, procs int) (results []result, cpu string) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "cpu: "); ok {
			cpu = strings.TrimSpace(v)
			continue
		}
		if res, ok := parseLine(line, procs); ok {
			results = append(results, res)
		}
	}
	return results, cpu
}

// parseLine parses one result line:
//
//	BenchmarkName-2   	 1000	      5234 ns/op	    1800 B/op	      24 allocs/op
func parseLine(line string, procs int) (result, bool) {
	f := strings.Fields(line)
	if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") || len(f)%2 != 0 {
		return result{}, false
	}
	iters, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return result{}, false
	}
	res := result{name: trimProcs(f[0], procs), iters: iters, metrics: map[string]float64{}}
	for i := 2; i+1 < len(f); i += 2 {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return result{}, false
		}
		res.metrics[f[i+1]] = v
	}
	return res, true
}

// trimProcs removes the "-N" suffix the testing package appends when
// GOMAXPROCS is N > 1.
func trimProcs(name string, procs int) string {
	if procs <= 1 {
		return name
	}
	return strings.TrimSuffix(name, "-"+strconv.Itoa(procs))
}

// splitName splits a benchmark name into its table (the top-level benchmark
// without "Benchmark"), its row (the remaining parts but the impl, joined by
// "/") and its impl (the value of the "impl=" part; "" when there is none).
func splitName(name string) (table, row, impl string) {
	parts := strings.Split(strings.TrimPrefix(name, "Benchmark"), "/")
	table = parts[0]
	var rest []string
	for _, p := range parts[1:] {
		if v, ok := strings.CutPrefix(p, "impl="); ok {
			impl = v
			continue
		}
		rest = append(rest, p)
	}
	return table, strings.Join(rest, "/"), impl
}
