//go:build !unix

package e2e_test

import (
	"testing"
	"time"
)

// cpuTime is unavailable here: the comparisons skip.
func cpuTime(tb testing.TB) time.Duration {
	tb.Skip("CPU time is read with getrusage, which this system lacks")
	return 0
}
