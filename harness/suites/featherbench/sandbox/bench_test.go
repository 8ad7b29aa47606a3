//go:build linux

package sandbox

import (
	"context"
	"testing"
	"time"
)

// BenchmarkRun is the overhead of one run of `true` in each mode: the run
// directory, the limits (prlimit), and the mode's namespaces and mounts.
func BenchmarkRun(b *testing.B) {
	AllowUnisolated(true)
	defer AllowUnisolated(false)
	for _, m := range []Mode{Bwrap, Netns, None} {
		b.Run(string(m), func(b *testing.B) {
			if err := Available(m); err != nil {
				b.Skip(err)
			}
			for b.Loop() {
				res, err := runMode(context.Background(), m, "", Files{"solution.py": "pass\n"}, 10*time.Second, Limits{}, "true", nil)
				if err != nil || res.ExitCode != 0 {
					b.Fatal(err, res.Output)
				}
			}
		})
	}
}
