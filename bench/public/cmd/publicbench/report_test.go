package main

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func testRun() *Run {
	return &Run{Date: time.Date(2026, 12, 4, 1, 2, 0, 0, time.UTC), Duration: "3m", Command: "go run ./public/cmd/publicbench",
		Machine: "m", Go: "go", Commit: "abc", LoadBefore: "1 1 1", LoadAfter: "2 2 2", GOMAXPROCS: 2,
		Shape: "50 users; ramp-up 5s", Servers: []*Row{
			{Impl: "rpcgen", RPS: 1500, RPSMin: 1400, RPSMax: 1600, RSSAvgMB: 10, RSSPeakMB: 12, CPUPerReqUS: 100, SingleCall: 1000, SingleCallP50US: 400},
			{Impl: "mcpgo", RPS: 1000, RSSAvgMB: 20, RSSPeakMB: 22, CPUPerReqUS: 150, SingleCall: 800, SingleCallP50US: 500},
			{Impl: "gosdk", RPS: 1200, RSSAvgMB: 15, RSSPeakMB: 16, CPUPerReqUS: 300, SingleCall: 500},
			{Impl: "floor", RPS: 2000, RSSAvgMB: 8, RSSPeakMB: 9, CPUPerReqUS: 50, SingleCall: 1250},
		}}
}

// TestWriteReport: the section goes between the markers, the rest of the
// file is kept, a second report replaces the first, and the chart is drawn.
func TestWriteReport(t *testing.T) {
	dir := t.TempDir()
	md, svg := filepath.Join(dir, "RESULTS.md"), filepath.Join(dir, "public", "chart.svg")
	if err := os.Mkdir(filepath.Dir(svg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(md, []byte("# Results\n\nother tables\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := testRun()
	for range 2 {
		if err := writeReport(run, md, svg); err != nil {
			t.Fatal(err)
		}
		run.Servers[0].RPS = 1600
	}
	b, _ := os.ReadFile(md)
	text := string(b)
	if !strings.HasPrefix(text, "# Results\n\nother tables\n\n"+beginMark) || !strings.HasSuffix(text, endMark+"\n") ||
		strings.Count(text, beginMark) != 1 {
		t.Fatalf("RESULTS.md:\n%s", text)
	}
	for _, want := range []string{
		"| rpcgen | 1600 (1400–1600) |", "| mcp-go | 1000 (0–0) |", "| Go SDK | 1200 (0–0) |",
		"rpcgen / mcp-go: 1.60× the requests per second, 0.50× the RSS average",
		"| 1000 (400 µs) | 0 |", "| 800 (500 µs) | 0 |", "| 500 | 0 |",
		"1.25× one caller's tools/call rate (0.80× its median latency)\n", "0.33× the CPU per request, 2.00× one caller's tools/call rate\n",
		"at least 1.4× mcp-go's requests per second: met (1.60×); more than the Go SDK's: met (1.33×); no more RSS than either: met",
		"](public/chart.svg)",
		"| floor: no MCP library | 2000 (0–0) |",
		"- rpcgen / floor: 0.80× the requests per second, 1.25× the RSS average, 1.33× the peak, 2.00× the CPU per request, 0.80× one caller's tools/call rate\n",
		"- floor / mcp-go: 2.00× the requests per second, 0.40× the RSS average, 0.33× the CPU per request\n- floor / Go SDK: 1.67× the requests per second, 0.53× the RSS average, 0.17× the CPU per request\n",
		"the most any server reaches on this loop, up to the spread of the rounds (its slowest and fastest: 0–0)",
		"it is 2.00× mcp-go's rate, at or above the 1.4× target; rpcgen reaches 80% of the floor's rate\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("RESULTS.md lacks %q:\n%s", want, text)
		}
	}
	s, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	for d := xml.NewDecoder(bytes.NewReader(s)); ; {
		if _, err := d.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("chart is not XML: %v\n%s", err, s)
		}
	}
	for _, want := range []string{"<svg ", ">1600<", ">10.0 MB<", ">12.0 MB<", ">20.0 MB (rpcgen 0.50×)<", ">1000 (rpcgen 1.60×)<", ">mcp-go<", ">2000 (rpcgen 0.80×)<", ">floor<", "</svg>"} {
		if !strings.Contains(string(s), want) {
			t.Errorf("chart lacks %q:\n%s", want, s)
		}
	}
}

// TestCappedSection: a run with a CPU limit writes a section of its own
// beside the uncapped run's, each replaced only by a run of its kind, and
// both say how rpcgen compares with the server of the published "go" row.
func TestCappedSection(t *testing.T) {
	dir := t.TempDir()
	md, svg := filepath.Join(dir, "RESULTS.md"), filepath.Join(dir, "chart.svg")
	plain, capped := testRun(), testRun()
	capped.CPULimit = 0.25
	capped.Servers[0].RPS = 2000
	plain.Servers[3].RPS = 1300 // floor: 1.30x mcp-go, below the target
	for _, run := range []*Run{plain, capped, plain, capped} {
		if err := writeReport(run, md, svg); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := os.ReadFile(md)
	text := string(b)
	for _, m := range []string{beginMark, endMark, cappedBeginMark, cappedEndMark} {
		if strings.Count(text, m) != 1 {
			t.Fatalf("%q %d times in:\n%s", m, strings.Count(text, m), text)
		}
	}
	if strings.Index(text, endMark) > strings.Index(text, cappedBeginMark) {
		t.Fatalf("the capped section is not after the plain one:\n%s", text)
	}
	plainText := text[strings.Index(text, beginMark):strings.Index(text, endMark)]
	cappedText := text[strings.Index(text, cappedBeginMark):strings.Index(text, cappedEndMark)]
	for _, c := range []struct{ text, want string }{
		{plainText, "## Public workload: TM Dev Lab's MCP benchmark v2, reproduced"},
		{plainText, "| rpcgen | 1500 (1400–1600) |"},
		{plainText, "Against that server (configured as the original's), rpcgen's rate is 1.25× (1.4×: missed); against the mcp-go library, 1.50×"},
		{cappedText, "## Public workload, server-bound: each server capped at 0.25 CPU"},
		{cappedText, "| rpcgen | 2000 (1400–1600) |"},
		{cappedText, "rpcgen's rate is 1.67× (1.4×: met); against the mcp-go library, 2.00×"},
		{plainText, "it is 1.30× mcp-go's rate, below the 1.4× target, which no server reaches here; rpcgen reaches 115% of the floor's rate\n"},
		{cappedText, "- Server-bound, the floor's rate is what the least server work buys at 0.25 CPU: rpcgen reaches 100% of it, mcp-go 50%\n"},
	} {
		if !strings.Contains(c.text, c.want) {
			t.Errorf("section lacks %q:\n%s", c.want, c.text)
		}
	}
	if strings.Contains(cappedText, "the most any server reaches") || strings.Contains(plainText, "Server-bound, the floor") {
		t.Errorf("a section says what the floor means in the other regime:\n%s", text)
	}
}
