// Package progress shows a long run's progress while it runs: for each
// suite and model, the units done out of the planned total, the rate and
// the ETA. go test holds back a passing package's output until the
// package ends, so on a terminal the lines go to the controlling terminal
// (/dev/tty), redrawn in place; without one (CI) each running task gets a
// plain line on stderr every 30 s. A finished task gets one line, and the
// process one more with the whole run's time. FEATHER_PROGRESS=0 turns it
// all off.
package progress

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/feather-eval/feather/harness/run/unit"
	"github.com/feather-eval/feather/internal/meter"
)

// Variable turns progress off (0) or on (1, the default).
const Variable = "FEATHER_PROGRESS"

// logTicks is how often a log's lines are checked for being due. A
// terminal is redrawn every meter.Refresh: units often come in bursts (a
// batch coming back), and a tick shows the burst's end, not its start.
const logTicks = time.Second

// Output says where and how a Tracker writes.
type Output struct {
	W io.Writer
	// TTY redraws the running tasks' lines in place, one line each;
	// otherwise each running task gets a plain line every Interval.
	TTY bool
	// Interval between a task's plain lines; 0 means meter.Interval (30 s).
	Interval time.Duration
	// Width of the terminal; 0 means meter.Width. Longer lines are cut so
	// that none wraps, which would break the redraw.
	Width int
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Tracker is one process's progress display. Its methods are safe for
// concurrent use, and a nil Tracker (progress off) shows nothing.
type Tracker struct {
	o      Output
	closer io.Closer // the terminal Open opened, if any
	stop   chan struct{}
	ticks  sync.WaitGroup

	mu      sync.Mutex
	started time.Time
	running []*Task // in start order
	any     bool    // a task has started: the run's time is worth a line
	drawn   int     // terminal lines now drawn
	shown   string  // and what they say
}

// Task is one suite's run of one model. A nil Task counts nothing.
type Task struct {
	t            *Tracker
	suite, model string
	total        int
	done, before int // units done, those among them done before this run
	started      time.Time
	lastLine     time.Time // when a plain line last showed the task
	ended        bool

	// part is work inside the task that ends before any unit does (μBench
	// scores every item in one call): what it counts, how far it is, and
	// since when, for the rate and ETA while no unit is done.
	part                string
	partDone, partTotal int
	// partBefore is what the kind had done when first reported: the
	// rate counts only the work after it, as units count after before.
	partBefore  int
	partStarted time.Time
}

// New is a tracker writing as o says; the run's time starts now. It
// writes only as tasks start and end; Open's tracker also ticks, to show
// the units counted in between.
func New(o Output) *Tracker {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Width <= 0 {
		o.Width = meter.Width
	}
	return &Tracker{o: o, started: o.Now()}
}

// Open is the process's tracker as FEATHER_PROGRESS says (read with
// getenv): nil when it is 0; else one on the controlling terminal when
// there is one, or plain lines on stderr. A value that is not a boolean
// is an error naming the variable.
func Open(getenv func(string) string) (*Tracker, error) {
	on, err := enabled(getenv(Variable))
	if err != nil || !on {
		return nil, err
	}
	if t := onTerminal(); t != nil {
		t.tickEvery(meter.Refresh)
		return t, nil
	}
	t := New(Output{W: os.Stderr})
	t.tickEvery(logTicks)
	return t, nil
}

func enabled(v string) (bool, error) {
	if v == "" {
		return true, nil
	}
	on, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("%s=%q: want 0 (no progress lines) or 1 (the default: live lines on the terminal, or every 30 s in a log)", Variable, v)
	}
	return on, nil
}

// onTerminal is a tracker on the controlling terminal, or nil without one
// (CI, cron, a detached process).
func onTerminal() *Tracker {
	f, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0)
	if err != nil {
		return nil
	}
	width, ok := meter.Terminal(f)
	if !ok {
		f.Close()
		return nil
	}
	t := New(Output{W: f, TTY: true, Width: width})
	t.closer = f
	return t
}

// tickEvery refreshes the display every d until Close.
func (t *Tracker) tickEvery(d time.Duration) {
	t.stop = make(chan struct{})
	t.ticks.Go(func() {
		tk := time.NewTicker(d)
		defer tk.Stop()
		for {
			select {
			case <-tk.C:
				t.tick()
			case <-t.stop:
				return
			}
		}
	})
}

// Start starts the suite's task for model: total units planned, done of
// them finished before (a resumed run's records).
func (t *Tracker) Start(suite, model string, total, done int) *Task {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.o.Now()
	k := &Task{t: t, suite: suite, model: model, total: total, done: done, before: done, started: now, lastLine: now}
	t.running = append(t.running, k)
	t.any = true
	if t.o.TTY {
		t.draw(now)
	}
	return k
}

// Task is the suite's running task for model, or nil: for runs whose
// units arrive from a pool shared by models, each unit with its model.
func (t *Tracker) Task(suite, model string) *Task {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, k := range t.running {
		if k.suite == suite && k.model == model {
			return k
		}
	}
	return nil
}

