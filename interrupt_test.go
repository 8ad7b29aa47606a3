package feather_test

import (
	"context"
	"io"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/lm/fake"
	"github.com/feather-eval/feather/harness/run/interrupt"
	"github.com/feather-eval/feather/harness/suites/featherweight"
)

// withInterrupts runs f with a fresh interrupt watcher in place of this
// process's, and restores it after.
func withInterrupts(f func(w *interrupt.Watcher)) {
	saved := interrupts
	defer func() { interrupts = saved }()
	interrupts = interrupt.New()
	f(interrupts)
}

// TestInterruptStartsNoNewWork: after Ctrl-C a suite sends nothing more to
// a model, and produces no units.
func TestInterruptStartsNoNewWork(t *testing.T) {
	ds, err := featherweight.Load("testdata/featherweight/featherweight.jsonl")
	require.NoError(t, err)
	withInterrupts(func(w *interrupt.Watcher) {
		w.Interrupt(os.Interrupt, time.Hour, io.Discard)
		m := &fake.Model{ModelInfo: lm.Info{Key: "m"}, Reply: fake.Text("A")}
		res := fwRun(t, featherweight.Styles, ds.Items, nil).Model(workContext(t), m.Info(), m)
		assert.Empty(t, res.Records)
		assert.Empty(t, res.Units, "no style ran")
		assert.Zero(t, m.Calls().Batches, "no prompt was sent")
	})
}

// TestInterruptGraceEndsWork: work in flight runs on after the first
// Ctrl-C and is cancelled at the second.
func TestInterruptGraceEndsWork(t *testing.T) {
	withInterrupts(func(w *interrupt.Watcher) {
		ctx := workContext(t)
		w.Interrupt(os.Interrupt, time.Hour, io.Discard)
		assert.NoError(t, ctx.Err(), "the first Ctrl-C lets calls in flight finish")
		w.Interrupt(os.Interrupt, time.Hour, io.Discard)
		<-ctx.Done()
		assert.ErrorIs(t, context.Cause(ctx), interrupt.ErrInterrupted)
	})
}
