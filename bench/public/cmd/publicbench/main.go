// Command publicbench runs the public benchmark (TM Dev Lab's MCP benchmark
// v2, reproduced in bench/public) in one run and reports it: it builds the
// server binaries, starts a redis-server and the API service, and for each
// server in turn re-seeds Redis, starts the server pinned to its own CPUs
// (the rest pinned to the others) under the same GOMAXPROCS, warms it up as the original harness does, drives the k6
// script's load with package loadgen while it samples the server's resident
// memory from /proc, then measures one caller's tools/call and tools/list
// rates. It writes the rows into bench/RESULTS.md (between markers, the
// rest of the file kept), an SVG chart of requests per second and memory,
// and the raw results as JSON, from which -from reports again.
//
// Run it from bench/ (see bench/README.md): go run ./public/cmd/publicbench
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"time"
)

type options struct {
	impls      []string
	vus        int
	rampUp     time.Duration
	hold       time.Duration
	rampDown   time.Duration
	warmup     time.Duration
	think      time.Duration
	single     time.Duration
	gomaxprocs int
	rounds     int
	// serverCPUs and otherCPUs, when set, are where the server under test
	// and everything else (this process, Redis, the API service) run.
	serverCPUs, otherCPUs cpuList
	cpuprofile            string
	// cpuLimit, when positive, caps each server at that many CPUs'
	// time (a cgroup's CPU quota); limit is that cgroup during a run.
	cpuLimit float64
	limit    *cpuLimit
}

func main() {
	var o options
	impls := flag.String("impls", "rpcgen,mcpgo,gosdk,floor", "servers to run, in order (floor: no MCP library, the least work a server can do)")
	flag.IntVar(&o.vus, "vus", 50, "virtual users (the original: 50)")
	flag.DurationVar(&o.rampUp, "rampup", 5*time.Second, "ramp-up (the original: 15s)")
	flag.DurationVar(&o.hold, "hold", 25*time.Second, "sustained load (the original: 5m)")
	flag.DurationVar(&o.rampDown, "rampdown", 3*time.Second, "ramp-down (the original: 10s)")
	flag.DurationVar(&o.warmup, "warmup", 10*time.Second, "not measured from the start (the original: 60s)")
	flag.DurationVar(&o.think, "think", 50*time.Millisecond, "pause after each iteration (the original: 50ms)")
	flag.DurationVar(&o.single, "single", 5*time.Second, "single caller: how long for each of tools/call and tools/list")
	flag.IntVar(&o.gomaxprocs, "gomaxprocs", 0, "GOMAXPROCS of every server (default: the number of -server-cpus, or 2 with -pin=false; the original's containers: 2 vCPUs)")
	pinned := flag.Bool("pin", true, "pin the server under test to -server-cpus and the load generator, Redis and the API service to -other-cpus (needs 2 CPUs)")
	serverCPUs := flag.String("server-cpus", "", "CPUs of the server under test (default: the first half of this process's)")
	otherCPUs := flag.String("other-cpus", "", "CPUs of the load generator, Redis and the API service (default: the other half)")
	flag.Float64Var(&o.cpuLimit, "cpu-limit", 0, "cap each server at this many CPUs' time with a cgroup's CPU quota (0.5: half a CPU), as docker's --cpus; 0: no cap")
	flag.StringVar(&o.cpuprofile, "cpuprofile", "", "write each server's CPU profile of each round's load into this directory (IMPL-rROUND.pprof)")
	flag.IntVar(&o.rounds, "rounds", 3, "rounds: each runs every server once, starting with the next; the report gives medians")
	jsonOut := flag.String("json", "", "also write the raw results here")
	from := flag.String("from", "", "report the results in this JSON file instead of running")
	mdOut := flag.String("o", "RESULTS.md", "the Markdown file to put the rows in (between markers)")
	svgOut := flag.String("svg", "public.svg", "the chart to write")
	flag.Parse()
	o.impls = strings.Split(*impls, ",")
	if *pinned && *from == "" {
		var err error
		if o.serverCPUs, o.otherCPUs, err = cpuSplit(*serverCPUs, *otherCPUs); err != nil {
			fatal(err)
		}
	}
	if o.gomaxprocs == 0 {
		o.gomaxprocs = 2
		if len(o.serverCPUs) > 0 {
			o.gomaxprocs = len(o.serverCPUs)
		}
	}

	var run *Run
	if *from != "" {
		data, err := os.ReadFile(*from)
		if err == nil {
			err = json.Unmarshal(data, &run)
		}
		if err != nil {
			fatal(err)
		}
	} else {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		var err error
		if run, err = runAll(ctx, o, os.Args[1:]); err != nil {
			fatal(err)
		}
		if *jsonOut != "" {
			data, _ := json.MarshalIndent(run, "", "  ")
			if err := os.WriteFile(*jsonOut, append(data, '\n'), 0o644); err != nil {
				fatal(err)
			}
		}
	}
	if err := writeReport(run, *mdOut, *svgOut); err != nil {
		fatal(err)
	}
	fmt.Print(markdown(run, *svgOut))
}

// cpuSplit is the CPUs of the server and of the rest: the flags', or the
// default halves.
func cpuSplit(server, others string) (cpuList, cpuList, error) {
	s, o, ok := defaultSplit()
	if !ok && (server == "" || others == "") {
		return nil, nil, errors.New("pinning needs at least 2 CPUs (or -server-cpus and -other-cpus; -pin=false runs unpinned)")
	}
	var err error
	if server != "" {
		if s, err = parseCPUs(server); err != nil {
			return nil, nil, err
		}
	}
	if others != "" {
		if o, err = parseCPUs(others); err != nil {
			return nil, nil, err
		}
	}
	for _, c := range s {
		if slices.Contains(o, c) {
			return nil, nil, fmt.Errorf("CPU %d is both the server's and the others'", c)
		}
	}
	return s, o, nil
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "publicbench:", err)
	os.Exit(1)
}
