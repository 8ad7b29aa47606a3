package tasks_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/suites/featherbench/checkers/samples"
)

// The blind set (blind/<id>.txtar) is written from the prompt alone, by
// writers who never saw the checker or the rubric, so it measures how the
// checks generalise rather than how well they fit their own samples. Each
// task has at least this many answers of each kind.
const (
	minBlindGood = 3
	minBlindBad  = 3
)

// The bar the checks are held to on the blind set: at most this share of
// good answers may fail, and of bad answers pass; and every bad answer that
// passes names the rubric criterion that catches it ("[rubric criterion N]"
// on its comment line).
const (
	maxBlindFalseFails  = 0.02
	maxBlindFalsePasses = 0.05
)

func TestBlindCounts(t *testing.T) {
	for _, task := range loadLibrary(t) {
		t.Run(task.ID, func(t *testing.T) {
			set := readSet(t, samples.Sets[1], task)
			assert.GreaterOrEqual(t, len(set.good), minBlindGood, "good answers")
			assert.GreaterOrEqual(t, len(set.bad)+len(set.rubricGaps), minBlindBad, "bad answers")
		})
	}
}

// TestBlindAgainstCheckers measures every checker on both answer sets and
// logs the figures per task and per category (go test -v shows them). On
// the blind set it holds the library to the bar above, names every
// disagreement with its detail, and checks that each "[rubric criterion N]"
// marks a gap the checker really has.
func TestBlindAgainstCheckers(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	results, err := samples.MeasureLibrary(ctx, ".", loadLibrary(t))
	require.NoError(t, err)

	var b strings.Builder
	require.NoError(t, samples.WriteTable(&b, "task", samples.ByTask(results)))
	b.WriteString("\n")
	groups := samples.ByCategory(results)
	for _, g := range groups {
		for _, set := range samples.Sets {
			b.WriteString(g.Name + " " + set.Name + ": " + g.Sets[set.Name].String() + "\n")
		}
	}
	t.Log("\n" + b.String())

	blind := samples.Sets[1].Name
	for _, r := range results {
		for _, v := range r.Sets[blind] {
			switch {
			case v.Good && !v.Passed:
				t.Logf("false fail: %s %s (%s): %s", r.Task.ID, v.Name, v.Reason, v.Detail)
			case !v.Good && v.Passed && !v.Gap():
				t.Errorf("false pass that names no rubric criterion: %s %s (%s): %s", r.Task.ID, v.Name, v.Reason, v.Detail)
			case v.Gap() && !v.Passed:
				t.Errorf("%s %s names rubric criterion %d as the catch for a gap, but the checker already fails it; drop the marker: %s", r.Task.ID, v.Name, v.Criterion, v.Detail)
			}
		}
	}
	all := groups[len(groups)-1].Sets[blind]
	require.NotZero(t, all.Good)
	require.NotZero(t, all.Bad)
	assert.LessOrEqual(t, float64(all.FalseFails)/float64(all.Good), maxBlindFalseFails,
		"blind set: %d of %d good answers fail", all.FalseFails, all.Good)
	assert.LessOrEqual(t, float64(all.FalsePasses)/float64(all.Bad), maxBlindFalsePasses,
		"blind set: %d of %d bad answers pass", all.FalsePasses, all.Bad)
}

// The holdout set (holdout/<id>.txtar) was written the same way as the
// blind set, by other writers, after the checks had been tuned on the
// blind set, and it is never tuned against: it shows how far the checks
// generalise beyond every answer they were fitted to. These are its
// figures when it was written; a change to the checks may lower them and
// must not raise them. Lower them only with checks that are right on
// their own terms (a capability, a task's own wording), never by fitting
// a check to a holdout answer.
const (
	maxHoldoutFalseFails  = 14
	maxHoldoutFalsePasses = 17
)

// TestHoldoutAgainstCheckers logs every disagreement on the holdout set
// and holds its counts to the figures above.
func TestHoldoutAgainstCheckers(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	results, err := samples.MeasureLibrary(ctx, ".", loadLibrary(t))
	require.NoError(t, err)
	holdout := samples.Sets[2].Name
	for _, r := range results {
		for _, v := range r.Sets[holdout] {
			if v.Wrong() {
				t.Logf("%s %s (%s): %s", r.Task.ID, v.Name, v.Reason, v.Detail)
			}
		}
	}
	groups := samples.ByCategory(results)
	all := groups[len(groups)-1].Sets[holdout]
	require.NotZero(t, all.Good)
	t.Logf("holdout: %s", all)
	assert.LessOrEqual(t, all.FalseFails, maxHoldoutFalseFails, "holdout set: good answers that fail")
	assert.LessOrEqual(t, all.FalsePasses, maxHoldoutFalsePasses, "holdout set: bad answers that pass")
}
