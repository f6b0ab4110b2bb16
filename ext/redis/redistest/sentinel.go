package redistest

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// MasterName is the name the Sentinels of a Sentinels know the primary by.
const MasterName = "rpcgen"

// Sentinels is a Redis primary, a replica of it and three Redis Sentinels
// watching them (quorum 2), on free loopback ports: what a deployment
// with automatic failover runs. The replica replicates through a relay of
// this process, so that a test can hold replication back
// (HoldReplication) and fail over to a replica that lacks the primary's
// latest writes, as a failover after a crash does.
type Sentinels struct {
	Primary, Replica *Server
	// Addrs are the Sentinels' host:port addresses.
	Addrs []string

	dir      string
	procs    []*exec.Cmd
	relay    net.Listener
	held     atomic.Bool
	relayMu  sync.Mutex
	conns    []net.Conn
	promoted bool
}

// StartSentinels starts a Sentinels and stops it when the test ends.
func StartSentinels(t testing.TB) *Sentinels {
	t.Helper()
	s, err := LaunchSentinels(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s.Primary.t, s.Replica.t = t, t
	t.Cleanup(s.Stop)
	return s
}

// LaunchSentinels starts a Sentinels with its files in dir, for a program
// that is not a test; the caller stops it with Stop.
func LaunchSentinels(dir string) (s *Sentinels, err error) {
	s = &Sentinels{dir: dir}
	defer func() {
		if err != nil {
			s.Stop()
		}
	}()
	pdir, rdir := filepath.Join(dir, "primary"), filepath.Join(dir, "replica")
	for _, d := range []string{pdir, rdir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	if s.Primary, err = LaunchWith(pdir, Config{}); err != nil {
		return nil, err
	}
	if s.relay, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		return nil, err
	}
	go s.serveRelay()
	relayPort := s.relay.Addr().(*net.TCPAddr).Port
	if s.Replica, err = LaunchWith(rdir, Config{Args: []string{"--replicaof", "127.0.0.1", fmt.Sprint(relayPort)}}); err != nil {
		return nil, err
	}
	if err := s.waitLinked(); err != nil {
		return nil, err
	}
	for i := range 3 {
		addr, err := s.startSentinel(i)
		if err != nil {
			return nil, err
		}
		s.Addrs = append(s.Addrs, addr)
	}
	// A failover needs the Sentinels to know the replica, which they learn
	// from the primary's INFO.
	if err := s.waitUntil(20*time.Second, "every Sentinel to know the replica", func() bool {
		for _, a := range s.Addrs {
			out, err := Command(a, "SENTINEL", "REPLICAS", MasterName)
			if err != nil || !strings.Contains(out, fmt.Sprint(s.Replica.Port)) || strings.Contains(out, "disconnected") {
				return false
			}
		}
		return true
	}); err != nil {
		return nil, err
	}
	return s, nil
}

// URL is the go-redis URL of the failover client: the first Sentinel's
// address, the others as addr parameters, and the master's name.
func (s *Sentinels) URL() string {
	q := url.Values{"master_name": {MasterName}}
	for _, a := range s.Addrs[1:] {
		q.Add("addr", a)
	}
	return "redis://" + s.Addrs[0] + "/0?" + q.Encode()
}

func (s *Sentinels) startSentinel(i int) (string, error) {
	var lastErr error
	for range 5 {
		port, err := freePort()
		if err != nil {
			lastErr = err
			continue
		}
		conf := filepath.Join(s.dir, fmt.Sprintf("sentinel%d.conf", i))
		text := fmt.Sprintf("port %d\nbind 127.0.0.1\ndir %s\nsentinel monitor %s 127.0.0.1 %d 2\n"+
			"sentinel down-after-milliseconds %s 5000\nsentinel failover-timeout %s 180000\n",
			port, s.dir, MasterName, s.Primary.Port, MasterName, MasterName)
		if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
			return "", err
		}
		cmd := exec.Command("redis-server", conf, "--sentinel")
		if err := startAndWait(cmd, "+monitor master"); err != nil {
			lastErr = err
			continue
		}
		s.procs = append(s.procs, cmd)
		return fmt.Sprintf("127.0.0.1:%d", port), nil
	}
	return "", fmt.Errorf("redistest: start redis-sentinel: %v", lastErr)
}

// startAndWait starts cmd and waits until its output has a line with
// ready.
func startAndWait(cmd *exec.Cmd, ready string) error {
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(out)
		var log []string
		for sc.Scan() {
			if strings.Contains(sc.Text(), ready) {
				done <- nil
				for sc.Scan() {
				}
				return
			}
			log = append(log, sc.Text())
		}
		done <- fmt.Errorf("exited: %s", strings.Join(log, "\n"))
	}()
	select {
	case err := <-done:
		if err != nil {
			_ = cmd.Wait()
		}
		return err
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return fmt.Errorf("not ready within 20s")
	}
}

