package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rpcgen/rpcgen/bench/public/loadgen"
	"github.com/rpcgen/rpcgen/bench/public/seed"
	"github.com/rpcgen/rpcgen/ext/redis/redistest"
)

// Run is one run's results.
type Run struct {
	Date       time.Time `json:"date"`
	Duration   string    `json:"duration"`
	Command    string    `json:"command"`
	Machine    string    `json:"machine"`
	Go         string    `json:"go"`
	Commit     string    `json:"commit"`
	LoadBefore string    `json:"load_before"`
	LoadAfter  string    `json:"load_after"`
	Shape      string    `json:"shape"`
	GOMAXPROCS int       `json:"gomaxprocs"`
	// Pinning says which CPUs the servers and the rest ran on ("" when
	// nothing was pinned).
	Pinning string `json:"pinning,omitempty"`
	// CPULimit is each server's CPU quota in CPUs (0: none).
	CPULimit float64 `json:"cpu_limit,omitempty"`
	Rounds   int     `json:"rounds"`
	Servers  []*Row  `json:"servers"`
}

// Row is one server's results.
type Row struct {
	Impl        string  `json:"impl"`
	RPS         float64 `json:"rps"`
	Requests    int64   `json:"requests"`
	WindowS     float64 `json:"window_s"`
	Calls       int64   `json:"calls"`
	AvgMS       float64 `json:"avg_ms"`
	P95MS       float64 `json:"p95_ms"`
	Errors      int64   `json:"errors"`
	HTTPFailed  int64   `json:"http_failed"`
	FirstError  string  `json:"first_error,omitempty"`
	RSSAvgMB    float64 `json:"rss_avg_mb"`
	RSSPeakMB   float64 `json:"rss_peak_mb"`
	CPUPerReqUS float64 `json:"cpu_per_request_us"`
	SingleCall  float64 `json:"single_call_per_s"`
	SingleList  float64 `json:"single_list_per_s"`
	// SingleCallP50US and SingleListP50US are the single caller's median
	// latencies.
	SingleCallP50US float64 `json:"single_call_p50_us,omitempty"`
	SingleListP50US float64 `json:"single_list_p50_us,omitempty"`
	// ServerBusy is the server's CPU time over the load's wall time, as a
	// share of its CPUs (or of GOMAXPROCS unpinned), in percent;
	// OthersBusy is how busy the other CPUs were (load generator, Redis,
	// API service and whatever else the machine ran), from /proc/stat.
	ServerBusy    float64 `json:"server_busy_pct"`
	OthersBusy    float64 `json:"others_busy_pct,omitempty"`
	LoadDuringRun string  `json:"load"`
	// RPSMin and RPSMax are the slowest and fastest rounds; Rounds holds
	// each round's row (the others are medians over them).
	RPSMin float64 `json:"rps_min,omitempty"`
	RPSMax float64 `json:"rps_max,omitempty"`
	Rounds []*Row  `json:"rounds,omitempty"`
}

