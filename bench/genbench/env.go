package genbench

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Impls are the tools compared, in column order. packagesload is the floor.
// rpcgen keeps its format cache (RPCGEN_CACHE) in the Env, so its timed
// runs reuse the formatting of the untimed first run when the rendered code
// did not change (an edit outside the interfaces leaves it unchanged);
// rpcgen-nocache is the same binary with --no-cache, formatting every time.
var Impls = []string{"rpcgen", "rpcgen-nocache", "packagesload", "moq", "mockgen"}

// toolPackages are the main packages built for each impl, from the bench
// module (so moq and mockgen build with the versions bench/go.mod pins).
var toolPackages = map[string]string{
	"rpcgen":         "github.com/rpcgen/rpcgen/cmd/rpcgen",
	"rpcgen-nocache": "github.com/rpcgen/rpcgen/cmd/rpcgen",
	"packagesload":   "github.com/rpcgen/rpcgen/bench/genbench/cmd/loadfloor",
	"moq":            "github.com/matryer/moq",
	"mockgen":        "go.uber.org/mock/mockgen",
}

// BaseEnv names the environment variable that, when it holds the root of
// another checkout of the rpcgen repository (an earlier commit, say), adds
// the impl rpcgen-base: cmd/rpcgen built from that checkout, run as rpcgen
// is (with a cache of its own), so that a report compares the two in the
// same run.
const BaseEnv = "GENBENCH_BASE"

// Env is a built set of tools and a written input module, in a temporary
// directory that Close removes.
type Env struct {
	Root   string
	Inputs []Input
	// Impls are Impls, with rpcgen-base after rpcgen when BaseEnv is set.
	Impls []string

	bins     map[string]string // impl -> binary
	outDir   string            // outputs go here, outside the input module
	original map[string][]byte // EditFile -> its content as written
	edits    int
	epoch    int64 // makes edits differ from those of earlier processes
	environ  []string
}

// NewEnv builds the four tools with the go command from benchDir (a
// directory of the bench module), writes the input module and completes
// its go.sum offline from the module cache.
func NewEnv(benchDir string) (*Env, error) {
	root, err := os.MkdirTemp("", "genbench-")
	if err != nil {
		return nil, err
	}
	e := &Env{Root: root, bins: map[string]string{}, outDir: filepath.Join(root, "out"), original: map[string][]byte{}, epoch: time.Now().UnixNano()}
	// Runs must never reach the network: every module is in the cache.
	e.environ = append(os.Environ(), "GOPROXY=off", "GOWORK=off", "RPCGEN_CACHE="+filepath.Join(root, "rpcgen-cache"))
	e.Impls = Impls
	if os.Getenv(BaseEnv) != "" {
		e.Impls = append([]string{"rpcgen", "rpcgen-base"}, Impls[1:]...)
	}
	if err := e.setup(benchDir); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

func (e *Env) setup(benchDir string) error {
	binDir := filepath.Join(e.Root, "bin")
	args := []string{"build", "-o", binDir + string(filepath.Separator)}
	for _, impl := range Impls {
		if impl != "rpcgen-nocache" { // the rpcgen binary
			args = append(args, toolPackages[impl])
		}
	}
	if _, err := goCommand(benchDir, nil, args...); err != nil {
		return err
	}
	for _, impl := range Impls {
		e.bins[impl] = filepath.Join(binDir, filepath.Base(toolPackages[impl]))
	}
	if base := os.Getenv(BaseEnv); base != "" {
		e.bins["rpcgen-base"] = filepath.Join(binDir, "rpcgen-base")
		if _, err := goCommand(base, nil, "build", "-o", e.bins["rpcgen-base"], "./cmd/rpcgen"); err != nil {
			return err
		}
	}

	var reqs []Requirement
	for _, path := range HeavyRequirements {
		v, err := goCommand(benchDir, nil, "list", "-m", "-f", "{{.Version}}", path)
		if err != nil {
			return err
		}
		reqs = append(reqs, Requirement{Path: path, Version: strings.TrimSpace(v)})
	}
	modRoot := filepath.Join(e.Root, "mod")
	inputs, err := WriteModule(modRoot, reqs)
	if err != nil {
		return err
	}
	// The modules are in the cache (rpcgen depends on them): tidy needs
	// neither the proxy nor the checksum database.
	env := append(os.Environ(), "GOPROXY=off", "GOSUMDB=off", "GOWORK=off", "GOFLAGS=-mod=mod")
	if _, err := goCommand(modRoot, env, "mod", "tidy"); err != nil {
		return err
	}
	for _, in := range inputs {
		src, err := os.ReadFile(in.EditFile)
		if err != nil {
			return err
		}
		e.original[in.EditFile] = src
	}
	e.Inputs = inputs
	return os.MkdirAll(e.outDir, 0o755)
}

// Close removes everything NewEnv wrote.
func (e *Env) Close() error { return os.RemoveAll(e.Root) }

// Measure is what one tool run cost.
type Measure struct {
	Wall time.Duration
	// CPU is user plus system time of the process and of the processes it
	// waited for (go list and the compiler it starts).
	CPU time.Duration
	// MaxRSS is the peak resident set of the process or of the largest of
	// the processes it waited for, in bytes (Linux reports KiB).
	MaxRSS int64
}

// Run runs impl on in once as a subprocess from the package directory, as
// go generate would, writing outside the input module, and checks that it
// succeeded: exit status 0 and an output file that names the last
// interface. The output is removed after, so every run starts from the
// same files.
func (e *Env) Run(impl string, in Input) (Measure, error) {
	out := filepath.Join(e.outDir, impl+"_"+in.Name+".go")
	m, err := e.run(impl, in, out, toolArgs(impl, in, out))
	if err != nil {
		return m, err
	}
	return m, os.Remove(out)
}

// Output runs impl on in once, as Run does, and returns what it wrote.
func (e *Env) Output(impl string, in Input) ([]byte, error) {
	out := filepath.Join(e.outDir, "output_"+impl+"_"+in.Name+".go")
	if _, err := e.run(impl, in, out, toolArgs(impl, in, out)); err != nil {
		return nil, err
	}
	defer os.Remove(out)
	return os.ReadFile(out)
}

// RunInPlace runs rpcgen on in the way go generate does every time but the
// first: writing its default output file in the package directory, where
// the previous run left it. rpcgen then hands go/packages an overlay that
// empties the stale output, and go/packages type-checks every dependency
// from source instead of reading export data when any overlay is given.
// The output stays; RemoveInPlace removes it.
func (e *Env) RunInPlace(in Input) (Measure, error) {
	return e.RunInPlaceWith("rpcgen", in)
}

// RunInPlaceWith is RunInPlace with impl, rpcgen or rpcgen-base.
func (e *Env) RunInPlaceWith(impl string, in Input) (Measure, error) {
	return e.run(impl, in, e.inPlaceOutput(in), in.Interfaces)
}

// RemoveInPlace removes the output RunInPlace leaves in the package.
func (e *Env) RemoveInPlace(in Input) error {
	if err := os.Remove(e.inPlaceOutput(in)); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}

// inPlaceOutput is rpcgen's default output file: the first interface's
// name in lower case plus "_rpcgen.go".
func (e *Env) inPlaceOutput(in Input) string {
	return filepath.Join(in.Dir, strings.ToLower(in.Interfaces[0])+"_rpcgen.go")
}

func (e *Env) run(impl string, in Input, out string, args []string) (Measure, error) {
	cmd := exec.Command(e.bins[impl], args...)
	cmd.Dir = in.Dir
	cmd.Env = e.environ
	if impl == "rpcgen-base" {
		cmd.Env = append(e.environ, "RPCGEN_CACHE="+filepath.Join(e.Root, "rpcgen-base-cache"))
	}
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	start := time.Now()
	err := cmd.Run()
	m := Measure{Wall: time.Since(start)}
	if err != nil {
		return m, fmt.Errorf("%s on %s: %v\n%s", impl, in.Name, err, stderr.Bytes())
	}
	ps := cmd.ProcessState
	m.CPU = ps.UserTime() + ps.SystemTime()
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		m.MaxRSS = ru.Maxrss * 1024
	}
	got, err := os.ReadFile(out)
	if err != nil {
		return m, fmt.Errorf("%s on %s: %v", impl, in.Name, err)
	}
	last := in.Interfaces[len(in.Interfaces)-1]
	if len(got) == 0 || !bytes.Contains(got, []byte(last)) {
		return m, fmt.Errorf("%s on %s: output %s is empty or does not mention %s", impl, in.Name, out, last)
	}
	return m, nil
}

