package genbench

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// checkEvery is how far apart, in lines, BenchmarkCheck edits the output:
// a changed line, an added line and a removed line in turn.
const checkEvery = 400

// scatterEdits changes src every checkEvery lines, cycling through a line
// changed, a line added and a line removed, and returns the edited text and
// the number of edits.
func scatterEdits(src []byte) ([]byte, int) {
	lines := strings.SplitAfter(string(src), "\n")
	var b strings.Builder
	edits := 0
	for i, l := range lines {
		if i == 0 || i%checkEvery != 0 {
			b.WriteString(l)
			continue
		}
		switch edits % 3 {
		case 0:
			b.WriteString("// changed by hand\n")
		case 1:
			b.WriteString("// added by hand\n")
			b.WriteString(l)
		case 2: // removed
		}
		edits++
	}
	return []byte(b.String()), edits
}

// BenchmarkCheck runs rpcgen --check, as CI would, on the large input's
// committed output after scattered hand edits: the run regenerates the
// output (from its cache, as the package did not change) and prints a
// unified diff of the committed file against it. ns/op is the wall time of
// one run, peak-RSS-MiB the largest resident set (rpcgen's, or go list's
// when larger); the bounds are 1 s and 100 MiB.
func BenchmarkCheck(b *testing.B) {
	e := sharedEnv(b)
	for _, in := range e.Inputs {
		if in.Name != "ifaces50x20" {
			continue
		}
		b.Run(in.Name+"/scattered-edits/impl=rpcgen", func(b *testing.B) {
			defer func() {
				if err := e.RemoveInPlace(in); err != nil {
					b.Fatal(err)
				}
			}()
			if _, err := e.RunInPlace(in); err != nil {
				b.Fatal(err)
			}
			out := e.inPlaceOutput(in)
			src, err := os.ReadFile(out)
			if err != nil {
				b.Fatal(err)
			}
			edited, edits := scatterEdits(src)
			if err := os.WriteFile(out, edited, 0o644); err != nil {
				b.Fatal(err)
			}
			var cpu time.Duration
			var maxRSS int64
			b.ResetTimer()
			for range b.N {
				m, diff, err := e.check(in)
				if err != nil {
					b.Fatal(err)
				}
				if hunks := strings.Count(diff, "\n@@ "); hunks != edits {
					b.Fatalf("the diff has %d hunks for %d edits", hunks, edits)
				}
				cpu += m.CPU
				maxRSS = max(maxRSS, m.MaxRSS)
			}
			b.StopTimer()
			b.ReportMetric(float64(cpu.Microseconds())/1e3/float64(b.N), "cpu-ms/op")
			b.ReportMetric(float64(maxRSS)/(1<<20), "peak-RSS-MiB")
			b.ReportMetric(float64(len(src))/(1<<20), "output-MiB")
		})
	}
}

// check runs rpcgen --check on in from its package directory and returns
// the diff it printed; it fails unless rpcgen exits 1, for stale output.
func (e *Env) check(in Input) (Measure, string, error) {
	cmd := exec.Command(e.bins["rpcgen"], append([]string{"--check"}, in.Interfaces...)...)
	cmd.Dir = in.Dir
	cmd.Env = e.environ
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	m := Measure{Wall: time.Since(start)}
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		return m, "", fmt.Errorf("rpcgen --check on %s: %v, want exit status 1\n%s", in.Name, err, stderr.Bytes())
	}
	ps := cmd.ProcessState
	m.CPU = ps.UserTime() + ps.SystemTime()
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		m.MaxRSS = ru.Maxrss * 1024
	}
	return m, stdout.String(), nil
}
