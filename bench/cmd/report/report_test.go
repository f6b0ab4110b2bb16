package main

import (
	"bytes"
	"strings"
	"testing"
)

// round1 and round2 are canned outputs of two runs of the same binary with
// GOMAXPROCS 2, with a log line, a custom metric and a benchmark without impl.
const round1 = `goos: linux
goarch: amd64
pkg: github.com/rpcgen/rpcgen/bench/mcpbench
cpu: AMD EPYC 7B13
BenchmarkToolsCall/add/inprocess/legacy/c=1/impl=rpcgen-2         	  100000	      5000 ns/op	     968 B/op	      16 allocs/op
BenchmarkToolsCall/add/inprocess/legacy/c=1/impl=gosdk-2          	    2000	     50000 ns/op	   40200 B/op	     202 allocs/op
    bench_test.go:12: some log line
BenchmarkToolsCall/add/inprocess/legacy/c=1/impl=mcpgo-validate-2 	   30000	     20000 ns/op	   10300 B/op	     209 allocs/op
BenchmarkColdStart/stdio/impl=rpcgen-2 	      50	   2000000 ns/op	         3.500 rss-MB	    1024 B/op	       9 allocs/op
BenchmarkOther-2 	 1000	      1234 ns/op
PASS
ok  	github.com/rpcgen/rpcgen/bench/mcpbench	3.2s
`

const round2 = `cpu: AMD EPYC 7B13
BenchmarkToolsCall/add/inprocess/legacy/c=1/impl=gosdk-2          	    2000	     30000 ns/op	   40200 B/op	     202 allocs/op
BenchmarkToolsCall/add/inprocess/legacy/c=1/impl=rpcgen-2         	  100000	     10000 ns/op	     968 B/op	      16 allocs/op
BenchmarkToolsCall/add/inprocess/legacy/c=1/impl=mcpgo-validate-2 	   30000	     30000 ns/op	   10300 B/op	     209 allocs/op
BenchmarkToolsCall/echo/stdio/modern/c=64/impl=gosdk-2          	    2000	     70000 ns/op	   40200 B/op	     202 allocs/op
BenchmarkColdStart/stdio/impl=rpcgen-2 	      50	   4000000 ns/op	         4.500 rss-MB	    1024 B/op	       9 allocs/op
--- FAIL: BenchmarkBroken-2
PASS
`

func TestParseOutput(t *testing.T) {
	results, cpu := parseOutput(strings.NewReader(round1), 2)
	if cpu != "AMD EPYC 7B13" {
		t.Errorf("cpu = %q", cpu)
	}
	if len(results) != 5 {
		t.Fatalf("got %d results, want 5: %+v", len(results), results)
	}
	r := results[2]
	if r.name != "BenchmarkToolsCall/add/inprocess/legacy/c=1/impl=mcpgo-validate" || r.iters != 30000 {
		t.Errorf("name %q iters %d", r.name, r.iters)
	}
	if r.metrics["ns/op"] != 20000 || r.metrics["B/op"] != 10300 || r.metrics["allocs/op"] != 209 {
		t.Errorf("metrics %v", r.metrics)
	}
	if got := results[3].metrics["rss-MB"]; got != 3.5 {
		t.Errorf("custom metric rss-MB = %v", got)
	}
}

func TestParseLine(t *testing.T) {
	for _, c := range []struct {
		line  string
		procs int
		name  string
		ok    bool
	}{
		{"BenchmarkX-8 \t 10 \t 5 ns/op", 8, "BenchmarkX", true},
		{"BenchmarkX-8 \t 10 \t 5 ns/op", 1, "BenchmarkX-8", true}, // no suffix at GOMAXPROCS 1
		{"BenchmarkX/impl=mcpgo-validate \t 10 \t 5 ns/op", 1, "BenchmarkX/impl=mcpgo-validate", true},
		{"BenchmarkX-2", 2, "", false},                   // a name alone, before logs
		{"BenchmarkX-2 \t 10 \t 5", 2, "", false},        // value without unit
		{"BenchmarkX-2 \t ten \t 5 ns/op", 2, "", false}, // not a count
		{"    bench_test.go:3: BenchmarkX 1 2 ns/op", 2, "", false},
		{"ok  \tpkg\t1.0s", 2, "", false},
	} {
		r, ok := parseLine(c.line, c.procs)
		if ok != c.ok || r.name != c.name {
			t.Errorf("parseLine(%q, %d) = %q, %v; want %q, %v", c.line, c.procs, r.name, ok, c.name, c.ok)
		}
	}
}

func TestSplitName(t *testing.T) {
	for _, c := range []struct{ name, table, row, impl string }{
		{"BenchmarkToolsCall/add/inprocess/legacy/c=1/impl=rpcgen", "ToolsCall", "add/inprocess/legacy/c=1", "rpcgen"},
		{"BenchmarkColdStart/impl=gosdk/stdio", "ColdStart", "stdio", "gosdk"},
		{"BenchmarkOther", "Other", "", ""},
	} {
		table, row, impl := splitName(c.name)
		if table != c.table || row != c.row || impl != c.impl {
			t.Errorf("splitName(%q) = %q, %q, %q", c.name, table, row, impl)
		}
	}
}