func median(rows []*Row, f func(*Row) float64) float64 {
	v := make([]float64, len(rows))
	for i, r := range rows {
		v[i] = f(r)
	}
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

// combine is the median row of a server's rounds; errors add up, the peak
// RSS is the highest.
func combine(rows []*Row) *Row {
	c := &Row{Impl: rows[0].Impl, Rounds: rows,
		RPS: median(rows, func(r *Row) float64 { return r.RPS }), AvgMS: median(rows, func(r *Row) float64 { return r.AvgMS }),
		P95MS: median(rows, func(r *Row) float64 { return r.P95MS }), RSSAvgMB: median(rows, func(r *Row) float64 { return r.RSSAvgMB }),
		CPUPerReqUS:     median(rows, func(r *Row) float64 { return r.CPUPerReqUS }),
		SingleCall:      median(rows, func(r *Row) float64 { return r.SingleCall }),
		SingleList:      median(rows, func(r *Row) float64 { return r.SingleList }),
		SingleCallP50US: median(rows, func(r *Row) float64 { return r.SingleCallP50US }),
		SingleListP50US: median(rows, func(r *Row) float64 { return r.SingleListP50US }),
		ServerBusy:      median(rows, func(r *Row) float64 { return r.ServerBusy }),
		OthersBusy:      median(rows, func(r *Row) float64 { return r.OthersBusy }),
		RPSMin:          rows[0].RPS, RPSMax: rows[0].RPS}
	var loads []string
	for _, r := range rows {
		c.Requests += r.Requests
		c.Calls += r.Calls
		c.WindowS += r.WindowS
		c.Errors += r.Errors
		c.HTTPFailed += r.HTTPFailed
		c.RSSPeakMB = max(c.RSSPeakMB, r.RSSPeakMB)
		c.RPSMin, c.RPSMax = min(c.RPSMin, r.RPS), max(c.RPSMax, r.RPS)
		if c.FirstError == "" {
			c.FirstError = r.FirstError
		}
		loads = append(loads, strings.Fields(r.LoadDuringRun + " ?")[0])
	}
	c.LoadDuringRun = strings.Join(loads, ", ")
	return c
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	return strings.Join(f[:3], " ")
}

func runAll(ctx context.Context, o options, args []string) (*Run, error) {
	start := time.Now()
	run := &Run{Date: start.UTC(), Command: "go run ./public/cmd/publicbench " + strings.Join(args, " "),
		Machine: machine(), Go: runtime.Version(), Commit: gitCommit(), LoadBefore: loadavg(), GOMAXPROCS: o.gomaxprocs, Rounds: o.rounds,
		Shape: fmt.Sprintf("%d users; ramp-up %v, hold %v, ramp-down %v; first %v not measured; %v pause per iteration",
			o.vus, o.rampUp, o.hold, o.rampDown, o.warmup, o.think)}
	dir, err := os.MkdirTemp("", "publicbench")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	fmt.Fprintln(os.Stderr, "building the servers")
	bins := []string{"./public/cmd/api-service"}
	for _, impl := range o.impls {
		bins = append(bins, "./public/cmd/"+impl+"-server")
	}
	build := exec.CommandContext(ctx, "go", append([]string{"build", "-o", dir + "/"}, bins...)...)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return nil, fmt.Errorf("go build: %w", err)
	}
	if len(o.serverCPUs) > 0 {
		// Redis and the API service start from this process's pinned
		// threads and so inherit the others' CPUs; each server is moved to
		// its own once it listens.
		if err := pin(os.Getpid(), o.otherCPUs); err != nil {
			return nil, err
		}
		run.Pinning = fmt.Sprintf("each server on CPU %s, the load generator, Redis and the API service on CPU %s", o.serverCPUs, o.otherCPUs)
	}
	if o.cpuLimit > 0 {
		if o.limit, err = newCPULimit(o.cpuLimit); err != nil {
			return nil, err
		}
		defer o.limit.remove()
		run.CPULimit = o.cpuLimit
	}
	rs, err := redistest.Launch(dir)
	if err != nil {
		return nil, err
	}
	defer rs.Stop()
	rdb := goredis.NewClient(&goredis.Options{Addr: rs.Addr()})
	defer rdb.Close()
	api, apiAddr, err := startProc(ctx, filepath.Join(dir, "api-service"), []string{"-addr", "127.0.0.1:0"}, o.gomaxprocs)
	if err != nil {
		return nil, err
	}
	defer stopProc(api)
	rounds := make(map[string][]*Row)
	for round := range o.rounds {
		// Each round starts with the next server, so none always runs first.
		for k := range o.impls {
			impl := o.impls[(round+k)%len(o.impls)]
			fmt.Fprintf(os.Stderr, "round %d/%d, %s\n", round+1, o.rounds, impl)
			row, err := runServer(ctx, o, round+1, filepath.Join(dir, impl+"-server"), impl, rs.URL(), "http://"+apiAddr, rdb)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", impl, err)
			}
			rounds[impl] = append(rounds[impl], row)
		}
	}
	for _, impl := range o.impls {
		run.Servers = append(run.Servers, combine(rounds[impl]))
	}
	run.LoadAfter = loadavg()
	run.Duration = time.Since(start).Round(time.Second).String()
	return run, nil
}

