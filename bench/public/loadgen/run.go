package loadgen

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"
)

// Config is a load's shape. The original script: 50 users, 15 s ramp-up,
// 5 min hold, 10 s ramp-down, the first 60 s not measured, 50 ms pause.
type Config struct {
	URL      string
	VUs      int
	RampUp   time.Duration
	Hold     time.Duration
	RampDown time.Duration
	// Warmup is how long from the start nothing is measured.
	Warmup time.Duration
	// Think is the pause at the end of each iteration.
	Think time.Duration
	// Iterations, when positive, makes each user run exactly that many
	// iterations, all measured, instead of following the stages (tests).
	Iterations int
}

// Result is what a load measured, after the warm-up.
type Result struct {
	// Window is how long the measured part lasted.
	Window time.Duration
	// Requests counts initialize, tools/call and tools/list requests, as
	// the script's mcp_requests does (not the notifications and DELETEs).
	Requests int64
	// HTTPRequests counts every request sent: 4 per session with a
	// stateful server, 3 with a stateless one (no DELETE).
	HTTPRequests int64
	// AllRequests counts what Requests does over the whole load, warm-up
	// and ramps included: a server's CPU time over the whole load divided
	// by it is its CPU per request, in the unit of the rate and the same
	// for a stateless server (which is sent no DELETE) as for one with
	// sessions.
	AllRequests int64
	// Calls counts tools/call requests; Latencies are theirs, sorted.
	Calls     int64
	Latencies []time.Duration
	// Errors counts the MCP sessions that failed (an HTTP error, no
	// result, a tool error) or whose answer failed the script's check.
	Errors int64
	// HTTPFailed counts requests answered with an HTTP error or not at all.
	HTTPFailed int64
	// FirstError is the first error seen, for the report.
	FirstError string
}

// RPS is Requests per second of the window.
func (r *Result) RPS() float64 { return float64(r.Requests) / r.Window.Seconds() }

// Avg is the tools/call latencies' mean.
func (r *Result) Avg() time.Duration {
	if len(r.Latencies) == 0 {
		return 0
	}
	var sum time.Duration
	for _, d := range r.Latencies {
		sum += d
	}
	return sum / time.Duration(len(r.Latencies))
}

// Pct is the q quantile (0.95 for p95) of the tools/call latencies.
func (r *Result) Pct(q float64) time.Duration {
	if len(r.Latencies) == 0 {
		return 0
	}
	return r.Latencies[min(len(r.Latencies)-1, int(q*float64(len(r.Latencies))))]
}

// NewHTTPClient is a client with a connection per user kept alive, as each
// k6 user has its own.
func NewHTTPClient(vus int) *http.Client {
	return &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		MaxIdleConns: vus + 16, MaxIdleConnsPerHost: vus + 16, IdleConnTimeout: 90 * time.Second,
		DisableCompression: true,
	}}
}

// vu is one virtual user's counts.
type vu struct {
	measure               bool
	requests, http, calls int64
	all                   int64 // requests, measured or not
	errors, failed        int64
	lat                   []time.Duration
	firstErr              error
}

func (v *vu) fail(err error) {
	if !v.measure {
		return
	}
	v.errors++
	if errors.Is(err, ErrHTTP) || !errors.Is(err, errCheck) {
		v.failed++
	}
	if v.firstErr == nil {
		v.firstErr = err
	}
}

var errCheck = errors.New("check failed")

// session runs one MCP session calling tool (nil: tools/list).
func (v *vu) session(ctx context.Context, c *Client, tool *Tool) {
	count := func(mcp, sent int64) {
		v.all += mcp
		if v.measure {
			v.requests += mcp
			v.http += sent
		}
	}
	sid, err := c.Initialize(ctx)
	count(1, 2)
	if err != nil {
		v.fail(fmt.Errorf("initialize: %w", err))
		return
	}
	defer func() {
		if sid == "" {
			return // stateless: Close sends no DELETE
		}
		count(0, 1)
		if err := c.Close(ctx, sid); err != nil && v.measure {
			v.failed++
		}
	}()
	count(1, 1)
	if tool == nil {
		if _, err := c.ListTools(ctx, sid); err != nil {
			v.fail(err)
		}
		return
	}
	start := time.Now()
	text, err := c.CallTool(ctx, sid, tool.Name, tool.Args)
	if v.measure {
		v.calls++
		v.lat = append(v.lat, time.Since(start))
	}
	if err != nil {
		v.fail(err)
		return
	}
	if err := tool.Check(text); err != nil {
		v.fail(fmt.Errorf("%w: %v", errCheck, err))
	}
}

