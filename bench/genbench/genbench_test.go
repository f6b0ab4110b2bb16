package genbench

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/tools/go/packages"

	"github.com/rpcgen/rpcgen/generator"
)

var (
	envOnce sync.Once
	env     *Env
	envErr  error
)

// sharedEnv builds the tools and writes the inputs once per test binary.
func sharedEnv(tb testing.TB) *Env {
	envOnce.Do(func() {
		wd, err := os.Getwd()
		if err != nil {
			envErr = err
			return
		}
		env, envErr = NewEnv(wd)
	})
	if envErr != nil {
		tb.Fatal(envErr)
	}
	return env
}

func TestMain(m *testing.M) {
	code := m.Run()
	if env != nil {
		env.Close()
	}
	os.Exit(code)
}

// states are the cache states: warm runs the same input again and again;
// edited changes the input file before each run (outside the timer), as
// editing the code next to the interfaces does; api-edited changes the
// first interface's doc comment before each run, so that the output
// changes too.
var states = []string{"warm", "edited", "api-edited"}

// editFor returns the edit made before each run in state, or nil.
func editFor(e *Env, state string) func(Input) error {
	switch state {
	case "edited", "edited-inplace":
		return e.Edit
	case "api-edited":
		return e.EditAPI
	}
	return nil
}

// inPlaceStates repeat warm and edited with rpcgen writing its default
// output into the package, over the previous run's output, as go generate
// does (see Env.RunInPlace). Only rpcgen and the floor run in them: the
// floor loads the package without rpcgen's output, which is what rpcgen
// asks go/packages to see.
var inPlaceStates = []string{"warm-inplace", "edited-inplace"}

// BenchmarkGenerator runs each tool as a subprocess on each input, as go
// generate would. ns/op is the wall time of one run; cpu-ms/op the user
// and system time of the tool and the processes it waited for; peak-RSS-MiB
// the largest resident set among them, over the runs.
func BenchmarkGenerator(b *testing.B) {
	e := sharedEnv(b)
	for _, in := range e.Inputs {
		for _, state := range states {
			for _, impl := range e.Impls {
				b.Run(in.Name+"/"+state+"/impl="+impl, func(b *testing.B) {
					benchmarkRuns(b, e, in, editFor(e, state), func() (Measure, error) { return e.Run(impl, in) })
				})
			}
		}
		for _, state := range inPlaceStates {
			edit := editFor(e, state)
			for _, impl := range e.Impls {
				if !strings.HasPrefix(impl, "rpcgen") || impl == "rpcgen-nocache" {
					continue
				}
				b.Run(in.Name+"/"+state+"/impl="+impl, func(b *testing.B) {
					defer func() {
						if err := e.RemoveInPlace(in); err != nil {
							b.Fatal(err)
						}
					}()
					benchmarkRuns(b, e, in, edit, func() (Measure, error) { return e.RunInPlaceWith(impl, in) })
				})
			}
			b.Run(in.Name+"/"+state+"/impl=packagesload", func(b *testing.B) {
				benchmarkRuns(b, e, in, edit, func() (Measure, error) { return e.Run("packagesload", in) })
			})
		}
	}
}

