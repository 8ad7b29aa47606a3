package parallel_test

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/feather-eval/feather/internal/parallel"
)

func TestFor(t *testing.T) {
	for _, tc := range []struct {
		name     string
		n, limit int
		wantPeak int
	}{
		{"none", 0, 4, 0},
		{"one at a time", 5, 1, 1},
		{"limit below one is one", 5, 0, 1},
		{"negative limit is one", 3, -2, 1},
		{"bounded", 12, 3, 3},
		{"limit above n", 2, 8, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var inFlight, peak int
			var calls atomic.Int32
			done := make([]bool, tc.n)
			parallel.For(tc.n, tc.limit, func(i int) {
				mu.Lock()
				inFlight++
				peak = max(peak, inFlight)
				mu.Unlock()
				time.Sleep(2 * time.Millisecond) // let the others pile up
				mu.Lock()
				inFlight--
				done[i] = true
				mu.Unlock()
				calls.Add(1)
			})
			assert.Equal(t, int32(tc.n), calls.Load(), "every index runs once")
			for i, d := range done {
				assert.True(t, d, "index %d", i)
			}
			assert.LessOrEqual(t, peak, tc.wantPeak, "never more than the limit in flight")
			if tc.wantPeak > 0 {
				assert.GreaterOrEqual(t, peak, 1)
			}
		})
	}
}

// TestForRunsOneAtATimeOnTheCaller: a batch of one, or a limit of one,
// runs on the caller's goroutine, so the caller's recover sees a panic.
func TestForRunsOneAtATimeOnTheCaller(t *testing.T) {
	for _, tc := range []struct{ n, limit int }{{1, 4}, {3, 1}} {
		var got any
		func() {
			defer func() { got = recover() }()
			parallel.For(tc.n, tc.limit, func(i int) {
				if i == tc.n-1 {
					panic("boom")
				}
			})
		}()
		assert.Equal(t, "boom", got, "n %d, limit %d", tc.n, tc.limit)
	}
}
