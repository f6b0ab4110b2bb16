// Package redistest starts a real redis-server for tests and benchmarks,
// on a free loopback port, and stops it when the test ends: the tests of
// ext/redis, of the examples and the benchmarks that run replicas on Redis
// use it. It needs the redis-server program (the Debian package
// redis-server) on PATH.
package redistest

import (
	"bufio"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Server is a redis-server process.
type Server struct {
	t    testing.TB
	Port int
	cfg  Config
	dir  string
	cmd  *exec.Cmd
}

// Config says how a Server persists its data. The zero Config keeps
// everything in memory, as the tests that want an empty Redis after a
// restart need.
type Config struct {
	// AppendOnly turns the append-only file on (appendonly yes): a Server
	// restarted with Restart loads what it had.
	AppendOnly bool
	// Fsync is appendfsync: "always", "everysec" (the default) or "no".
	Fsync string
	// Args are more redis-server arguments, such as "--replicaof",
	// "127.0.0.1 6379".
	Args []string
}

// URL is the server's redis:// URL.
func (s *Server) URL() string { return fmt.Sprintf("redis://127.0.0.1:%d/0", s.Port) }

// Addr is its host:port.
func (s *Server) Addr() string { return fmt.Sprintf("127.0.0.1:%d", s.Port) }

// Start starts redis-server on a free loopback port and stops it when the
// test ends; it fails the test when there is no redis-server (install the
// Debian package redis-server).
func Start(t testing.TB) *Server { t.Helper(); return StartWith(t, Config{}) }

// StartWith is Start with cfg.
func StartWith(t testing.TB, cfg Config) *Server {
	t.Helper()
	s, err := LaunchWith(t.TempDir(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	s.t = t
	t.Cleanup(s.Stop)
	return s
}

// Launch starts redis-server on a free loopback port, with dir as its
// working directory, for a program that is not a test (such as
// internal/replica --cluster); the caller stops it with Stop. Restart
// needs a Server made by Start.
func Launch(dir string) (*Server, error) { return LaunchWith(dir, Config{}) }

// LaunchWith is Launch with cfg.
func LaunchWith(dir string, cfg Config) (*Server, error) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		return nil, fmt.Errorf("redistest: redis-server is not installed (apt-get install redis-server); the multi-replica tests need a real one")
	}
	s := &Server{dir: dir, cfg: cfg}
	var err error
	for range 5 {
		if s.Port, err = freePort(); err != nil {
			continue
		}
		if err = s.start(); err == nil {
			return s, nil
		}
	}
	return nil, fmt.Errorf("redistest: start redis-server: %v", err)
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// start runs the server on s.Port and waits until it accepts connections.
func (s *Server) start() error {
	aof, fsync := "no", s.cfg.Fsync
	if s.cfg.AppendOnly {
		aof = "yes"
	}
	if fsync == "" {
		fsync = "everysec"
	}
	args := append([]string{"--port", fmt.Sprint(s.Port), "--bind", "127.0.0.1", "--save", "",
		"--appendonly", aof, "--appendfsync", fsync, "--protected-mode", "no", "--dir", s.dir, "--loglevel", "notice"},
		s.cfg.Args...)
	cmd := exec.Command("redis-server", args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return err
	}
	ready := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(out)
		var log []string
		for sc.Scan() {
			line := sc.Text()
			if strings.Contains(line, "Ready to accept connections") {
				ready <- nil
				for sc.Scan() {
				}
				return
			}
			log = append(log, line)
		}
		ready <- fmt.Errorf("redis-server exited: %s", strings.Join(log, "\n"))
	}()
	select {
	case err := <-ready:
		if err != nil {
			_ = cmd.Wait()
			return err
		}
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return fmt.Errorf("redis-server did not start within 20s")
	}
	s.cmd = cmd
	return nil
}

// Stop kills the server (as a crash would) and waits for it to exit.
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	s.cmd = nil
}

// Shutdown stops the server as an operator would (SIGTERM): with
// AppendOnly, it writes and syncs its append-only file first.
func (s *Server) Shutdown() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	_ = s.cmd.Wait()
	s.cmd = nil
}

// Restart starts the server again on the same port (after Stop or
// Shutdown; it kills a running one first): empty, or with what its
// append-only file kept when Config.AppendOnly is set.
func (s *Server) Restart() {
	s.t.Helper()
	if err := s.Start(); err != nil {
		s.t.Fatalf("redistest: restart redis-server: %v", err)
	}
}

// Start starts a stopped server again on the same port (Restart for a
// program that is not a test).
func (s *Server) Start() error {
	s.Stop()
	return s.start()
}

// Pause stops the server's process (SIGSTOP): it accepts connections but
// answers nothing, as a Redis that hangs.
func (s *Server) Pause() { _ = s.cmd.Process.Signal(syscall.SIGSTOP) }

// Resume lets a paused server go on (SIGCONT).
func (s *Server) Resume() { _ = s.cmd.Process.Signal(syscall.SIGCONT) }