// startProc starts bin with args and GOMAXPROCS n and waits for its
// "listening on ADDR" line.
func startProc(ctx context.Context, bin string, args []string, n int) (*exec.Cmd, string, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "GOMAXPROCS="+strconv.Itoa(n))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, "", err
	}
	if err := cmd.Start(); err != nil {
		return nil, "", err
	}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), "listening on "); ok {
				addr <- a
				break
			}
		}
		close(addr)
		_, _ = io.Copy(io.Discard, out)
	}()
	select {
	case a, ok := <-addr:
		if ok {
			return cmd, a, nil
		}
	case <-ctx.Done():
	case <-time.After(time.Minute):
	}
	stopProc(cmd)
	return nil, "", fmt.Errorf("%s did not start", filepath.Base(bin))
}

func stopProc(cmd *exec.Cmd) {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-done
	}
}

func runServer(ctx context.Context, o options, round int, bin, impl, redisURL, api string, rdb *goredis.Client) (*Row, error) {
	fmt.Fprintf(os.Stderr, "%s: seeding Redis\n", impl)
	if err := seed.Seed(ctx, rdb); err != nil {
		return nil, err
	}
	args := []string{"-addr", "127.0.0.1:0", "-redis", redisURL, "-api", api}
	if o.cpuprofile != "" {
		args = append(args, "-pprof")
	}
	cmd, addr, err := startProc(ctx, bin, args, o.gomaxprocs)
	if err != nil {
		return nil, err
	}
	defer stopProc(cmd)
	if len(o.serverCPUs) > 0 {
		if err := pin(cmd.Process.Pid, o.serverCPUs); err != nil {
			return nil, err
		}
	}
	if o.limit != nil {
		if err := o.limit.add(cmd.Process.Pid); err != nil {
			return nil, err
		}
	}
	url := "http://" + addr + "/mcp"
	if resp, err := http.Get("http://" + addr + "/health"); err != nil {
		return nil, err
	} else {
		resp.Body.Close()
	}
	// The original harness's warm-up: 5 initializes, 3 sessions per tool.
	c := &loadgen.Client{URL: url, HTTP: loadgen.NewHTTPClient(1)}
	for range 5 {
		if _, err := c.Initialize(ctx); err != nil {
			return nil, fmt.Errorf("warm-up: %w", err)
		}
	}
	for _, tool := range loadgen.Tools("user-00042") {
		for range 3 {
			sid, err := c.Initialize(ctx)
			if err == nil {
				_, err = c.CallTool(ctx, sid, tool.Name, tool.Args)
			}
			if err == nil {
				err = c.Close(ctx, sid)
			}
			if err != nil {
				return nil, fmt.Errorf("warm-up: %w", err)
			}
		}
	}
	c.HTTP.CloseIdleConnections()

	pid := cmd.Process.Pid
	cpu0, err := cpuTime(pid)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "%s: load (%s)\n", impl, o.shapeString())
	sampler := startSampler(pid, o.warmup)
	profiled := profile(ctx, o, "http://"+addr, impl, round)
	others0 := cpuBusy(o.otherCPUs)
	var throttled0 int64
	if o.limit != nil {
		throttled0 = o.limit.throttled()
	}
	loadStart := time.Now()
	r, err := loadgen.Run(ctx, loadgen.Config{URL: url, VUs: o.vus, RampUp: o.rampUp, Hold: o.hold,
		RampDown: o.rampDown, Warmup: o.warmup, Think: o.think})
	loadWall := time.Since(loadStart)
	others1 := cpuBusy(o.otherCPUs)
	rssAvg := sampler.stop()
	if err != nil {
		return nil, err
	}
	cpu1, err := cpuTime(pid)
	if err != nil {
		return nil, err
	}
	if err := <-profiled; err != nil {
		return nil, fmt.Errorf("profile: %w", err)
	}
	serverCPUs := float64(len(o.serverCPUs))
	if serverCPUs == 0 {
		serverCPUs = float64(o.gomaxprocs)
	}
	if o.cpuLimit > 0 {
		serverCPUs = min(serverCPUs, o.cpuLimit)
	}
	peak, err := statusKB(pid, "VmHWM")
	if err != nil {
		return nil, err
	}
	load := loadavg()
	fmt.Fprintf(os.Stderr, "%s: single caller\n", impl)
	call, list, err := loadgen.SingleCaller(ctx, url, loadgen.Tools("user-00001")[1], o.single)
	if err != nil {
		return nil, fmt.Errorf("single caller: %w", err)
	}
	row := &Row{Impl: impl, RPS: r.RPS(), Requests: r.Requests, WindowS: r.Window.Seconds(), Calls: r.Calls,
		AvgMS: ms(r.Avg()), P95MS: ms(r.Pct(0.95)), Errors: r.Errors, HTTPFailed: r.HTTPFailed, FirstError: r.FirstError,
		RSSAvgMB: rssAvg / 1024, RSSPeakMB: float64(peak) / 1024,
		CPUPerReqUS: float64((cpu1 - cpu0).Microseconds()) / float64(max(r.AllRequests, 1)),
		SingleCall:  call.PerSecond(), SingleList: list.PerSecond(), LoadDuringRun: load,
		SingleCallP50US: us(call.Median), SingleListP50US: us(list.Median),
		ServerBusy: 100 * (cpu1 - cpu0).Seconds() / loadWall.Seconds() / serverCPUs}
	if others0.total > 0 && others1.total > others0.total {
		row.OthersBusy = 100 * float64(others1.busy-others0.busy) / float64(others1.total-others0.total)
	}
	if o.limit != nil {
		fmt.Fprintf(os.Stderr, "%s: throttled by the CPU limit for %v of the load's %v\n", impl,
			time.Duration(o.limit.throttled()-throttled0)*time.Microsecond, loadWall.Round(time.Second))
	}
	fmt.Fprintf(os.Stderr, "%s: %.0f RPS, avg %.2f ms, p95 %.2f ms, %d errors, RSS avg %.1f MB peak %.1f MB, server busy %.0f%%, others %.0f%%\n",
		impl, row.RPS, row.AvgMS, row.P95MS, row.Errors, row.RSSAvgMB, row.RSSPeakMB, row.ServerBusy, row.OthersBusy)
	return row, nil
}

