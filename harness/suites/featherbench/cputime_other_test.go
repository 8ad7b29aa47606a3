//go:build !unix

package featherbench

import "time"

// processCPU is 0 where the platform's CPU time is not read.
func processCPU() time.Duration { return 0 }
