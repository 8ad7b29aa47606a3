//go:build unix

package testenv

import (
	"syscall"
	"time"
)

// CPUTime is the CPU time the process has used, threads included, for
// benchmarks that report CPU beside wall time; ok is false where the
// system cannot say.
func CPUTime() (d time.Duration, ok bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
