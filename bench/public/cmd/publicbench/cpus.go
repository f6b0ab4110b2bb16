package main

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// cpuList is a set of CPU numbers, written as taskset's -c takes them
// ("0", "1-3", "0,2").
type cpuList []int

func parseCPUs(s string) (cpuList, error) {
	var cpus cpuList
	seen := map[int]bool{}
	for part := range strings.SplitSeq(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err := strconv.Atoi(lo)
		b := a
		if err == nil && isRange {
			b, err = strconv.Atoi(hi)
		}
		if err != nil || a < 0 || b < a {
			return nil, fmt.Errorf("CPU list %q: %q is not a CPU number or range", s, part)
		}
		for c := a; c <= b; c++ {
			if !seen[c] {
				seen[c] = true
				cpus = append(cpus, c)
			}
		}
	}
	return cpus, nil
}

func (l cpuList) String() string {
	parts := make([]string, len(l))
	for i, c := range l {
		parts[i] = strconv.Itoa(c)
	}
	return strings.Join(parts, ",")
}

// defaultSplit gives the server under test the first half of this
// process's CPUs and everything else (load generator, Redis, API service)
// the rest: on 2 cores, CPU 0 and CPU 1. ok is false on one CPU.
func defaultSplit() (server, others cpuList, ok bool) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil, nil, false
	}
	var all cpuList
	for c := 0; len(all) < set.Count(); c++ {
		if set.IsSet(c) {
			all = append(all, c)
		}
	}
	if len(all) < 2 {
		return nil, nil, false
	}
	return all[:len(all)/2], all[len(all)/2:], true
}

// pin sets the CPU affinity of every thread of process pid to cpus. A
// thread started while it runs inherits the affinity of the thread that
// started it, which may not be pinned yet, so it lists the threads again
// until a pass finds none it has not pinned.
func pin(pid int, cpus cpuList) error {
	var set unix.CPUSet
	for _, c := range cpus {
		set.Set(c)
	}
	done := map[int]bool{}
	for pass := 0; ; pass++ {
		entries, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
		if err != nil {
			return err
		}
		fresh := 0
		for _, e := range entries {
			tid, err := strconv.Atoi(e.Name())
			if err != nil || done[tid] {
				continue
			}
			if err := unix.SchedSetaffinity(tid, &set); err != nil && err != unix.ESRCH {
				return fmt.Errorf("pinning thread %d of process %d to CPUs %s: %w", tid, pid, cpus, err)
			}
			done[tid] = true
			fresh++
		}
		if fresh == 0 {
			return nil
		}
		if pass > 100 {
			return fmt.Errorf("process %d keeps starting threads while being pinned", pid)
		}
		runtime.Gosched()
	}
}

// busyCount is the jiffies CPUs spent busy and in total, from /proc/stat.
type busyCount struct{ busy, total int64 }

// cpuBusy sums /proc/stat's counts of cpus (zero when it cannot be read).
func cpuBusy(cpus cpuList) busyCount {
	var c busyCount
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return c
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 || !strings.HasPrefix(f[0], "cpu") || f[0] == "cpu" {
			continue
		}
		n, err := strconv.Atoi(f[0][3:])
		if err != nil || !slices.Contains(cpus, n) {
			continue
		}
		for i, v := range f[1:] {
			j, _ := strconv.ParseInt(v, 10, 64)
			if i < 8 { // user nice system idle iowait irq softirq steal; guest is in user already
				c.total += j
				if i != 3 && i != 4 {
					c.busy += j
				}
			}
		}
	}
	return c
}
