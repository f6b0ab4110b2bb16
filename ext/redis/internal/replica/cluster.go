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
	"strings"
	"syscall"
	"time"

	"github.com/rpcgen/rpcgen/ext/redis/internal/rrproxy"
	"github.com/rpcgen/rpcgen/ext/redis/redistest"
)

// runCluster starts redis-server, n replicas (this program, run again) on
// it and the round-robin proxy on addr; it prints the proxy's URL, serves
// until ctx ends (or a replica exits), then stops everything it started.
func runCluster(ctx context.Context, n int, addr string, logger *slog.Logger) (err error) {
	dir, err := os.MkdirTemp("", "replica-cluster-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	rs, err := redistest.Launch(dir)
	if err != nil {
		return err
	}
	defer rs.Stop()
	self, err := os.Executable()
	if err != nil {
		return err
	}
	prefix := "cluster:" + rand.Text()[:8] + ":"
	kb := make([]byte, 32)
	_, _ = rand.Read(kb)
	key := hex.EncodeToString(kb)
	exited := make(chan error, n)
	var procs []*exec.Cmd
	defer func() {
		for _, p := range procs {
			_ = p.Process.Signal(syscall.SIGTERM)
		}
		for range procs {
			if e := <-exited; e != nil && err == nil {
				err = e
			}
		}
	}()
	var targets []*url.URL
	for i := range n {
		cmd := exec.Command(self, "--redis", rs.URL(), "--prefix", prefix, "--name", fmt.Sprint(i), "--state-key", key)
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			return err
		}
		if err := cmd.Start(); err != nil {
			return err
		}
		procs = append(procs, cmd)
		go func() {
			e := cmd.Wait()
			if e != nil {
				e = fmt.Errorf("replica %d: %v", i, e)
			}
			exited <- e
		}()
		line, rerr := bufio.NewReader(out).ReadString('\n')
		u, perr := url.Parse(strings.TrimSpace(line))
		if rerr != nil || perr != nil || u.Host == "" {
			return fmt.Errorf("replica %d printed no URL (%v)", i, rerr)
		}
		targets = append(targets, u)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: rrproxy.New(targets, slog.NewLogLogger(logger.Handler(), slog.LevelWarn)), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	fmt.Printf("http://%s/mcp\n", ln.Addr())
	logger.Warn("cluster: serving", "proxy", "http://"+ln.Addr().String()+"/mcp", "redis", rs.URL(), "replicas", fmt.Sprint(targets))
	select {
	case <-ctx.Done():
	case e := <-exited:
		exited <- e // the deferred wait counts it
		if e == nil {
			e = errors.New("a replica exited")
		}
		return e
	}
	_ = hs.Close() // the clients' streams end with the replicas
	return nil
}
