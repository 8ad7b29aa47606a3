package runfilter

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSelected(t *testing.T) {
	for _, tc := range []struct {
		run, skip string
		path      []string
		want      bool
	}{
		{"", "", []string{"TestFeatherweight", "smoke", "plain", "geo01"}, true},
		{"TestFeatherweight", "", []string{"TestFeatherweight", "smoke", "plain", "geo01"}, true},
		{"TestMicrobench", "", []string{"TestFeatherweight", "smoke"}, false},
		{"TestFeatherweight/smoke/plain/geo01", "", []string{"TestFeatherweight", "smoke", "plain", "geo01"}, true},
		{"TestFeatherweight/smoke/plain/geo01", "", []string{"TestFeatherweight", "smoke", "plain", "geo02"}, false},
		{"TestFeatherweight/smoke/plain/geo01", "", []string{"TestFeatherweight", "smoke", "completion", "geo01"}, false},
		{"TestFeatherweight/smoke/plain/geo01", "", []string{"TestFeatherweight", "smoke"}, true}, // partial: its subtests may match
		{"TestFeatherweight//completion/geo", "", []string{"TestFeatherweight", "any-model", "completion", "geo07"}, true},
		{"TestFeatherweight/smoke/plain/geo0[12]", "", []string{"TestFeatherweight", "smoke", "plain", "geo02"}, true},
		{"TestFeatherweight/smoke/plain/geo0[12]", "", []string{"TestFeatherweight", "smoke", "plain", "geo03"}, false},
		{"TestA|TestFeatherbench/m/coding", "", []string{"TestFeatherbench", "m", "coding-csv-dedupe", "1"}, true},
		{"TestA|TestFeatherbench/m/coding", "", []string{"TestFeatherbench", "m", "realworld-x", "1"}, false},
		{"TestA|TestFeatherbench/m/coding", "", []string{"TestA", "anything"}, true},
		{"TestX/(a|b)/c", "", []string{"TestX", "b", "c"}, true}, // '|' inside parens is not an alternation
		{"TestX/^a$", "", []string{"TestX", "ab"}, false},
		{"", "TestFeatherweight/smoke/plain/geo01", []string{"TestFeatherweight", "smoke", "plain", "geo01"}, false},
		{"", "TestFeatherweight/smoke/plain/geo01", []string{"TestFeatherweight", "smoke"}, true}, // partial skip does not skip the parent
		{"", "TestFeatherweight/smoke/plain/geo01", []string{"TestFeatherweight", "smoke", "plain", "geo02"}, true},
		{"Test/with space", "", []string{"Test", "with space"}, true},
	} {
		f, err := New(tc.run, tc.skip)
		require.NoError(t, err)
		assert.Equal(t, tc.want, f.Selected(tc.path...), "run=%q skip=%q path=%v", tc.run, tc.skip, tc.path)
	}
}

func TestNarrows(t *testing.T) {
	prefix := []string{"TestFeatherbench", "fable-5"}
	for _, tc := range []struct {
		run, skip         string
		wantRun, wantSkip bool
	}{
		{"", "", false, false},
		{"TestFeatherbench", "", false, false},               // the suite: every unit of the model
		{"TestFeatherbench/fable-5", "", false, false},       // the model
		{"TestFeatherbench/fable-5/", "", false, false},      // an empty level selects all
		{"TestFeatherbench/fable-5/coding", "", true, false}, // some tasks
		{"TestFeatherbench//coding", "", true, false},
		{"TestFeatherbench/fable-5/coding|TestFeatherbench", "", false, false}, // one alternative selects all
		{"TestA|TestFeatherbench/fable-5/coding", "", true, false},
		{"", "TestFeatherbench/fable-5/coding", false, true},
		{"", "TestFeatherbench/gpt-5/coding", false, false}, // another model's tests
		{"", "TestMicrobench", false, false},
		{"TestFeatherbench", "TestFeatherbench/fable-5/x/2", false, true},
	} {
		f, err := New(tc.run, tc.skip)
		require.NoError(t, err)
		run, skip := f.Narrows(prefix...)
		assert.Equal(t, []bool{tc.wantRun, tc.wantSkip}, []bool{run, skip}, "run=%q skip=%q", tc.run, tc.skip)
	}
}

func TestBadPattern(t *testing.T) {
	_, err := New("Test[", "")
	assert.Error(t, err)
}
