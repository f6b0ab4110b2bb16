package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	chartpkg "github.com/rpcgen/rpcgen/bench/chart"
)

const (
	beginMark = "<!-- public:begin (written by go run ./public/cmd/publicbench) -->"
	endMark   = "<!-- public:end -->"
	// A run with -cpu-limit has a section of its own, so that both regimes
	// stand in RESULTS.md side by side.
	cappedBeginMark = "<!-- public-capped:begin (written by go run ./public/cmd/publicbench -cpu-limit) -->"
	cappedEndMark   = "<!-- public-capped:end -->"
)

// publishedGo is the published run's "go" row (requests per second), the
// figure issue 32 quotes as mcp-go's: the original's go-server is built on
// the official Go SDK (its go.mod requires github.com/modelcontextprotocol/go-sdk
// v1.2.0, not mcp-go), so the Go SDK's row here is the one it compares with.
const publishedGo = 3616

// marks are the markers of run's section.
func marks(run *Run) (begin, end string) {
	if run.CPULimit > 0 {
		return cappedBeginMark, cappedEndMark
	}
	return beginMark, endMark
}

// writeReport puts the run's section into md between its markers (appended
// when they are missing) and draws the chart at svgPath.
func writeReport(run *Run, md, svgPath string) error {
	beginMark, endMark := marks(run)
	if err := os.WriteFile(svgPath, []byte(chart(run)), 0o644); err != nil {
		return err
	}
	link, err := filepath.Rel(filepath.Dir(md), svgPath)
	if err != nil {
		link = svgPath
	}
	section := beginMark + "\n" + markdown(run, filepath.ToSlash(link)) + endMark + "\n"
	old, err := os.ReadFile(md)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	text := string(old)
	if b, e := strings.Index(text, beginMark), strings.Index(text, endMark); b >= 0 && e > b {
		text = text[:b] + section + text[e+len(endMark)+1:]
	} else {
		if text != "" && !strings.HasSuffix(text, "\n\n") {
			text += "\n"
		}
		text += section
	}
	return os.WriteFile(md, []byte(text), 0o644)
}

func (run *Run) row(impl string) *Row {
	for _, r := range run.Servers {
		if r.Impl == impl {
			return r
		}
	}
	return nil
}

var names = map[string]string{"rpcgen": "rpcgen", "mcpgo": "mcp-go", "gosdk": "Go SDK", "floor": "floor"}

// rowNames are the table's names where a server's name alone does not say
// what it is.
var rowNames = map[string]string{"floor": "floor: no MCP library"}

func rowName(impl string) string {
	if n, ok := rowNames[impl]; ok {
		return n
	}
	return name(impl)
}

func name(impl string) string {
	if n, ok := names[impl]; ok {
		return n
	}
	return impl
}

func percent(v float64) string {
	if v == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f%%", v)
}