// benchmarkRuns times b.N calls of run, which runs one tool once.
func benchmarkRuns(b *testing.B, e *Env, in Input, edit func(Input) error, run func() (Measure, error)) {
	defer func() {
		if err := e.Restore(in); err != nil {
			b.Fatal(err)
		}
	}()
	// One run outside the timer builds the export data of the package as
	// it stands (and, in place, leaves rpcgen's output there) and checks
	// the tool works on it.
	if _, err := run(); err != nil {
		b.Fatal(err)
	}
	var cpu time.Duration
	var maxRSS int64
	b.ResetTimer()
	for range b.N {
		if edit != nil {
			b.StopTimer()
			if err := edit(in); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
		m, err := run()
		if err != nil {
			b.Fatal(err)
		}
		cpu += m.CPU
		maxRSS = max(maxRSS, m.MaxRSS)
	}
	b.StopTimer()
	b.ReportMetric(float64(cpu.Microseconds())/1e3/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(maxRSS)/(1<<20), "peak-RSS-MiB")
}

// BenchmarkGeneratorInProcess calls generator.Generate, and for the floor
// packages.Load in rpcgen's mode, in the test process: no process start,
// and go test's -cpuprofile and -memprofile then show where rpcgen spends
// its time beyond the load (go list and the compiler it runs are
// subprocesses, in neither impl's profile).
func BenchmarkGeneratorInProcess(b *testing.B) {
	e := sharedEnv(b)
	for _, in := range e.Inputs {
		for _, state := range states {
			for _, impl := range []string{"rpcgen", "packagesload"} {
				b.Run(in.Name+"/"+state+"/impl="+impl, func(b *testing.B) {
					benchmarkInProcess(b, e, in, editFor(e, state), impl)
				})
			}
		}
	}
}

func benchmarkInProcess(b *testing.B, e *Env, in Input, edit func(Input) error, impl string) {
	defer func() {
		if err := e.Restore(in); err != nil {
			b.Fatal(err)
		}
	}()
	// As for the subprocesses: every module comes from the cache.
	b.Setenv("GOPROXY", "off")
	b.Setenv("GOWORK", "off")
	out := filepath.Join(e.outDir, "inprocess_"+in.Name+".go")
	run := func() {
		switch impl {
		case "rpcgen":
			files, err := generator.Generate(generator.Config{Dir: in.Dir, Interfaces: in.Interfaces, Output: out})
			if err != nil {
				b.Fatal(err)
			}
			if len(files[out]) == 0 {
				b.Fatalf("generator.Generate returned no %s", out)
			}
		case "packagesload":
			cfg := &packages.Config{Mode: floorMode, Dir: in.Dir}
			pkgs, err := packages.Load(cfg, ".")
			if err != nil {
				b.Fatal(err)
			}
			if len(pkgs) != 1 || len(pkgs[0].Errors) > 0 || pkgs[0].Types.Scope().Lookup(in.Interfaces[0]) == nil {
				b.Fatalf("packages.Load of %s: %d packages, errors %v", in.Dir, len(pkgs), pkgs[0].Errors)
			}
		}
	}
	run()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if edit != nil {
			b.StopTimer()
			if err := edit(in); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
		run()
	}
}

// floorMode is rpcgen's load mode, as cmd/loadfloor uses it.
const floorMode = packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes

// TestToolsSucceed runs every tool once on every input, so that a broken
// input or tool shows up without running the benchmarks.
func TestToolsSucceed(t *testing.T) {
	if testing.Short() {
		t.Skip("builds four tools and runs each on every input")
	}
	e := sharedEnv(t)
	for _, in := range e.Inputs {
		for _, impl := range e.Impls {
			m, err := e.Run(impl, in)
			if err != nil {
				t.Error(err)
				continue
			}
			t.Logf("%s/impl=%s: %v wall, %v cpu, %d MiB", in.Name, impl, m.Wall.Round(time.Millisecond), m.CPU.Round(time.Millisecond), m.MaxRSS>>20)
		}
	}
}

// TestEdits checks that the edited states measure what they say: Edit
// leaves rpcgen's output as it was, and EditAPI changes it, so that the
// api-edited runs can take nothing from a cache.
func TestEdits(t *testing.T) {
	if testing.Short() {
		t.Skip("builds four tools and runs rpcgen on every input")
	}
	e := sharedEnv(t)
	for _, in := range e.Inputs {
		base, err := e.Output("rpcgen-nocache", in)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name string
			edit func(Input) error
			same bool
		}{{"edited", e.Edit, true}, {"api-edited", e.EditAPI, false}} {
			if err := c.edit(in); err != nil {
				t.Fatal(err)
			}
			got, err := e.Output("rpcgen-nocache", in)
			if err != nil {
				t.Fatal(err)
			}
			if same := bytes.Equal(got, base); same != c.same {
				t.Errorf("%s/%s: output unchanged %v, want %v", in.Name, c.name, same, c.same)
			}
			if err := e.Restore(in); err != nil {
				t.Fatal(err)
			}
		}
	}
}
