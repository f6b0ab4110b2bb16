package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// cpuLimit is a CPU bandwidth limit for the server under test: a cgroup of
// the cpu controller (v1's cpu.cfs_quota_us, or v2's cpu.max) that the
// server's process joins, as docker's --cpus does.
type cpuLimit struct {
	dir string
}

// cgroupRoots are where the cpu controller is looked for: cgroup v1's
// hierarchy, then v2's.
var cgroupRoots = []string{"/sys/fs/cgroup/cpu", "/sys/fs/cgroup"}

// newCPULimit makes a cgroup limited to cpus CPUs (0.5: half of one).
func newCPULimit(cpus float64) (*cpuLimit, error) {
	if cpus <= 0 {
		return nil, fmt.Errorf("CPU limit %v: must be positive", cpus)
	}
	const period = 100000 // µs, the kernel's default
	quota := int64(cpus * period)
	for _, root := range cgroupRoots {
		var file, value string
		if _, err := os.Stat(filepath.Join(root, "cpu.cfs_quota_us")); err == nil {
			file, value = "cpu.cfs_quota_us", strconv.FormatInt(quota, 10)
		} else if b, err := os.ReadFile(filepath.Join(root, "cgroup.controllers")); err == nil && strings.Contains(" "+string(b)+" ", " cpu ") {
			file, value = "cpu.max", fmt.Sprintf("%d %d", quota, period)
		} else {
			continue
		}
		dir := filepath.Join(root, fmt.Sprintf("publicbench-%d", os.Getpid()))
		if err := os.Mkdir(dir, 0o755); err != nil {
			return nil, fmt.Errorf("CPU limit: %w", err)
		}
		l := &cpuLimit{dir: dir}
		if file == "cpu.cfs_quota_us" {
			if err := os.WriteFile(filepath.Join(dir, "cpu.cfs_period_us"), []byte(strconv.Itoa(period)), 0o644); err != nil {
				return nil, errors.Join(fmt.Errorf("CPU limit: %w", err), l.remove())
			}
		}
		if err := os.WriteFile(filepath.Join(dir, file), []byte(value), 0o644); err != nil {
			return nil, errors.Join(fmt.Errorf("CPU limit: %w", err), l.remove())
		}
		return l, nil
	}
	return nil, errors.New("CPU limit: no cgroup cpu controller found (-cpu-limit needs cgroups)")
}

// add moves process pid (every thread) into the cgroup.
func (l *cpuLimit) add(pid int) error {
	if err := os.WriteFile(filepath.Join(l.dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0o644); err != nil {
		return fmt.Errorf("CPU limit: %w", err)
	}
	return nil
}

// throttled is how long the cgroup's processes waited for their quota so
// far (0 when the kernel does not say).
func (l *cpuLimit) throttled() (usec int64) {
	b, err := os.ReadFile(filepath.Join(l.dir, "cpu.stat"))
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		k, v, _ := strings.Cut(line, " ")
		n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		switch k {
		case "throttled_usec":
			return n
		case "throttled_time": // v1: ns
			return n / 1000
		}
	}
	return 0
}

// remove deletes the cgroup; its processes must have ended.
func (l *cpuLimit) remove() error {
	if err := os.Remove(l.dir); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("CPU limit: %w", err)
	}
	return nil
}
