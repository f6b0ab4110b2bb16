package coldstart

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// server is one stdio MCP server binary, built once by TestMain.
type server struct {
	name string // the impl name in benchmark names
	pkg  string // the package TestMain builds, relative to this directory
	// floor marks the one-line floor, which is sent one request line and answers one.
	floor bool
}

var servers = []server{
	{name: "rpcgen", pkg: "./cmd/rpcgenserver"},
	{name: "gosdk", pkg: "./cmd/gosdkserver"},
	{name: "mcpgo", pkg: "./cmd/mcpgoserver"},
	{name: "floor", pkg: "./cmd/floorserver", floor: true},
}

// binDir holds the built servers, one file per package's base name.
var binDir string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "coldstart")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	binDir = dir
	args := []string{"build", "-o", dir + string(filepath.Separator)}
	for _, s := range servers {
		args = append(args, s.pkg)
	}
	build := exec.Command("go", args...)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "coldstart: build servers:", err)
		return 1
	}
	return m.Run()
}

func (s server) path() string { return filepath.Join(binDir, filepath.Base(s.pkg)) }

// era is one way of reaching tools/list: the messages a client writes before it, each
// after the previous one's answer.
type era struct {
	name string
	// steps are written in order; a step with a non-zero id waits for that response.
	steps []step
	// list is the tools/list request, sent last; its id is listID.
	list []byte
}

type step struct {
	line []byte
	id   int // 0: a notification, sent without waiting
}

const listID = 2

// clientMeta is the _meta every 2026-07-28 request carries.
const clientMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
	`"io.modelcontextprotocol/clientCapabilities":{},` +
	`"io.modelcontextprotocol/clientInfo":{"name":"coldstart","version":"1.0.0"}}`

var eras = []era{
	{
		name: "legacy",
		steps: []step{
			{line: []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"coldstart","version":"1.0.0"}}}`), id: 1},
			{line: []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)},
		},
		list: []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`),
	},
	{
		name: "modern",
		steps: []step{
			{line: []byte(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + clientMeta + `}}`), id: 1},
		},
		list: []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{` + clientMeta + `}}`),
	},
}

// start is one cold start in progress: the child and the client's ends of its pipes.
type start struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
}

// coldStart spawns s and drives it until tools/list is answered with the add tool:
// the era's handshake first, except for the floor, which gets only the tools/list line.
func coldStart(s server, e era) (*start, error) {
	cmd := exec.Command(s.path())
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	st := &start{cmd: cmd, stdin: stdin, stdout: bufio.NewReader(stdout)}
	if !s.floor {
		// Notifications go out with the next line, as a client would write them back to back.
		var pending []byte
		for _, step := range e.steps {
			pending = append(append(pending, step.line...), '\n')
			if step.id == 0 {
				continue
			}
			if err := st.write(pending); err != nil {
				return st, err
			}
			pending = pending[:0]
			if _, err := st.read(step.id); err != nil {
				return st, err
			}
		}
		if err := st.write(append(append(pending, e.list...), '\n')); err != nil {
			return st, err
		}
	} else if err := st.write(append(bytes.Clone(e.list), '\n')); err != nil {
		return st, err
	}
	result, err := st.read(listID)
	if err != nil {
		return st, err
	}
	var list struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(result, &list); err != nil {
		return st, fmt.Errorf("tools/list result: %w", err)
	}
	if len(list.Tools) != 1 || list.Tools[0].Name != "add" {
		return st, fmt.Errorf("tools/list result: want the add tool, got %s", result)
	}
	return st, nil
}

func (st *start) write(p []byte) error {
	_, err := st.stdin.Write(p)
	return err
}

// read returns the result of the response with the given id, skipping notifications.
func (st *start) read(id int) (json.RawMessage, error) {
	for {
		line, err := st.stdout.ReadBytes('\n')
		if err != nil {
			return nil, fmt.Errorf("read response %d: %w", id, err)
		}
		var msg struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(line, &msg); err != nil {
			return nil, fmt.Errorf("response %d: %w: %q", id, err, line)
		}
		if msg.ID == nil {
			continue
		}
		if *msg.ID != id || msg.Result == nil {
			return nil, fmt.Errorf("want the result of request %d, got %q", id, line)
		}
		return msg.Result, nil
	}
}

// stop closes the child's stdin, waits for it to exit and returns its peak RSS in KiB.
func (st *start) stop() (int64, error) {
	st.stdin.Close()
	exited := make(chan error, 1)
	go func() { exited <- st.cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			return 0, fmt.Errorf("server exit: %w", err)
		}
	case <-time.After(5 * time.Second):
		st.cmd.Process.Kill()
		<-exited
		return 0, fmt.Errorf("server did not exit after its stdin closed")
	}
	ru, ok := st.cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, nil
	}
	return ru.Maxrss, nil // KiB on Linux
}

// BenchmarkColdStart measures one cold start per op: spawn the server, complete the
// era's handshake, have tools/list answered. Stopping the child is outside the timed
// part; peak-RSS-KiB is the mean over the children of their peak resident set.
func BenchmarkColdStart(b *testing.B) {
	for _, e := range eras {
		for _, s := range servers {
			b.Run(e.name+"/impl="+s.name, func(b *testing.B) {
				var rss int64
				for range b.N {
					st, err := coldStart(s, e)
					b.StopTimer()
					if err != nil {
						if st != nil {
							st.stop()
						}
						b.Fatal(err)
					}
					kib, err := st.stop()
					if err != nil {
						b.Fatal(err)
					}
					rss += kib
					b.StartTimer()
				}
				b.ReportMetric(float64(rss)/float64(b.N), "peak-RSS-KiB")
			})
		}
	}
}

// TestColdStart checks every server completes every era's cold start.
func TestColdStart(t *testing.T) {
	for _, e := range eras {
		for _, s := range servers {
			t.Run(e.name+"/"+s.name, func(t *testing.T) {
				st, err := coldStart(s, e)
				if err != nil {
					if st != nil {
						st.stop()
					}
					t.Fatal(err)
				}
				if _, err := st.stop(); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}