func (o options) shapeString() string {
	return fmt.Sprintf("%d users, %v + %v + %v", o.vus, o.rampUp, o.hold, o.rampDown)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// statusKB reads a kB field (VmRSS, VmHWM) of /proc/pid/status.
func statusKB(pid int, field string) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("/proc/%d/status has no %s", pid, field)
}

// cpuTime is the process's user and system CPU time (/proc/pid/stat).
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
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
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	return time.Duration(ut+st) * time.Second / 100, nil // USER_HZ is 100 on Linux
}

// sampler reads VmRSS every 250 ms once the warm-up is over, as the
// original's collector polls docker stats.
type sampler struct {
	done chan struct{}
	avg  chan float64
}

func startSampler(pid int, after time.Duration) *sampler {
	s := &sampler{done: make(chan struct{}), avg: make(chan float64, 1)}
	go func() {
		var sum float64
		var n int
		from := time.Now().Add(after)
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-s.done:
				if n == 0 {
					n = 1
				}
				s.avg <- sum / float64(n)
				return
			case now := <-t.C:
				if now.Before(from) {
					continue
				}
				if kb, err := statusKB(pid, "VmRSS"); err == nil {
					sum += float64(kb)
					n++
				}
			}
		}
	}()
	return s
}

func (s *sampler) stop() float64 { close(s.done); return <-s.avg }

func machine() string {
	model := "?"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.SplitSeq(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "model name"); ok {
				model = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":"))
				break
			}
		}
	}
	return fmt.Sprintf("%s, %d cores, %s/%s", model, runtime.NumCPU(), runtime.GOOS, runtime.GOARCH)
}

func gitCommit() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(out))
}