// toolArgs are the command-line arguments of impl writing to out.
func toolArgs(impl string, in Input, out string) []string {
	switch impl {
	case "rpcgen", "rpcgen-base":
		return append([]string{"--out", out}, in.Interfaces...)
	case "rpcgen-nocache":
		return append([]string{"--no-cache", "--out", out}, in.Interfaces...)
	case "packagesload":
		return []string{"-out", out}
	case "moq":
		return append([]string{"-out", out, "-pkg", "mocks", "."}, in.Interfaces...)
	case "mockgen":
		// Package mode: mockgen loads the package (and, from source, all
		// its dependencies) with go/packages.
		return []string{"-destination", out, "-package", "mocks", in.ImportPath, strings.Join(in.Interfaces, ",")}
	}
	panic("unknown impl " + impl)
}

// Edit changes the content of in's EditFile in a harmless way (a new
// unexported function, different every time, even from the edits of an
// earlier process), so that neither the build cache nor go/packages has seen
// the package before.
func (e *Env) Edit(in Input) error {
	e.edits++
	src := fmt.Appendf(bytes.Clone(e.original[in.EditFile]), "\nfunc benchEdit%d_%d() {}\n", e.epoch, e.edits)
	return os.WriteFile(in.EditFile, src, 0o644)
}

// EditAPI changes the doc comment of the first method of in's first
// interface, differently every time, so that every generator's output
// changes too (the method's description is in it): unlike Edit, no cache of
// a generator's own can answer the run.
func (e *Env) EditAPI(in Input) error {
	e.edits++
	decl := fmt.Sprintf("type %s interface {\n", in.Interfaces[0])
	orig := e.original[in.EditFile]
	if !bytes.Contains(orig, []byte(decl)) {
		return fmt.Errorf("%s does not declare %q", in.EditFile, decl)
	}
	src := bytes.Replace(orig, []byte(decl), fmt.Appendf(nil, "%s\t// Edit %d_%d.\n\t//\n", decl, e.epoch, e.edits), 1)
	return os.WriteFile(in.EditFile, src, 0o644)
}

// Restore puts back in's EditFile as written.
func (e *Env) Restore(in Input) error {
	return os.WriteFile(in.EditFile, e.original[in.EditFile], 0o644)
}

// goCommand runs the go command in dir and returns its standard output.
func goCommand(dir string, env []string, args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go %s in %s: %v\n%s", strings.Join(args, " "), dir, err, stderr.Bytes())
	}
	return string(out), nil
}