func markdown(run *Run, svg string) string {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	if run.CPULimit > 0 {
		p("## Public workload, server-bound: each server capped at %.2f CPU\n\n", run.CPULimit)
	} else {
		p("## Public workload: TM Dev Lab's MCP benchmark v2, reproduced\n\n")
	}
	p("The three tools of `http4k/benchmark-mcp-servers-v2` (real Redis and HTTP I/O) served by each\n")
	p("library, driven by its k6 script's sessions (package `public/loadgen`), one server after the\n")
	p("other in one run, on the same redis-server and API service, each server with GOMAXPROCS=%d", run.GOMAXPROCS)
	if run.Pinning != "" {
		p(" (%s: the original gives each server its own 2 vCPUs, the load generator running elsewhere)", run.Pinning)
	}
	if run.CPULimit > 0 {
		p(", each capped at %.2f CPU by a cgroup's CPU quota (as docker's --cpus) so that the server, not the load's side, is what runs out", run.CPULimit)
	}
	p(";\n")
	p("%d rounds, each running every server once (each round starting with the next server), a cell\n", max(run.Rounds, 1))
	p("the median over the rounds (requests per second with the slowest and fastest round).\n")
	p("See [README.md](README.md#public-workload) for what is reproduced and how to run it on the\n")
	p("original harness.\n\n")
	p("- Date: %s (the run took %s), at %s\n", run.Date.Format("2006-01-02 15:04 UTC"), run.Duration, run.Commit)
	p("- Machine: %s, %s; load average %s before, %s after (1, 5, 15 min)\n", run.Machine, run.Go, run.LoadBefore, run.LoadAfter)
	p("- Load: %s\n", run.Shape)
	p("- Command, from `bench/`: `%s`\n\n", strings.TrimSpace(run.Command))
	p("| server | requests/s | avg latency | p95 latency | errors | RSS avg | RSS peak | server CPU per request | server's CPUs busy | other CPUs busy | 1 caller: tools/call/s (median latency) | 1 caller: tools/list/s (median latency) | load average during each round |\n")
	p("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
	for _, r := range run.Servers {
		p("| %s | %.0f (%.0f–%.0f) | %.2f ms | %.2f ms | %d (%d HTTP) | %.1f MB | %.1f MB | %.0f µs | %.0f%% | %s | %s | %s | %s |\n",
			rowName(r.Impl), r.RPS, r.RPSMin, r.RPSMax, r.AvgMS, r.P95MS, r.Errors, r.HTTPFailed, r.RSSAvgMB, r.RSSPeakMB, r.CPUPerReqUS,
			r.ServerBusy, percent(r.OthersBusy), rate(r.SingleCall, r.SingleCallP50US), rate(r.SingleList, r.SingleListP50US), r.LoadDuringRun)
	}
	p("\nRequests per second count initialize, tools/call and tools/list (the script's `mcp_requests`),\n")
	p("over the measured window; latencies are those of tools/call; an error is a session that failed\n")
	p("or whose answer failed the script's check. RSS is the server process's (`/proc/PID/status`:\n")
	p("VmRSS sampled every 250 ms over the window, VmHWM for the peak); CPU per request is the server's\n")
	p("user and system time over the whole load (ramps and warm-up included) divided by the requests the\n")
	p("rate counts over the whole load, so it includes the notification and, with sessions, the DELETE each\n")
	p("session also sends (a stateless server is sent no DELETE). The server's CPUs busy is its CPU time over the\n")
	p("load's wall time as a share of its CPUs; the other CPUs' is /proc/stat's (load generator, Redis, API\n")
	p("service and whatever else the machine ran): near 100%% there, requests per second measure the load's\n")
	p("side, not the server. The single-caller rates are one session calling\n")
	p("get_user_cart, then tools/list, back to back; a rate is a mean, which a few stalls of a loaded\n")
	p("machine's scheduler decide, the median latency in brackets is not.\n\n")
	if rp := run.row("rpcgen"); rp != nil {
		for _, peer := range run.Servers {
			if peer.Impl == "rpcgen" {
				continue
			}
			p("- rpcgen / %s: %.2f× the requests per second, %.2f× the RSS average, %.2f× the peak, %.2f× the CPU per request, %.2f× one caller's tools/call rate",
				name(peer.Impl), rp.RPS/peer.RPS, rp.RSSAvgMB/peer.RSSAvgMB, rp.RSSPeakMB/peer.RSSPeakMB,
				rp.CPUPerReqUS/peer.CPUPerReqUS, rp.SingleCall/peer.SingleCall)
			if rp.SingleCallP50US > 0 && peer.SingleCallP50US > 0 {
				p(" (%.2f× its median latency)", rp.SingleCallP50US/peer.SingleCallP50US)
			}
			p("\n")
		}
		if mg, gs := run.row("mcpgo"), run.row("gosdk"); mg != nil && gs != nil {
			met := func(ok bool) string {
				if ok {
					return "met"
				}
				return "missed"
			}
			p("- Targets: at least 1.4× mcp-go's requests per second: %s (%.2f×); more than the Go SDK's: %s (%.2f×); no more RSS than either: %s (average %.1f MB against %.1f and %.1f)\n",
				met(rp.RPS >= 1.4*mg.RPS), rp.RPS/mg.RPS, met(rp.RPS > gs.RPS), rp.RPS/gs.RPS,
				met(rp.RSSAvgMB <= mg.RSSAvgMB && rp.RSSAvgMB <= gs.RSSAvgMB), rp.RSSAvgMB, mg.RSSAvgMB, gs.RSSAvgMB)
			p("- The published row the issue quotes as mcp-go's (\"go\", %d requests per second) is the official Go SDK's: the original's `go-server/go.mod` requires `github.com/modelcontextprotocol/go-sdk`, not mcp-go. Against that server (configured as the original's), rpcgen's rate is %.2f× (1.4×: %s); against the mcp-go library, %.2f×\n",
				publishedGo, rp.RPS/gs.RPS, met(rp.RPS >= 1.4*gs.RPS), rp.RPS/mg.RPS)
		}
	}
	floorLines(run, p)
	p("\n![Requests per second and resident memory of each server](%s)\n\n", svg)
	return b.String()
}

// chart draws the run with package chart: requests per second, resident
// memory (average and peak) and server CPU per request, a bar per server,
// each peer's labelled with rpcgen's ratio to it.
func chart(run *Run) string {
	rp := run.row("rpcgen")
	group := func(label, unit string, val func(*Row) float64, format string) chartpkg.Group {
		g := chartpkg.Group{Label: label}
		for _, r := range run.Servers {
			v := val(r)
			text := fmt.Sprintf(format, v) + unit
			if rp != nil && r != rp && v > 0 {
				text += fmt.Sprintf(" (rpcgen %.2f×)", val(rp)/v)
			}
			g.Bars = append(g.Bars, chartpkg.Bar{Series: name(r.Impl), Value: v, Text: text})
		}
		return g
	}
	shape := run.Shape[:strings.IndexByte(run.Shape+";", ';')]
	c := &chartpkg.Chart{
		Title:    "Public workload (TM Dev Lab MCP benchmark v2, reproduced), " + run.Date.Format("2006-01-02"),
		Subtitle: fmt.Sprintf("%s; %s; median of %d rounds", shape, pinningShort(run), max(run.Rounds, 1)),
		Panels: []chartpkg.Panel{
			{Title: "Requests per second (higher is better)", Groups: []chartpkg.Group{
				group("requests/s", "", func(r *Row) float64 { return r.RPS }, "%.0f")}},
			{Title: "Resident memory, MB (lower is better)", Groups: []chartpkg.Group{
				group("average", " MB", func(r *Row) float64 { return r.RSSAvgMB }, "%.1f"),
				group("peak", " MB", func(r *Row) float64 { return r.RSSPeakMB }, "%.1f")}},
			{Title: "Server CPU per request, µs (lower is better)", Groups: []chartpkg.Group{
				group("CPU/request", " µs", func(r *Row) float64 { return r.CPUPerReqUS }, "%.0f")}},
		},
	}
	return c.SVG()
}

func pinningShort(run *Run) string {
	s := fmt.Sprintf("servers unpinned, GOMAXPROCS=%d", run.GOMAXPROCS)
	if run.Pinning != "" {
		s = fmt.Sprintf("each server pinned to its own CPU, GOMAXPROCS=%d", run.GOMAXPROCS)
	}
	if run.CPULimit > 0 {
		s += fmt.Sprintf(", capped at %.2f CPU", run.CPULimit)
	}
	return s
}

// rate is a single caller's rate with its median latency, when measured (a
// run reported again from an older JSON file has none).
func rate(perSecond, p50US float64) string {
	if p50US <= 0 {
		return fmt.Sprintf("%.0f", perSecond)
	}
	return fmt.Sprintf("%.0f (%.0f µs)", perSecond, p50US)
}

// floorLines says what the floor's row means: the floor (package
// public/servers/floorsrv) is the least work an MCP server can do for this
// workload, so uncapped its rate is the most any server reaches on this
// loop, and capped it is what the least server work buys at the quota.
func floorLines(run *Run, p func(string, ...any)) {
	fl := run.row("floor")
	if fl == nil {
		return
	}
	for _, peer := range run.Servers {
		if peer.Impl == "floor" || peer.Impl == "rpcgen" {
			continue
		}
		p("- floor / %s: %.2f× the requests per second, %.2f× the RSS average, %.2f× the CPU per request\n",
			name(peer.Impl), fl.RPS/peer.RPS, fl.RSSAvgMB/peer.RSSAvgMB, fl.CPUPerReqUS/peer.CPUPerReqUS)
	}
	p("- The floor is a plain net/http handler with no MCP library (one encoding/json decode per request, one Write per answer; stateless: no session, so its sessions have no DELETE), the least work an MCP server can do for this workload\n")
	mg, rp := run.row("mcpgo"), run.row("rpcgen")
	if run.CPULimit > 0 {
		p("- Server-bound, the floor's rate is what the least server work buys at %.2f CPU", run.CPULimit)
		if rp != nil {
			p(": rpcgen reaches %.0f%% of it", 100*rp.RPS/fl.RPS)
		}
		if mg != nil {
			p(", mcp-go %.0f%%", 100*mg.RPS/fl.RPS)
		}
		p("\n")
		return
	}
	p("- Uncapped, the floor's rate is the most any server reaches on this loop, up to the spread of the rounds (its slowest and fastest: %.0f–%.0f): each iteration's 50 ms pause, its tools' Redis and API-service I/O and the load generator bound it, whatever the server", fl.RPSMin, fl.RPSMax)
	if mg != nil {
		verdict := "below"
		if fl.RPS >= 1.4*mg.RPS {
			verdict = "at or above"
		}
		p("; it is %.2f× mcp-go's rate, %s the 1.4× target", fl.RPS/mg.RPS, verdict)
		if verdict == "below" {
			p(", which no server reaches here")
		}
	}
	if rp != nil {
		p("; rpcgen reaches %.0f%% of the floor's rate", 100*rp.RPS/fl.RPS)
	}
	p("\n")
}
