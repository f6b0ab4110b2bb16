// Command publicprobe measures public benchmark servers that are already
// running (started by hand as publicbench starts them, e.g. pinned with
// taskset and GOMAXPROCS=1): per MCP URL, one caller's latency of each step
// of the load's sessions (initialize with notifications/initialized, the
// get_user_cart tools/call, DELETE) and of tools/call in one session, as
// percentiles, to show a fixed delay or a stall that a rate hides; with
// -load, the 50-user load of package loadgen with the server's CPU time per
// HTTP request. -seed seeds a Redis first. Run from bench/:
//
//	go run ./public/cmd/publicprobe -seed 127.0.0.1:6379
//	go run ./public/cmd/publicprobe -n 2000 -sessions 1500 http://127.0.0.1:8081/mcp http://127.0.0.1:8082/mcp
//	go run ./public/cmd/publicprobe -load 8s -pids 1234,1235 http://127.0.0.1:8081/mcp http://127.0.0.1:8082/mcp
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/rpcgen/rpcgen/bench/public/loadgen"
	"github.com/rpcgen/rpcgen/bench/public/seed"
)

func main() {
	redisAddr := flag.String("seed", "", "seed the Redis at this address and exit")
	n := flag.Int("n", 2000, "tools/call requests in one session (0: none)")
	sessions := flag.Int("sessions", 0, "whole sessions, one after the other (0: none)")
	load := flag.Duration("load", 0, "hold of a 50-user load (1s ramp-up, 2s not measured) instead of the single caller")
	pids := flag.String("pids", "", "with -load: the servers' process ids, in the URLs' order, for their CPU time")
	flag.Parse()
	if err := run(*redisAddr, *n, *sessions, *load, *pids, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "publicprobe:", err)
		os.Exit(1)
	}
}

func run(redisAddr string, n, sessions int, load time.Duration, pids string, urls []string) error {
	ctx := context.Background()
	if redisAddr != "" {
		rdb := redis.NewClient(&redis.Options{Addr: redisAddr})
		defer rdb.Close()
		return seed.Seed(ctx, rdb)
	}
	if load > 0 {
		var ps []string
		if pids != "" {
			ps = strings.Split(pids, ",")
		}
		if len(ps) != len(urls) {
			return errors.New("-load needs -pids with one process id per URL")
		}
		for i, url := range urls {
			if err := runLoad(ctx, url, ps[i], load); err != nil {
				return err
			}
		}
		return nil
	}
	tool := loadgen.Tools("user-00001")[1]
	for _, url := range urls {
		c := &loadgen.Client{URL: url, HTTP: loadgen.NewHTTPClient(1)}
		if sessions > 0 {
			var ini, call, del []time.Duration
			start := time.Now()
			for range sessions {
				t0 := time.Now()
				sid, err := c.Initialize(ctx)
				t1 := time.Now()
				if err == nil {
					_, err = c.CallTool(ctx, sid, tool.Name, tool.Args)
				}
				t2 := time.Now()
				if err == nil {
					err = c.Close(ctx, sid)
				}
				if err != nil {
					return err
				}
				ini, call, del = append(ini, t1.Sub(t0)), append(call, t2.Sub(t1)), append(del, time.Since(t2))
			}
			fmt.Printf("%s: %d sessions, %.0f/s; initialize+initialized %s; tools/call %s; DELETE %s\n",
				url, sessions, float64(sessions)/time.Since(start).Seconds(), pct(ini), pct(call), pct(del))
		}
		if n > 0 {
			sid, err := c.Initialize(ctx)
			if err != nil {
				return err
			}
			lat := make([]time.Duration, 0, n)
			start := time.Now()
			for range n {
				t := time.Now()
				text, err := c.CallTool(ctx, sid, tool.Name, tool.Args)
				if err == nil {
					err = tool.Check(text)
				}
				if err != nil {
					return err
				}
				lat = append(lat, time.Since(t))
			}
			el := time.Since(start)
			fmt.Printf("%s: %d tools/call in one session, %.0f/s (1/median %.0f/s); %s\n",
				url, n, float64(n)/el.Seconds(), float64(time.Second)/float64(median(lat)), pct(lat))
			if err := c.Close(ctx, sid); err != nil {
				return err
			}
		}
		c.HTTP.CloseIdleConnections()
	}
	return nil
}

func runLoad(ctx context.Context, url, pid string, hold time.Duration) error {
	cpu0, err := cpuTime(pid)
	if err != nil {
		return err
	}
	r, err := loadgen.Run(ctx, loadgen.Config{URL: url, VUs: 50, RampUp: time.Second, Hold: hold,
		Warmup: 2 * time.Second, Think: 50 * time.Millisecond})
	if err != nil {
		return err
	}
	cpu1, err := cpuTime(pid)
	if err != nil {
		return err
	}
	// The CPU time and the requests both span the whole load; requests
	// are those the rate counts (initialize, tools/call, tools/list).
	fmt.Printf("%s: %.0f requests/s, tools/call avg %v p95 %v, %d errors, server CPU %.0f µs per request\n",
		url, r.RPS(), r.Avg().Round(time.Microsecond), r.Pct(0.95).Round(time.Microsecond), r.Errors,
		float64((cpu1-cpu0).Microseconds())/float64(max(r.AllRequests, 1)))
	return nil
}

func median(l []time.Duration) time.Duration {
	s := slices.Clone(l)
	slices.Sort(s)
	return s[len(s)/2]
}

// pct is l's 10th, 50th, 90th and 99th percentiles and maximum.
func pct(l []time.Duration) string {
	s := slices.Clone(l)
	slices.Sort(s)
	at := func(q float64) time.Duration { return s[int(q*float64(len(s)-1))].Round(time.Microsecond) }
	return fmt.Sprintf("p10 %v p50 %v p90 %v p99 %v max %v", at(0.1), at(0.5), at(0.9), at(0.99), s[len(s)-1].Round(time.Microsecond))
}

// cpuTime is the process's user and system CPU time (/proc/pid/stat).
func cpuTime(pid string) (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0, err
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	if len(f) < 13 {
		return 0, errors.New("short /proc stat")
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	// Clock ticks of 1/100 s (USER_HZ on Linux).
	return time.Duration(ut+st) * 10 * time.Millisecond, errors.Join(err1, err2)
}
