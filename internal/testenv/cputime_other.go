//go:build !unix

package testenv

import "time"

// CPUTime is unavailable here (no getrusage): ok is false.
func CPUTime() (d time.Duration, ok bool) { return 0, false }
