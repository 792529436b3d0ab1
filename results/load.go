package results

import (
	"os"
	"strconv"
	"strings"
)

// LoadAverage returns the machine's 1-minute load average, and false
// where the system does not report one (it is read from /proc/loadavg,
// on Linux). A run's manifest records it at the run's start and end
// (Run.Load), beside the wall times of its trials.
func LoadAverage() (float64, bool) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, false
	}
	x, err := strconv.ParseFloat(f[0], 64)
	return x, err == nil && x >= 0
}