// serveRelay forwards the replica's connections to the primary, and the
// primary's answers back unless replication is held.
func (s *Sentinels) serveRelay() {
	for {
		c, err := s.relay.Accept()
		if err != nil {
			return
		}
		p, err := net.Dial("tcp", s.Primary.Addr())
		if err != nil {
			c.Close()
			continue
		}
		s.relayMu.Lock()
		s.conns = append(s.conns, c, p)
		s.relayMu.Unlock()
		go func() { _, _ = io.Copy(p, c); p.Close() }()
		go func() {
			buf := make([]byte, 32<<10)
			for {
				n, err := p.Read(buf)
				if n > 0 && !s.held.Load() {
					if _, werr := c.Write(buf[:n]); werr != nil {
						break
					}
				}
				if err != nil {
					break
				}
			}
			c.Close()
		}()
	}
}

// waitLinked waits until the replica's link to the primary is up and it
// has synchronised.
func (s *Sentinels) waitLinked() error {
	return s.waitUntil(20*time.Second, "the replica to synchronise", func() bool {
		out, err := Command(s.Replica.Addr(), "INFO", "replication")
		return err == nil && strings.Contains(out, "master_link_status:up") && strings.Contains(out, "master_sync_in_progress:0")
	})
}

// HoldReplication has the replica get nothing more from the primary (its
// link stays up, as far as either knows): what the primary is written from
// now on, the replica lacks, and a failover to it loses.
func (s *Sentinels) HoldReplication() { s.held.Store(true) }

// Failover has a Sentinel fail the primary over to the replica (SENTINEL
// FAILOVER) and waits until every Sentinel names the replica as the
// primary and the replica says it is one. What replication held back is
// lost: the old primary, once the Sentinels make it a replica of the new
// one, takes the new one's data.
func (s *Sentinels) Failover() error {
	if s.promoted {
		return fmt.Errorf("redistest: the Sentinels have failed over once already")
	}
	if out, err := Command(s.Addrs[0], "SENTINEL", "FAILOVER", MasterName); err != nil || !strings.Contains(out, "OK") {
		return fmt.Errorf("redistest: SENTINEL FAILOVER: %q, %v", out, err)
	}
	want := fmt.Sprint(s.Replica.Port)
	err := s.waitUntil(30*time.Second, "the Sentinels to name the replica as the primary", func() bool {
		for _, a := range s.Addrs {
			out, err := Command(a, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", MasterName)
			if err != nil || !strings.Contains(out, want) {
				return false
			}
		}
		out, err := Command(s.Replica.Addr(), "ROLE")
		return err == nil && strings.HasPrefix(out, "master")
	})
	if err != nil {
		return err
	}
	s.promoted = true
	// The relay's connections are the old replication link: done with.
	s.relayMu.Lock()
	for _, c := range s.conns {
		c.Close()
	}
	s.relayMu.Unlock()
	return nil
}

// WaitDemoted waits until the old primary is a replica of the new one,
// in sync: the Sentinels make it so some seconds after a failover.
func (s *Sentinels) WaitDemoted() error {
	return s.waitUntil(60*time.Second, "the old primary to become a replica", func() bool {
		out, err := Command(s.Primary.Addr(), "INFO", "replication")
		return err == nil && strings.Contains(out, "role:slave") && strings.Contains(out, "master_link_status:up") &&
			strings.Contains(out, fmt.Sprintf("master_port:%d", s.Replica.Port))
	})
}

func (s *Sentinels) waitUntil(d time.Duration, what string, ok func() bool) error {
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			return fmt.Errorf("redistest: waited %v for %s", d, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return nil
}

// Stop kills the Sentinels, the replica and the primary.
func (s *Sentinels) Stop() {
	for _, cmd := range s.procs {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
	s.procs = nil
	if s.relay != nil {
		s.relay.Close()
		s.relayMu.Lock()
		for _, c := range s.conns {
			c.Close()
		}
		s.relayMu.Unlock()
	}
	if s.Replica != nil {
		s.Replica.Stop()
	}
	if s.Primary != nil {
		s.Primary.Stop()
	}
}

// Command sends one command to the Redis (or Sentinel) at addr and
// returns its answer as text: a simple string, an error ("-ERR ..."), or
// the elements of an array (nested arrays flattened) separated by
// newlines. For the setup and checks of tests, which need no client
// library for it.
func Command(addr string, args ...string) (string, error) {
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := io.WriteString(c, b.String()); err != nil {
		return "", err
	}
	var out []string
	if err := readReply(bufio.NewReader(c), &out); err != nil {
		return "", err
	}
	return strings.Join(out, "\n"), nil
}

// readReply reads one RESP2 reply into out.
func readReply(r *bufio.Reader, out *[]string) error {
	line, err := r.ReadString('\n')
	if err != nil {
		return err
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return fmt.Errorf("redistest: empty reply line")
	}
	switch line[0] {
	case '+', ':':
		*out = append(*out, line[1:])
	case '-':
		*out = append(*out, line)
	case '$':
		var n int
		fmt.Sscan(line[1:], &n)
		if n < 0 {
			*out = append(*out, "")
			return nil
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return err
		}
		*out = append(*out, string(buf[:n]))
	case '*':
		var n int
		fmt.Sscan(line[1:], &n)
		for range max(n, 0) {
			if err := readReply(r, out); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("redistest: unexpected reply %q", line)
	}
	return nil
}
