package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rpcgen/rpcgen/ext/redis/internal/rrproxy"
	"github.com/rpcgen/rpcgen/ext/redis/redistest"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp"
)

// cluster is a redis-server, replica processes on it and the proxy.
type cluster struct {
	procs  []*exec.Cmd
	killed []atomic.Bool
	exited chan exit
	reaped int // exits received from exited
	proxy  *rrproxy.Proxy
}

type exit struct {
	i   int
	err error
}

// clusterSetup is the Redis a cluster runs on.
type clusterSetup struct {
	// sentinel: a primary, a replica and three Sentinels (redistest's
	// Sentinels), the replicas on a failover client.
	sentinel bool
	// appendOnly: one redis-server with an append-only file.
	appendOnly bool
}

// runCluster starts redis-server (or, with setup.sentinel, Sentinels),
// n replicas (this program, run again) on it and the round-robin proxy on
// addr; it prints the proxy's URL and serves until ctx ends or a replica
// exits unbidden, then stops everything it started. On SIGUSR1 it kills
// (SIGKILL) the replica with the most streams open, for the tests of a
// replica dying mid-stream: the proxy sends it nothing more, and stderr
// says "cluster: killed replica I with N streams open". On SIGUSR2 it
// pauses redis-server (the primary) (SIGSTOP: it hangs, as a Redis that
// is down or stuck does to its clients) or, when paused, resumes it
// (SIGCONT), for the tests of Redis faults through a peer's client; stderr
// says "cluster: redis paused" or "cluster: redis resumed".
//
// It also takes commands on stdin, one a line, and says on stderr when
// each is done: "restart" stops redis-server as an operator would
// (SIGTERM) and starts it again, with what its append-only file kept
// under --appendonly ("cluster: redis restarted"); with --sentinel, "hold"
// keeps the replica from getting anything more from the primary
// ("cluster: replication held") and "failover" has the Sentinels fail
// over to it (SENTINEL FAILOVER; "cluster: failed over"), losing what
// replication held back. A command that fails says "cluster: COMMAND
// failed: ERROR".
func runCluster(ctx context.Context, n int, addr string, setup clusterSetup, logger *slog.Logger) (err error) {
	dir, err := os.MkdirTemp("", "replica-cluster-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	var rs *redistest.Server // the primary
	var ss *redistest.Sentinels
	redisURL := ""
	if setup.sentinel {
		if ss, err = redistest.LaunchSentinels(dir); err != nil {
			return err
		}
		defer ss.Stop()
		rs, redisURL = ss.Primary, ss.URL()
	} else {
		if rs, err = redistest.LaunchWith(dir, redistest.Config{AppendOnly: setup.appendOnly}); err != nil {
			return err
		}
		defer rs.Stop()
		redisURL = rs.URL()
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	prefix := "cluster:" + rand.Text()[:8] + ":"
	kb := make([]byte, 32)
	_, _ = rand.Read(kb)
	key := hex.EncodeToString(kb)
	c := &cluster{killed: make([]atomic.Bool, n), exited: make(chan exit, n)}
	defer func() {
		if e := c.stop(); err == nil {
			err = e
		}
	}()
	var targets []*url.URL
	for i := range n {
		u, err := c.start(i, self, "--redis", redisURL, "--prefix", prefix, "--name", fmt.Sprint(i), "--state-key", key)
		if err != nil {
			return err
		}
		targets = append(targets, u)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	c.proxy = rrproxy.New(targets, slog.NewLogLogger(logger.Handler(), slog.LevelWarn))
	hs := &http.Server{Handler: c.proxy, ReadHeaderTimeout: 10 * time.Second}
	mcphttp.PromptShutdown(hs) // a connection dialled and never used does not hold Shutdown
	go func() { _ = hs.Serve(ln) }()
	defer func() {
		// The clients' streams end with the replicas; the proxy's idle
		// connections to them end first, so that each replica's graceful
		// shutdown waits on none of them (see rrproxy.Proxy.Close).
		hs.Close()
		c.proxy.Close()
	}()
	fmt.Printf("http://%s/mcp\n", ln.Addr())
	logger.Warn("cluster: serving", "proxy", "http://"+ln.Addr().String()+"/mcp", "redis", redisURL, "replicas", fmt.Sprint(targets))
	commands := make(chan string)
	go readCommands(commands)
	usr1, usr2 := make(chan os.Signal, 1), make(chan os.Signal, 1)
	signal.Notify(usr1, syscall.SIGUSR1)
	signal.Notify(usr2, syscall.SIGUSR2)
	defer signal.Stop(usr1)
	defer signal.Stop(usr2)
	paused := false
	defer func() {
		if paused {
			rs.Resume()
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-usr1:
			c.kill(logger)
		case <-usr2:
			if paused = !paused; paused {
				rs.Pause()
				fmt.Fprintln(os.Stderr, "cluster: redis paused")
			} else {
				rs.Resume()
				fmt.Fprintln(os.Stderr, "cluster: redis resumed")
			}
		case cmd := <-commands:
			if err := command(cmd, rs, ss); err != nil {
				fmt.Fprintf(os.Stderr, "cluster: %s failed: %v\n", cmd, err)
			}
		case e := <-c.exited:
			c.reaped++
			if !c.killed[e.i].Load() {
				return fmt.Errorf("replica %d exited: %v", e.i, e.err)
			}
		}
	}
}

// readCommands sends the lines of stdin to commands, until its end.
func readCommands(commands chan<- string) {
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" {
			commands <- line
		}
	}
}

// command runs one command of stdin (see runCluster).
func command(cmd string, rs *redistest.Server, ss *redistest.Sentinels) error {
	switch {
	case cmd == "restart" && ss == nil:
		rs.Shutdown()
		if err := rs.Start(); err != nil {
			return err
		}
		fmt.Fprintln(os.Stderr, "cluster: redis restarted")
	case cmd == "hold" && ss != nil:
		ss.HoldReplication()
		fmt.Fprintln(os.Stderr, "cluster: replication held")
	case cmd == "failover" && ss != nil:
		if err := ss.Failover(); err != nil {
			return err
		}
		fmt.Fprintln(os.Stderr, "cluster: failed over")
	default:
		return errors.New("no such command here")
	}
	return nil
}

// start runs replica i and reads its URL.
func (c *cluster) start(i int, self string, args ...string) (*url.URL, error) {
	cmd := exec.Command(self, args...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c.procs = append(c.procs, cmd)
	go func() { c.exited <- exit{i, cmd.Wait()} }()
	line, rerr := bufio.NewReader(out).ReadString('\n')
	u, perr := url.Parse(strings.TrimSpace(line))
	if rerr != nil || perr != nil || u.Host == "" {
		return nil, fmt.Errorf("replica %d printed no URL (%v)", i, rerr)
	}
	return u, nil
}

// kill kills the live replica with the most streams open.
func (c *cluster) kill(logger *slog.Logger) {
	victim, open := -1, int64(-1)
	for i := range c.procs {
		if n := c.proxy.Streams(i); !c.killed[i].Load() && n > open {
			victim, open = i, n
		}
	}
	if victim < 0 {
		logger.Warn("cluster: no replica left to kill")
		return
	}
	c.killed[victim].Store(true)
	c.proxy.Down(victim)
	_ = c.procs[victim].Process.Kill()
	fmt.Fprintf(os.Stderr, "cluster: killed replica %d with %d streams open\n", victim, open)
}

// stop ends the replicas still running (SIGTERM) and waits for all of
// them: an error for one that exits badly and was not killed.
func (c *cluster) stop() error {
	for i, p := range c.procs {
		if !c.killed[i].Load() {
			_ = p.Process.Signal(syscall.SIGTERM)
		}
	}
	var err error
	for ; c.reaped < len(c.procs); c.reaped++ {
		e := <-c.exited
		if e.err != nil && !c.killed[e.i].Load() && err == nil {
			err = fmt.Errorf("replica %d: %v", e.i, e.err)
		}
	}
	return err
}
