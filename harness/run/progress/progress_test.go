package progress

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/run/unit"
)

// clock is a fake clock that moves only when told.
type clock struct{ t time.Time }

func newClock() *clock               { return &clock{time.Date(2026, 7, 4, 10, 0, 0, 0, time.UTC)} }
func (c *clock) now() time.Time      { return c.t }
func (c *clock) add(d time.Duration) { c.t = c.t.Add(d) }
func units(k *Task, n int) {
	for range n {
		k.Unit(unit.Unit{})
	}
}
func noEnv(string) string              { return "" }
func env(v string) func(string) string { return func(string) string { return v } }

// On a terminal each running task has a line, redrawn in place on every
// tick; a finished task leaves its line in the scrollback and the others
// are drawn below it.
func TestTerminalRedrawsInPlace(t *testing.T) {
	var b strings.Builder
	c := newClock()
	tr := New(Output{W: &b, TTY: true, Width: 60, Now: c.now})
	c.add(2 * time.Second)
	fw := tr.Start("featherweight", "smoke", 120, 0)
	c.add(10 * time.Second)
	units(fw, 1)
	units(fw, 19) // a burst between two ticks: the tick shows its end
	tr.tick()
	fb := tr.Start("featherbench", "fable-5", 8, 2)
	c.add(20 * time.Second)
	units(fb, 1)
	tr.tick()
	c.add(30 * time.Second)
	tr.tick()
	fw.End()
	c.add(time.Second)
	fb.End()
	tr.Close()
	assert.Equal(t, "featherweight smoke  0/120"+
		"\r\033[Kfeatherweight smoke  20/120  2.0/s  ETA 50s"+
		"\r\033[Kfeatherweight smoke  20/120  2.0/s  ETA 50s\nfeatherbench fable-5  2/8"+
		"\r\033[K\033[A\033[Kfeatherweight smoke  20/120  40.0/min  ETA 2m30s\nfeatherbench fable-5  3/8  3.0/min  ETA 1m40s"+
		"\r\033[K\033[A\033[Kfeatherweight smoke  20/120  20.0/min  ETA 5m0s\nfeatherbench fable-5  3/8  1.2/min  ETA 4m10s"+
		"\r\033[K\033[A\033[Kfeatherweight smoke  20/120 units in 1m0s\nfeatherbench fable-5  3/8  1.2/min  ETA 4m10s"+
		"\r\033[Kfeatherbench fable-5  3/8 units in 51s\n"+
		"feather: finished in 1m3s\n", b.String())
}

// A line never wraps: it is cut one short of the terminal's width.
func TestTerminalCutsLongLines(t *testing.T) {
	var b strings.Builder
	tr := New(Output{W: &b, TTY: true, Width: 20, Now: newClock().now})
	tr.Start("featherbench", "a-rather-long-model-key", 3, 0)
	assert.Equal(t, "featherbench a-rath", b.String())
}

// In a log each running task gets a plain line every Interval, counted
// from its start; a finished task and the run get one line each.
func TestLogLinesEveryInterval(t *testing.T) {
	var b strings.Builder
	c := newClock()
	tr := New(Output{W: &b, Interval: 30 * time.Second, Now: c.now})
	mb := tr.Start("microbench", "smoke", 1060, 0)
	c.add(10 * time.Second)
	fb := tr.Start("featherbench", "smoke", 16, 4)
	tr.tick() // 10 s: nothing due
	c.add(20 * time.Second)
	units(fb, 3)
	tr.tick() // 30 s: microbench's line
	c.add(10 * time.Second)
	tr.tick() // 40 s: featherbench's line
	c.add(15 * time.Second)
	tr.tick() // 55 s: nothing due
	units(mb, 1060)
	mb.End()
	c.add(5 * time.Second)
	tr.tick() // 60 s: nothing due
	c.add(10 * time.Second)
	tr.tick() // 70 s: featherbench's line
	fb.End()
	tr.Close()
	assert.Equal(t, `microbench smoke  0/1060
featherbench smoke  7/16  6.0/min  ETA 1m30s
microbench smoke  1060/1060 units in 55s
featherbench smoke  7/16  3.0/min  ETA 3m0s
featherbench smoke  7/16 units in 1m0s
feather: finished in 1m10s
`, b.String())
}

// A suite whose units all finish together (μBench scores every item in
// one call) shows the scorer's progress until then, with its rate and
// ETA; a new kind of work restarts the rate; once units arrive they count.
func TestPartShowsWorkBeforeUnits(t *testing.T) {
	var b strings.Builder
	c := newClock()
	tr := New(Output{W: &b, Interval: 30 * time.Second, Now: c.now})
	mb := tr.Start("microbench", "smol", 1060, 0)
	mb.Part("requests", 0, 3866)
	c.add(30 * time.Second)
	mb.Part("requests", 1200, 3866)
	tr.tick() // 30 s: 40 requests a second, 2666 left
	c.add(30 * time.Second)
	mb.Part("requests", 3866, 3866)
	mb.Part("windows", 10, 50)
	c.add(5 * time.Second)
	mb.Part("windows", 20, 50)
	c.add(25 * time.Second)
	tr.tick() // 90 s: windows first reported at 10 at 60 s, 10 more in 30 s
	units(mb, 1060)
	mb.End()
	tr.Close()
	assert.Equal(t, `microbench smol  0/1060  scoring 1200/3866 requests  40.0/s  ETA 1m6s
microbench smol  0/1060  scoring 20/50 windows  20.0/min  ETA 1m30s
microbench smol  1060/1060 units in 1m30s
feather: finished in 1m30s
`, b.String())
}