// Unit counts one finished unit; it fits the suites' OnUnit. The next
// tick shows it.
func (k *Task) Unit(unit.Unit) {
	if k == nil {
		return
	}
	k.t.mu.Lock()
	defer k.t.mu.Unlock()
	if !k.ended {
		k.done++
	}
}

// Part shows work inside the task, done of total things of a kind
// ("requests"), while no unit has finished: a suite whose units all
// finish together (μBench) then still shows its pace and an ETA. A new
// kind restarts the rate, from the count it first reports: work done
// before that took time the clock did not see.
func (k *Task) Part(kind string, done, total int) {
	if k == nil {
		return
	}
	k.t.mu.Lock()
	defer k.t.mu.Unlock()
	if kind != k.part {
		k.part, k.partStarted, k.partBefore = kind, k.t.o.Now(), done
	}
	k.partDone, k.partTotal = done, total
}

// End ends the task with a line of the units done and the time taken.
// Later calls do nothing.
func (k *Task) End() {
	if k == nil {
		return
	}
	t := k.t
	t.mu.Lock()
	defer t.mu.Unlock()
	if k.ended {
		return
	}
	k.ended = true
	t.remove(k)
	now := t.o.Now()
	t.erase()
	fmt.Fprintf(t.o.W, "%s %s  %d/%d units in %s\n", k.suite, k.model, k.done, k.total, now.Sub(k.started).Round(time.Second))
	if t.o.TTY {
		t.draw(now)
	}
}

// Close stops the ticks and, when any task ran, ends with the whole run's
// time. Call it once, after the tasks have ended.
func (t *Tracker) Close() {
	if t == nil {
		return
	}
	if t.stop != nil {
		close(t.stop)
		t.ticks.Wait()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.erase()
	if t.any {
		fmt.Fprintf(t.o.W, "feather: finished in %s\n", t.o.Now().Sub(t.started).Round(time.Second))
	}
	if t.closer != nil {
		t.closer.Close()
	}
}

// tick redraws the terminal's lines, or writes the plain lines due.
func (t *Tracker) tick() {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.o.Now()
	if t.o.TTY {
		t.draw(now)
		return
	}
	for _, k := range t.running {
		if meter.Due(k.lastLine, now, false, t.o.Interval) {
			fmt.Fprintln(t.o.W, k.status(now))
			k.lastLine = now
		}
	}
}

func (t *Tracker) remove(k *Task) {
	for i, r := range t.running {
		if r == k {
			t.running = append(t.running[:i], t.running[i+1:]...)
			return
		}
	}
}

// draw replaces the terminal's lines with one per running task, unless
// they would say the same. The cursor stays at the end of the last one,
// as hub.Meter's bar does.
func (t *Tracker) draw(now time.Time) {
	lines := make([]string, len(t.running))
	for i, k := range t.running {
		lines[i] = cut(k.status(now), t.o.Width-1)
	}
	text := strings.Join(lines, "\n")
	if t.drawn > 0 && text == t.shown {
		return
	}
	t.erase()
	if len(lines) == 0 {
		return
	}
	fmt.Fprint(t.o.W, text)
	t.drawn, t.shown = len(lines), text
}

// erase clears the lines draw drew, leaving the cursor where the first
// one began.
func (t *Tracker) erase() {
	if t.drawn == 0 {
		return
	}
	fmt.Fprint(t.o.W, meter.Clear+strings.Repeat(meter.Up, t.drawn-1))
	t.drawn = 0
}

// status is "featherbench smoke  37/120  2.1/s  ETA 40s"; the rate counts
// only this run's units, so it and the ETA wait for the first one. Before
// the first, a part's count takes their place:
// "microbench m  0/1060  scoring 1200/3866 requests  35.0/s  ETA 1m15s".
func (k *Task) status(now time.Time) string {
	s := fmt.Sprintf("%s %s  %d/%d", k.suite, k.model, k.done, k.total)
	if k.part != "" && k.done == k.before {
		s += fmt.Sprintf("  scoring %d/%d %s", k.partDone, k.partTotal, k.part)
		return s + pace(k.partDone-k.partBefore, k.partTotal-k.partBefore, now.Sub(k.partStarted))
	}
	return s + pace(k.done-k.before, k.total-k.before, now.Sub(k.started))
}

// pace is "  2.1/s  ETA 40s" for done of total in elapsed: empty before
// the first, no ETA once all are done.
func pace(done, total int, elapsed time.Duration) string {
	r := meter.Rate(float64(done), elapsed)
	if r <= 0 {
		return ""
	}
	s := "  " + rate(r)
	if left := total - done; left > 0 {
		s += "  ETA " + meter.ETA(float64(left), r).String()
	}
	return s
}

// rate is units per second, or per minute below one a second (an API
// model's trials): "2.1/s", "3.0/min".
func rate(perSecond float64) string {
	if perSecond >= 1 {
		return fmt.Sprintf("%.1f/s", perSecond)
	}
	return fmt.Sprintf("%.1f/min", perSecond*60)
}

// cut shortens s to at most n runes.
func cut(s string, n int) string {
	r := []rune(s)
	if n < 0 || len(r) <= n {
		return s
	}
	return string(r[:n])
}
