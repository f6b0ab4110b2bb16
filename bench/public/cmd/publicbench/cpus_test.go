package main

import (
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestParseCPUs(t *testing.T) {
	for in, want := range map[string]cpuList{"0": {0}, "1-3": {1, 2, 3}, "0,2": {0, 2}, "3,1-2,2": {3, 1, 2}} {
		got, err := parseCPUs(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("parseCPUs(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "a", "2-1", "-1", "1,"} {
		if got, err := parseCPUs(in); err == nil {
			t.Errorf("parseCPUs(%q) = %v, want an error", in, got)
		}
	}
	if _, _, err := cpuSplit("0", "0"); err == nil || !strings.Contains(err.Error(), "CPU 0 is both") {
		t.Errorf("cpuSplit(0, 0): %v", err)
	}
}

// TestPin: every thread of a running process ends up on the CPU it was
// pinned to, as the kernel reports it.
func TestPin(t *testing.T) {
	self, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	allowed := field(string(self), "Cpus_allowed_list")
	mine, err := parseCPUs(allowed)
	if err != nil {
		t.Fatalf("this process's CPUs %q: %v", allowed, err)
	}
	target := cpuList{mine[len(mine)-1]}
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	if err := pin(cmd.Process.Pid, target); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	if got := field(string(b), "Cpus_allowed_list"); got != target.String() {
		t.Errorf("pinned to %s, the kernel says %s", target, got)
	}
	if err := pin(cmd.Process.Pid, cpuList{4095}); err == nil {
		t.Error("pinning to CPU 4095 (none) succeeded")
	}
}

func field(status, name string) string {
	for line := range strings.SplitSeq(status, "\n") {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