// The default interval is 30 s.
func TestLogDefaultInterval(t *testing.T) {
	var b strings.Builder
	c := newClock()
	tr := New(Output{W: &b, Now: c.now})
	tr.Start("featherweight", "m", 2, 0)
	c.add(29 * time.Second)
	tr.tick()
	assert.Empty(t, b.String())
	c.add(time.Second)
	tr.tick()
	assert.Equal(t, "featherweight m  0/2\n", b.String())
}

// A run in which no suite ran a model prints nothing at all.
func TestNoTaskNoLines(t *testing.T) {
	for _, tty := range []bool{false, true} {
		var b strings.Builder
		tr := New(Output{W: &b, TTY: tty, Now: newClock().now})
		tr.tick()
		tr.Close()
		assert.Empty(t, b.String(), "tty %v", tty)
	}
}

// End is said once; units after it are not counted; Task finds only
// running tasks.
func TestEndOnceAndTaskLookup(t *testing.T) {
	var b strings.Builder
	tr := New(Output{W: &b, Now: newClock().now})
	k := tr.Start("featherbench", "a", 2, 0)
	assert.Same(t, k, tr.Task("featherbench", "a"))
	assert.Nil(t, tr.Task("featherbench", "b"))
	assert.Nil(t, tr.Task("featherweight", "a"))
	tr.Task("featherbench", "a").Unit(unit.Unit{})
	k.End()
	assert.Nil(t, tr.Task("featherbench", "a"))
	k.Unit(unit.Unit{})
	k.End()
	assert.Equal(t, "featherbench a  1/2 units in 0s\n", b.String())
}

// Progress off is a nil Tracker, and nil Trackers and Tasks do nothing.
func TestOff(t *testing.T) {
	for _, v := range []string{"0", "false"} {
		tr, err := Open(env(v))
		require.NoError(t, err, v)
		assert.Nil(t, tr, v)
	}
	var tr *Tracker
	k := tr.Start("featherweight", "m", 1, 0)
	assert.Nil(t, k)
	k.Unit(unit.Unit{})
	k.End()
	tr.Task("featherweight", "m").Unit(unit.Unit{})
	tr.Close()
}

func TestOn(t *testing.T) {
	for _, v := range []string{"", "1", "true"} {
		tr, err := Open(env(v))
		require.NoError(t, err, v)
		require.NotNil(t, tr, v)
		tr.Close()
	}
}

func TestBadValue(t *testing.T) {
	for _, v := range []string{"2", "yes", "off"} {
		tr, err := Open(env(v))
		assert.Nil(t, tr)
		assert.EqualError(t, err, fmt.Sprintf(`FEATHER_PROGRESS=%q: want 0 (no progress lines) or 1 (the default: live lines on the terminal, or every 30 s in a log)`, v))
	}
}

// Models run side by side: tasks start, count and end from many
// goroutines while the ticks redraw (run with -race).
func TestConcurrentTasks(t *testing.T) {
	for _, tty := range []bool{false, true} {
		var b strings.Builder
		tr := New(Output{W: &b, TTY: tty, Interval: time.Millisecond})
		tr.tickEvery(time.Millisecond)
		var wg sync.WaitGroup
		for m := range 8 {
			wg.Go(func() {
				model := fmt.Sprintf("m%d", m)
				k := tr.Start("featherbench", model, 500, 0)
				var pool sync.WaitGroup
				for range 4 {
					pool.Go(func() {
						for range 125 {
							tr.Task("featherbench", model).Unit(unit.Unit{})
						}
					})
				}
				pool.Wait()
				k.End()
			})
		}
		wg.Wait()
		tr.Close()
		out := b.String()
		for m := range 8 {
			assert.Contains(t, out, fmt.Sprintf("featherbench m%d  500/500 units in ", m), "tty %v", tty)
		}
		assert.True(t, strings.HasSuffix(out, "\nfeather: finished in 0s\n"), "tty %v: %q", tty, out[max(0, len(out)-80):])
	}
}

// A tick that would redraw the same lines writes nothing.
func TestTerminalSkipsUnchangedLines(t *testing.T) {
	var b strings.Builder
	c := newClock()
	tr := New(Output{W: &b, TTY: true, Now: c.now})
	tr.Start("microbench", "smoke", 1060, 0)
	c.add(time.Second)
	tr.tick()
	tr.tick()
	assert.Equal(t, "microbench smoke  0/1060", b.String())
}
