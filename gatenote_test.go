package feather_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/run/gate"
	"github.com/feather-eval/feather/harness/run/runfilter"
	"github.com/feather-eval/feather/harness/run/shard"
)

// repoTasksDir is -fb.tasks-dir's default: the repository's tasks, the
// ones testdata/baselines/featherbench records.
const repoTasksDir = "tasks"

// runNarrowing is what narrows the suite's units of model in this run,
// for the regression gate's note on baseline items that did not run.
func runNarrowing(suite, model string) []gate.Narrowing {
	test := "Test" + strings.ToUpper(suite[:1]) + suite[1:] // featherbench: TestFeatherbench
	return selectionNarrowing(runfilter.FromFlags(), runShard, test, model)
}

// selectionNarrowing names -run and -skip when they may leave out some of
// the tests below prefix (a model's subtest), and -shard when the run is
// one of several parts.
func selectionNarrowing(f *runfilter.Filter, s shard.Shard, prefix ...string) []gate.Narrowing {
	var out []gate.Narrowing
	run, skip := f.Narrows(prefix...)
	if run {
		out = append(out, gate.Narrowing{Option: "-run", Effect: "selects fewer"})
	}
	if skip {
		out = append(out, gate.Narrowing{Option: "-skip", Effect: "leaves some out"})
	}
	if s.Count > 1 {
		out = append(out, gate.Narrowing{Option: "-shard", Effect: fmt.Sprintf("runs one of %d parts", s.Count)})
	}
	return out
}

// fbNarrowing names Featherbench's own options that narrow its tasks:
// -fb.tasks and -fb.categories select fewer, and a tasks folder other
// than the repository's names other tasks than the baselines hold.
func fbNarrowing(tasksDir string, ids, categories []string) []gate.Narrowing {
	var out []gate.Narrowing
	if filepath.Clean(tasksDir) != repoTasksDir {
		out = append(out, gate.Narrowing{Option: "-fb.tasks-dir", Effect: "names other tasks"})
	}
	if len(ids) > 0 {
		out = append(out, gate.Narrowing{Option: "-fb.tasks", Effect: "selects fewer"})
	}
	if len(categories) > 0 {
		out = append(out, gate.Narrowing{Option: "-fb.categories", Effect: "selects fewer"})
	}
	return out
}

// TestGateNarrowing: the gate's note on baseline items that did not run
// names the option that narrowed the run, in the words of each source,
// and names none when nothing did.
func TestGateNarrowing(t *testing.T) {
	words := func(ns []gate.Narrowing) []string {
		var out []string
		for _, n := range ns {
			out = append(out, n.Option+" "+n.Effect)
		}
		return out
	}
	t.Run("selection", func(t *testing.T) {
		for _, tc := range []struct {
			run, skip, shard string
			want             []string
		}{
			{"", "", "", nil},
			{"TestFeatherbench", "", "", nil}, // -run picks the suite, not fewer of its items
			{"TestFeatherbench/fable-5", "", "", nil},
			{"TestFeatherbench/fable-5/coding", "", "", []string{"-run selects fewer"}},
			{"", "TestFeatherbench//coding", "", []string{"-skip leaves some out"}},
			{"", "", "2/3", []string{"-shard runs one of 3 parts"}},
			{"", "", "1/1", nil},
			{"TestFeatherbench//coding", "TestFeatherbench//x", "1/2", []string{"-run selects fewer", "-skip leaves some out", "-shard runs one of 2 parts"}},
		} {
			f, err := runfilter.New(tc.run, tc.skip)
			require.NoError(t, err)
			s, err := shard.Parse(tc.shard)
			require.NoError(t, err)
			assert.Equal(t, tc.want, words(selectionNarrowing(f, s, "TestFeatherbench", "fable-5")), "-run=%q -skip=%q -shard=%q", tc.run, tc.skip, tc.shard)
		}
	})
	t.Run("featherbench", func(t *testing.T) {
		for _, tc := range []struct {
			dir             string
			ids, categories []string
			want            []string
		}{
			{"tasks", nil, nil, nil},
			{"./tasks/", nil, nil, nil},
			{"my-tasks", nil, nil, []string{"-fb.tasks-dir names other tasks"}},
			{"tasks", []string{"coding-x"}, nil, []string{"-fb.tasks selects fewer"}},
			{"tasks", nil, []string{"coding"}, []string{"-fb.categories selects fewer"}},
			{"my-tasks", []string{"a"}, []string{"b"}, []string{"-fb.tasks-dir names other tasks", "-fb.tasks selects fewer", "-fb.categories selects fewer"}},
		} {
			assert.Equal(t, tc.want, words(fbNarrowing(tc.dir, tc.ids, tc.categories)), "%q %q %q", tc.dir, tc.ids, tc.categories)
		}
	})
}
