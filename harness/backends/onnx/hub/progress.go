package hub

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/feather-eval/feather/internal/meter"
	"github.com/feather-eval/feather/internal/plural"
)

// Progress hears about a pull's transfers. Calls come from one goroutine.
type Progress interface {
	// Start announces the files and bytes still to transfer.
	Start(files int, bytes int64)
	// File starts (or restarts) a file of size bytes, have of them
	// already on disk from an earlier, interrupted transfer.
	File(path string, size, have int64)
	// Add counts bytes received for the current file.
	Add(n int64)
	// Note is a line worth showing: waiting for a lock, a retry.
	Note(msg string)
	// Done ends the pull's transfers.
	Done()
}

// Meter is a Progress for people: on a terminal a bar redrawn in place
// with bytes, rate and ETA; elsewhere (CI logs) a plain line per file
// and one every Interval while a file downloads.
type Meter struct {
	W   io.Writer
	TTY bool
	// Interval between plain lines; 0 means 30 s.
	Interval time.Duration
	// Width of a terminal line; 0 means meter.Width.
	Width int
	// Now is the clock; nil means time.Now.
	Now func() time.Time

	mu                 sync.Mutex
	files, fileN       int
	total, doneBefore  int64 // bytes of the pull; bytes of finished files
	path               string
	size, have, gained int64 // current file; gained counts this run's bytes
	started, last      time.Time
	drawn              bool
}

var _ Progress = (*Meter)(nil)

func (m *Meter) now() time.Time {
	if m.Now != nil {
		return m.Now()
	}
	return time.Now()
}

// Start implements Progress.
func (m *Meter) Start(files int, bytes int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.files, m.total = files, bytes
	// A pull may have a second round (external data only the downloaded
	// ONNX file named); each counts from zero.
	m.fileN, m.doneBefore, m.gained, m.path = 0, 0, 0, ""
	m.started = m.now()
	m.last = m.started
	fmt.Fprintf(m.W, "downloading %s, %s\n", plural.Of(files, "file"), FormatBytes(bytes))
}

// File implements Progress.
func (m *Meter) File(path string, size, have int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if path != m.path {
		m.finishFile()
		m.fileN++
		m.path = path
	}
	m.size, m.have = size, have
	if m.TTY {
		m.draw(m.now())
		return
	}
	resumed := ""
	if have > 0 {
		resumed = fmt.Sprintf(", resuming at %s", FormatBytes(have))
	}
	fmt.Fprintf(m.W, "[%d/%d] %s (%s%s)\n", m.fileN, m.files, path, FormatBytes(size), resumed)
}

// finishFile moves the current file's bytes into the finished total.
func (m *Meter) finishFile() {
	if m.path != "" {
		m.doneBefore += m.size
	}
	m.path, m.size, m.have = "", 0, 0
}

// Add implements Progress.
func (m *Meter) Add(n int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.have += n
	m.gained += n
	now := m.now()
	if !meter.Due(m.last, now, m.TTY, m.Interval) {
		return
	}
	m.last = now
	if m.TTY {
		m.draw(now)
		return
	}
	fmt.Fprintf(m.W, "%s: %s\n", m.path, m.status(now))
}

// Note implements Progress.
func (m *Meter) Note(msg string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.TTY && m.drawn {
		fmt.Fprint(m.W, meter.Clear)
		m.drawn = false
	}
	fmt.Fprintln(m.W, msg)
}

// Done implements Progress.
func (m *Meter) Done() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.finishFile()
	now := m.now()
	if m.TTY && m.drawn {
		fmt.Fprint(m.W, meter.Clear)
	}
	fmt.Fprintf(m.W, "downloaded %s in %s (%s/s)\n", FormatBytes(m.gained), now.Sub(m.started).Round(time.Second), FormatBytes(m.rate(now)))
}

// rate is this run's average speed in bytes per second (resumed bytes
// were not transferred now, so they do not count).
func (m *Meter) rate(now time.Time) int64 {
	return int64(meter.Rate(float64(m.gained), now.Sub(m.started)))
}

// status is "45.0 MiB / 120.0 MiB (37%), 1.5 MiB/s, ETA 50s" for the whole pull.
func (m *Meter) status(now time.Time) string {
	done := m.doneBefore + m.have
	pct := 100
	if m.total > 0 {
		pct = int(done * 100 / m.total)
	}
	s := fmt.Sprintf("%s / %s (%d%%)", FormatBytes(done), FormatBytes(m.total), pct)
	if r := m.rate(now); r > 0 {
		s += fmt.Sprintf(", %s/s, ETA %s", FormatBytes(r), meter.ETA(float64(m.total-done), float64(r)))
	}
	return s
}

// barWidth is the bar's width in cells; a fixed width keeps it still
// while the status beside it changes length.
const barWidth = 20

// draw redraws the terminal line: the file, a bar, then the status; the
// file name gives way when the line would not fit.
func (m *Meter) draw(now time.Time) {
	width := m.Width
	if width <= 0 {
		width = meter.Width
	}
	filled := barWidth
	if m.total > 0 {
		filled = int(float64(barWidth) * float64(m.doneBefore+m.have) / float64(m.total))
	}
	filled = min(max(filled, 0), barWidth)
	rest := "[" + strings.Repeat("=", filled) + strings.Repeat(" ", barWidth-filled) + "] " + m.status(now)
	name := fmt.Sprintf("[%d/%d] %s ", m.fileN, m.files, m.path)
	if room := width - len(rest); len(name) > room {
		name = ""
		if room > 1 {
			name = fmt.Sprintf("[%d/%d] %s", m.fileN, m.files, m.path)[:room-1] + " "
		}
	}
	fmt.Fprint(m.W, meter.Clear+name+rest)
	m.drawn = true
}

// FormatBytes writes n in binary units: 512 B, 1.5 KiB, 120.0 MiB.
func FormatBytes(n int64) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	f := float64(n)
	for _, u := range []string{"KiB", "MiB", "GiB", "TiB"} {
		f /= 1024
		if f < 1024 || u == "TiB" {
			return fmt.Sprintf("%.1f %s", f, u)
		}
	}
	return ""
}
