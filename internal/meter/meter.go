// Package meter holds what progress displays share: terminal detection,
// the redraw sequence, how often a line is due, and rate and ETA
// arithmetic. Downloads (hub.Meter) and suite runs (run/progress) both
// draw with it, so they look and pace alike.
package meter

import (
	"os"
	"time"

	"golang.org/x/term"
)

// Clear returns to the start of the terminal line and erases it.
const Clear = "\r\033[K"

// Up moves to the line above and erases it (after Clear, at its start).
const Up = "\033[A\033[K"

// Refresh is how often a terminal line may be redrawn: smooth without
// flooding the terminal.
const Refresh = 100 * time.Millisecond

// Interval is how often a log (CI) gets a plain line by default.
const Interval = 30 * time.Second

// Width is a terminal's width when it cannot be asked.
const Width = 80

// Due reports whether a line last written at last is due again at now:
// every Refresh on a terminal, else every interval (0: Interval).
func Due(last, now time.Time, tty bool, interval time.Duration) bool {
	every := interval
	if every <= 0 {
		every = Interval
	}
	if tty {
		every = Refresh
	}
	return now.Sub(last) >= every
}

// Rate is n per second over elapsed; 0 before any time has passed.
func Rate(n float64, elapsed time.Duration) float64 {
	s := elapsed.Seconds()
	if s <= 0 {
		return 0
	}
	return n / s
}

// ETA is how long remaining takes at rate per second, in whole seconds
// (rate must be positive).
func ETA(remaining, rate float64) time.Duration {
	return (time.Duration(remaining/rate) * time.Second).Round(time.Second)
}

// Terminal reports whether f is a terminal this process may draw on, in
// the foreground, and its width (Width when the terminal does not say).
func Terminal(f *os.File) (width int, ok bool) {
	if !term.IsTerminal(int(f.Fd())) || !foreground(f) {
		return 0, false
	}
	if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
		return w, true
	}
	return Width, true
}