func canned(t *testing.T) *collection {
	t.Helper()
	coll := newCollection()
	for round, out := range []string{round1, round2} {
		results, _ := parseOutput(strings.NewReader(out), 2)
		for _, r := range results {
			coll.add("./mcpbench", round+1, r)
		}
	}
	return coll
}

func TestCollection(t *testing.T) {
	coll := canned(t)
	var names []string
	for _, tb := range coll.tables {
		names = append(names, tb.name)
	}
	if got := strings.Join(names, ","); got != "ToolsCall,ColdStart,Other" {
		t.Errorf("tables %s", got)
	}
	tc := coll.byName["ToolsCall"]
	// rpcgen moves to the front although gosdk came first in round 2.
	if got := strings.Join(tc.impls, ","); got != "rpcgen,gosdk,mcpgo-validate" {
		t.Errorf("impls %s", got)
	}
	if len(tc.rows) != 2 {
		t.Fatalf("rows %d", len(tc.rows))
	}
	row := tc.byKey["add/inprocess/legacy/c=1"]
	// Per-round ratios: gosdk 50000/5000 = 10 and 30000/10000 = 3, median 6.5,
	// where the ratio of the medians would be 40000/7500 = 5.33.
	if v, ok := ratio(row.cells["gosdk"], row.cells["rpcgen"]); !ok || v != 6.5 {
		t.Errorf("gosdk/rpcgen = %v, %v; want 6.5", v, ok)
	}
	if got := formatCell(row.cells["rpcgen"]); got != "7.50 µs ±33% · 16 allocs · 968 B" {
		t.Errorf("rpcgen cell %q", got)
	}
	if got := formatCell(coll.byName["ColdStart"].byKey["stdio"].cells["rpcgen"]); got != "3.00 ms ±33% · 9 allocs · 1.02 kB · 4.00 rss-MB" {
		t.Errorf("cold start cell %q", got)
	}
}

func TestWriteMarkdown(t *testing.T) {
	var b bytes.Buffer
	canned(t).byName["ToolsCall"].writeMarkdown(&b)
	want := `| row | rpcgen | gosdk | mcpgo-validate | gosdk / rpcgen | mcpgo-validate / rpcgen |
| --- | --- | --- | --- | --: | --: |
| add/inprocess/legacy/c=1 | 7.50 µs ±33% · 16 allocs · 968 B | 40.0 µs ±25% · 202 allocs · 40.2 kB | 25.0 µs ±20% · 209 allocs · 10.3 kB | 6.50× | 3.50× |
| echo/stdio/modern/c=64 |  | 70.0 µs · 202 allocs · 40.2 kB |  |  |  |
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestWriteMarkdownWithoutBaseline(t *testing.T) {
	var b bytes.Buffer
	canned(t).byName["Other"].writeMarkdown(&b)
	want := "| row | (no impl) |\n| --- | --- |\n| (all) | 1.23 µs |\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"-rounds":     "-rounds",
		"^$":          `'^$'`,
		"a b":         `'a b'`,
		"it's":        `'it'\''s'`,
		"./mcpbench,": "./mcpbench,",
		"":            "''",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestWriteMarkdownReference checks the last column of a table with the
// reference impl: rpcgen's per-round time ratio to it.
func TestWriteMarkdownReference(t *testing.T) {
	coll := newCollection()
	for round, out := range []string{
		"BenchmarkToolsCallHTTP/add/json/legacy/c=1/impl=rpcgen-2 \t 100 \t 1000 ns/op\n" +
			"BenchmarkToolsCallHTTP/add/json/legacy/c=1/impl=reference-2 \t 100 \t 1000 ns/op\n" +
			"BenchmarkToolsCallHTTP/add/json/legacy/c=1/impl=gosdk-2 \t 100 \t 4000 ns/op\n",
		"BenchmarkToolsCallHTTP/add/json/legacy/c=1/impl=rpcgen-2 \t 100 \t 2400 ns/op\n" +
			"BenchmarkToolsCallHTTP/add/json/legacy/c=1/impl=reference-2 \t 100 \t 2000 ns/op\n" +
			"BenchmarkToolsCallHTTP/add/json/legacy/c=1/impl=gosdk-2 \t 100 \t 6000 ns/op\n",
	} {
		results, _ := parseOutput(strings.NewReader(out), 2)
		for _, r := range results {
			coll.add("./mcpbench", round+1, r)
		}
	}
	var b bytes.Buffer
	coll.byName["ToolsCallHTTP"].writeMarkdown(&b)
	want := `| row | rpcgen | reference | gosdk | reference / rpcgen | gosdk / rpcgen | rpcgen / reference |
| --- | --- | --- | --- | --: | --: | --: |
| add/json/legacy/c=1 | 1.70 µs ±41% | 1.50 µs ±33% | 5.00 µs ±20% | 0.92× | 3.25× | 1.10× |
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
