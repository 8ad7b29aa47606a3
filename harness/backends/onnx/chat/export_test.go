package chat

import "time"

// SetClock replaces strftime_now's clock until restore is called.
func SetClock(f func() time.Time) (restore func()) {
	old := now
	now = f
	return func() { now = old }
}
