package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCPULimitFiles: on a cgroup v1 layout the limit is cpu.cfs_quota_us
// over a 100 ms period, on v2 cpu.max; the server's pid goes to
// cgroup.procs; the cgroup is removed after. The layouts are fakes in a
// temporary directory: what is checked is what the kernel would be told.
func TestCPULimitFiles(t *testing.T) {
	for _, c := range []struct {
		layout, marker, file, want string
	}{
		{"v1", "cpu.cfs_quota_us", "cpu.cfs_quota_us", "40000"},
		{"v2", "cgroup.controllers", "cpu.max", "40000 100000"},
	} {
		root := t.TempDir()
		content := "-1"
		if c.marker == "cgroup.controllers" {
			content = "cpuset cpu io memory"
		}
		if err := os.WriteFile(filepath.Join(root, c.marker), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		cgroupRoots = []string{filepath.Join(root, "missing"), root}
		l, err := newCPULimit(0.4)
		if err != nil {
			t.Fatalf("%s: %v", c.layout, err)
		}
		if got, _ := os.ReadFile(filepath.Join(l.dir, c.file)); string(got) != c.want {
			t.Errorf("%s: %s = %q, want %q", c.layout, c.file, got, c.want)
		}
		if err := l.add(1234); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(filepath.Join(l.dir, "cgroup.procs")); string(got) != "1234" {
			t.Errorf("%s: cgroup.procs = %q", c.layout, got)
		}
		if err := os.WriteFile(filepath.Join(l.dir, "cpu.stat"), []byte("nr_periods 10\nthrottled_usec 2500\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := l.throttled(); got != 2500 {
			t.Errorf("%s: throttled %d µs, want 2500", c.layout, got)
		}
		// The fake's files are not the kernel's: take them away first.
		for _, f := range []string{c.file, "cgroup.procs", "cpu.stat", "cpu.cfs_period_us"} {
			_ = os.Remove(filepath.Join(l.dir, f))
		}
		if err := l.remove(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(l.dir); !os.IsNotExist(err) {
			t.Errorf("%s: %s left behind", c.layout, l.dir)
		}
	}
	cgroupRoots = []string{t.TempDir()}
	if _, err := newCPULimit(0.5); err == nil {
		t.Error("a directory with no cpu controller gave a limit")
	}
	if _, err := newCPULimit(0); err == nil {
		t.Error("a limit of 0 CPUs was accepted")
	}
}