// Run drives the load against cfg.URL and returns what it measured.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.VUs < 1 {
		return nil, errors.New("loadgen: at least one virtual user")
	}
	c := &Client{URL: cfg.URL, HTTP: NewHTTPClient(cfg.VUs)}
	defer c.HTTP.CloseIdleConnections()
	start := time.Now()
	measureFrom := start.Add(cfg.Warmup)
	holdEnd := start.Add(cfg.RampUp + cfg.Hold)
	vus := make([]*vu, cfg.VUs)
	var wg sync.WaitGroup
	for i := range vus {
		v := &vu{measure: cfg.Iterations > 0}
		vus[i] = v
		n := i + 1
		// Users join evenly over the ramp-up and leave evenly over the
		// ramp-down, finishing their iteration, as k6's stages do.
		join := start.Add(cfg.RampUp * time.Duration(i) / time.Duration(cfg.VUs))
		leave := holdEnd.Add(cfg.RampDown * time.Duration(cfg.VUs-n) / time.Duration(cfg.VUs))
		tools := Tools(fmt.Sprintf("user-%05d", n%1000))
		wg.Go(func() {
			if cfg.Iterations == 0 {
				if !sleepUntil(ctx, join) {
					return
				}
			}
			for it := 0; ; it++ {
				if cfg.Iterations > 0 && it == cfg.Iterations {
					return
				}
				if cfg.Iterations == 0 {
					now := time.Now()
					if now.After(leave) || ctx.Err() != nil {
						return
					}
					// Measured: iterations that start after the warm-up and
					// before the ramp-down.
					v.measure = now.After(measureFrom) && now.Before(holdEnd)
				}
				for i := range tools {
					v.session(ctx, c, &tools[i])
				}
				v.session(ctx, c, nil)
				if cfg.Think > 0 && !sleepUntil(ctx, time.Now().Add(cfg.Think)) {
					return
				}
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r := &Result{Window: holdEnd.Sub(measureFrom)}
	if cfg.Iterations > 0 {
		r.Window = time.Since(start)
	}
	for _, v := range vus {
		r.Requests += v.requests
		r.HTTPRequests += v.http
		r.AllRequests += v.all
		r.Calls += v.calls
		r.Errors += v.errors
		r.HTTPFailed += v.failed
		r.Latencies = append(r.Latencies, v.lat...)
		if r.FirstError == "" && v.firstErr != nil {
			r.FirstError = v.firstErr.Error()
		}
	}
	slices.Sort(r.Latencies)
	return r, nil
}

func sleepUntil(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// Rate is a single caller's rate.
type Rate struct {
	Calls  int64
	Window time.Duration
	// Median is the calls' median latency: a few stalls of a loaded
	// machine move it less than they move the rate, a mean.
	Median time.Duration
}

// PerSecond is Calls per second.
func (r Rate) PerSecond() float64 { return float64(r.Calls) / r.Window.Seconds() }

// SingleCaller opens one session and, for d each, calls tool (checking
// every answer) and then tools/list back to back, as one caller.
func SingleCaller(ctx context.Context, url string, tool Tool, d time.Duration) (call, list Rate, err error) {
	c := &Client{URL: url, HTTP: NewHTTPClient(1)}
	defer c.HTTP.CloseIdleConnections()
	sid, err := c.Initialize(ctx)
	if err != nil {
		return call, list, err
	}
	defer c.Close(ctx, sid)
	var lat []time.Duration
	start := time.Now()
	for t := start; t.Sub(start) < d; t = time.Now() {
		text, err := c.CallTool(ctx, sid, tool.Name, tool.Args)
		if err == nil {
			err = tool.Check(text)
		}
		if err != nil {
			return call, list, err
		}
		call.Calls++
		lat = append(lat, time.Since(t))
	}
	call.Window, call.Median = time.Since(start), medianOf(lat)
	lat = lat[:0]
	start = time.Now()
	for t := start; t.Sub(start) < d; t = time.Now() {
		if _, err := c.ListTools(ctx, sid); err != nil {
			return call, list, err
		}
		list.Calls++
		lat = append(lat, time.Since(t))
	}
	list.Window, list.Median = time.Since(start), medianOf(lat)
	return call, list, nil
}

// medianOf is the median of l (which it sorts), 0 for none.
func medianOf(l []time.Duration) time.Duration {
	if len(l) == 0 {
		return 0
	}
	slices.Sort(l)
	return l[len(l)/2]
}
