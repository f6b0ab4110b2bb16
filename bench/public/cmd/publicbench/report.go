package main

import (
	"fmt"
	"html"
	"os"
	"path/filepath"
	"strings"
)

const (
	beginMark = "<!-- public:begin (written by go run ./public/cmd/publicbench) -->"
	endMark   = "<!-- public:end -->"
)

// writeReport puts the run's section into md between the markers (appended
// when they are missing) and draws the chart at svgPath.
func writeReport(run *Run, md, svgPath string) error {
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

var names = map[string]string{"rpcgen": "rpcgen", "mcpgo": "mcp-go", "gosdk": "Go SDK"}

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
	p("## Public workload: TM Dev Lab's MCP benchmark v2, reproduced\n\n")
	p("The three tools of `http4k/benchmark-mcp-servers-v2` (real Redis and HTTP I/O) served by each\n")
	p("library, driven by its k6 script's sessions (package `public/loadgen`), one server after the\n")
	p("other in one run, on the same redis-server and API service, each server with GOMAXPROCS=%d", run.GOMAXPROCS)
	if run.Pinning != "" {
		p(" (%s: the original gives each server its own 2 vCPUs, the load generator running elsewhere)", run.Pinning)
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
	p("| server | requests/s | avg latency | p95 latency | errors | RSS avg | RSS peak | server CPU per request | server's CPUs busy | other CPUs busy | 1 caller: tools/call/s | 1 caller: tools/list/s | load average during each round |\n")
	p("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
	for _, r := range run.Servers {
		p("| %s | %.0f (%.0f–%.0f) | %.2f ms | %.2f ms | %d (%d HTTP) | %.1f MB | %.1f MB | %.0f µs | %.0f%% | %s | %.0f | %.0f | %s |\n",
			name(r.Impl), r.RPS, r.RPSMin, r.RPSMax, r.AvgMS, r.P95MS, r.Errors, r.HTTPFailed, r.RSSAvgMB, r.RSSPeakMB, r.CPUPerReqUS,
			r.ServerBusy, percent(r.OthersBusy), r.SingleCall, r.SingleList, r.LoadDuringRun)
	}
	p("\nRequests per second count initialize, tools/call and tools/list (the script's `mcp_requests`),\n")
	p("over the measured window; latencies are those of tools/call; an error is a session that failed\n")
	p("or whose answer failed the script's check. RSS is the server process's (`/proc/PID/status`:\n")
	p("VmRSS sampled every 250 ms over the window, VmHWM for the peak); CPU is the server's user and\n")
	p("system time over every HTTP request of the load. The server's CPUs busy is its CPU time over the\n")
	p("load's wall time as a share of its CPUs; the other CPUs' is /proc/stat's (load generator, Redis, API\n")
	p("service and whatever else the machine ran): near 100%% there, requests per second measure the load's\n")
	p("side, not the server. The single-caller rates are one session calling\n")
	p("get_user_cart, then tools/list, back to back.\n\n")
	if rp := run.row("rpcgen"); rp != nil {
		for _, peer := range run.Servers {
			if peer.Impl == "rpcgen" {
				continue
			}
			p("- rpcgen / %s: %.2f× the requests per second, %.2f× the RSS average, %.2f× the peak, %.2f× the CPU per request, %.2f× one caller's tools/call rate\n",
				name(peer.Impl), rp.RPS/peer.RPS, rp.RSSAvgMB/peer.RSSAvgMB, rp.RSSPeakMB/peer.RSSPeakMB,
				rp.CPUPerReqUS/peer.CPUPerReqUS, rp.SingleCall/peer.SingleCall)
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
		}
	}
	p("\n![Requests per second and resident memory of each server](%s)\n\n", svg)
	return b.String()
}

var colors = map[string]string{"rpcgen": "#2b6cb0", "mcpgo": "#dd6b20", "gosdk": "#38a169"}

// chart draws two panels of horizontal bars: requests per second, and RSS
// (average, with the peak as a thin bar).
func chart(run *Run) string {
	const w, left, barW, barH, gap = 780, 100, 250, 22, 8
	n := len(run.Servers)
	panelH := 30 + n*(barH+gap)
	h := 40 + panelH + 10
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	p(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="13">`+"\n", w, h)
	p(`<rect width="100%%" height="100%%" fill="white"/>` + "\n")
	p(`<text x="10" y="22" font-size="15" font-weight="bold">Public workload (TM Dev Lab MCP v2), %s: %s</text>`+"\n",
		html.EscapeString(run.Date.Format("2006-01-02")), html.EscapeString(run.Shape[:strings.IndexByte(run.Shape+";", ';')]))
	var maxRPS, maxMB float64
	for _, r := range run.Servers {
		maxRPS = max(maxRPS, r.RPS)
		maxMB = max(maxMB, r.RSSPeakMB, r.RSSAvgMB)
	}
	panel := func(x0 int, title string, val func(*Row) (float64, float64, string), maxV float64) {
		y := 40
		p(`<text x="%d" y="%d" font-weight="bold">%s</text>`+"\n", x0, y+12, title)
		y += 22
		for _, r := range run.Servers {
			v, thin, label := val(r)
			col := colors[r.Impl]
			if col == "" {
				col = "#718096"
			}
			p(`<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", x0+left-8, y+barH-6, html.EscapeString(name(r.Impl)))
			bw := 0.0
			if maxV > 0 {
				bw = v / maxV * barW
			}
			p(`<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"/>`+"\n", x0+left, y, bw, barH, col)
			if thin > 0 && maxV > 0 {
				p(`<rect x="%d" y="%d" width="%.1f" height="4" fill="#1a202c"/>`+"\n", x0+left, y+barH-4, thin/maxV*barW)
			}
			end := bw
			if maxV > 0 {
				end = max(bw, thin/maxV*barW)
			}
			p(`<text x="%.1f" y="%d">%s</text>`+"\n", float64(x0+left)+end+4, y+barH-6, html.EscapeString(label))
			y += barH + gap
		}
	}
	panel(10, "Requests per second (higher is better)", func(r *Row) (float64, float64, string) {
		return r.RPS, 0, fmt.Sprintf("%.0f", r.RPS)
	}, maxRPS*1.25)
	panel(w/2, "Resident memory, MB: average, thin bar the peak", func(r *Row) (float64, float64, string) {
		return r.RSSAvgMB, r.RSSPeakMB, fmt.Sprintf("%.1f avg, %.1f peak", r.RSSAvgMB, r.RSSPeakMB)
	}, maxMB*1.6)
	p("</svg>\n")
	return b.String()
}
