package jsonrpcspec

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/runtime"
)

const serverEnv = "RPCGEN_SPEC_SERVER" // set to a framing name: run as a stdio server

func TestMain(m *testing.M) {
	if framing := os.Getenv(serverEnv); framing != "" {
		opts := runtime.Options{Handler: NewSpecHandler(&Impl{})}
		if framing == "content-length" {
			opts.Framing = runtime.ContentLength
		}
		if err := runtime.ServeStdio(context.Background(), opts); err != nil {
			fmt.Fprintln(os.Stderr, "spec server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestSpecExamplesStdio sends each example to a real subprocess over its
// stdin, closes stdin, and reads everything the server wrote before it
// exited: exactly the specified reply, or nothing at all.
func TestSpecExamplesStdio(t *testing.T) {
	for _, framing := range []string{"newline", "content-length"} {
		for _, ex := range Examples {
			t.Run(framing+"/"+ex.Name, func(t *testing.T) {
				t.Parallel()
				out := runStdioServer(t, framing, ex.Request)
				var replies []string
				if framing == "newline" {
					for line := range strings.SplitSeq(strings.TrimSuffix(out, "\n"), "\n") {
						if line != "" {
							replies = append(replies, line)
						}
					}
				} else {
					replies = splitContentLength(t, out)
				}
				checkReplies(t, replies, ex.Reply)
			})
		}
	}
}

// runStdioServer sends one request, framed, to a fresh server subprocess.
func runStdioServer(t *testing.T, framing, request string) string {
	t.Helper()
	if framing == "newline" {
		// The example spans lines; newline-delimited JSON carries one message a line.
		var compact bytes.Buffer
		if json.Compact(&compact, []byte(request)) == nil {
			request = compact.String()
		} else {
			request = strings.ReplaceAll(request, "\n", " ")
		}
		return runStdioRaw(t, framing, request+"\n")
	}
	return runStdioRaw(t, framing, fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(request), request))
}

// runStdioRaw writes stdin to a fresh server subprocess, closes it, and
// returns everything the server wrote to stdout before it exited.
func runStdioRaw(t *testing.T, framing, stdin string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	// The race detector's default one-second sleep at exit would dominate.
	cmd.Env = append(os.Environ(), serverEnv+"="+framing, "GORACE=atexit_sleep_ms=0")
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("server: %v\nstderr: %s", err, stderr.String())
	}
	return stdout.String()
}

func splitContentLength(t *testing.T, out string) []string {
	t.Helper()
	var msgs []string
	r := bufio.NewReader(strings.NewReader(out))
	for {
		line, err := r.ReadString('\n')
		if err == io.EOF && line == "" {
			return msgs
		}
		if err != nil {
			t.Fatalf("reading header: %v", err)
		}
		n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "Content-Length:")))
		if err != nil {
			t.Fatalf("bad header %q", line)
		}
		if blank, _ := r.ReadString('\n'); blank != "\r\n" {
			t.Fatalf("header not followed by a blank line: %q", blank)
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(r, body); err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, string(body))
	}
}
