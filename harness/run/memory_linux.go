package run

import (
	"bufio"
	"bytes"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
)

// memoryBudget returns how much memory the datasets of a run may take at
// once, and what bounds it: half of the least of the memory the system has
// available (MemAvailable in /proc/meminfo), what the process's cgroup
// allows it beyond its usage (memory.max less memory.current, cgroup v2),
// its address-space limit (RLIMIT_AS, ulimit -v) and GOMEMLIMIT. The other
// half is left for everything else. 0 when none is known.
func memoryBudget() (int64, string) {
	least, what := int64(math.MaxInt64), ""
	bound := func(n int64, name string) {
		if n > 0 && n < least {
			least, what = n, name
		}
	}
	if n, ok := meminfo("MemAvailable"); ok {
		bound(n, "the memory available (MemAvailable)")
	}
	if dir, ok := cgroupDir(); ok {
		limit, okL := readInt(filepath.Join(dir, "memory.max"))
		used, okU := readInt(filepath.Join(dir, "memory.current"))
		if okL && okU && limit > used {
			bound(limit-used, "the cgroup's memory.max less its usage")
		}
	}
	var rl syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_AS, &rl) == nil && rl.Cur < math.MaxInt64 {
		bound(int64(rl.Cur), "the address-space limit (ulimit -v)")
	}
	if l := debug.SetMemoryLimit(-1); l < math.MaxInt64 {
		bound(l, "GOMEMLIMIT")
	}
	if what == "" {
		return 0, ""
	}
	return least / 2, "half of " + what
}

// meminfo returns a /proc/meminfo field in bytes.
func meminfo(field string) (int64, bool) {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok || name != field {
			continue
		}
		f := strings.Fields(rest) // "12345 kB"
		if len(f) == 0 {
			return 0, false
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, false
		}
		if len(f) > 1 && f[1] == "kB" {
			n *= 1024
		}
		return n, true
	}
	return 0, false
}

// cgroupDir returns the process's cgroup v2 directory.
func cgroupDir() (string, bool) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			return filepath.Join("/sys/fs/cgroup", p), true
		}
	}
	return "", false
}

// readInt reads a file holding one integer ("max" is no number).
func readInt(path string) (int64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	return n, err == nil
}
