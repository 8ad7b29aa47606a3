package samples

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/suites/featherbench"
)

// hello is a task whose checker wants "hello" and whose rubric has two
// criteria.
func hello(t *testing.T) featherbench.Task {
	t.Helper()
	task, err := featherbench.Parse("realworld-hello.json", []byte(`{"category": "realworld", "prompt": "Greet me.",
		"checker": {"type": "contains", "value": "hello"},
		"rubric": {"criteria": ["Is polite", "Is brief"]},
		"tools": [{"name": "wave", "description": "Wave.", "parameters": {"type": "object"}}]}`))
	require.NoError(t, err)
	return task
}

// write puts an archive of set s for task hello in dir.
func write(t *testing.T, dir string, s Set, text string) {
	t.Helper()
	path := s.Path(dir, "realworld-hello")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
}

var blind = Sets[1]

func TestRead(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, blind, `Blind answers for realworld-hello, written from the prompt alone.
good-formal: a formal greeting.
good-waves: waves and says hello.
bad-rude: says hello rudely [rubric criterion 1]
bad-late: says hello a day late, which the prompt allows [reclassified as good: the prompt sets no time]
-- good-formal --
Hello, and welcome.
-- good-waves --
Hello!
-- good-waves.tool_calls.json --
[{"name": "wave", "args": {}}]
-- bad-rude --
Hello, now go away.
-- bad-late --
Hello (a day late).
`)
	answers, err := blind.Read(dir, hello(t))
	require.NoError(t, err)
	require.Len(t, answers, 4)
	byName := map[string]Answer{}
	for _, a := range answers {
		byName[a.Name] = a
	}
	assert.True(t, byName["good-formal"].Good)
	assert.Equal(t, "wave", byName["good-waves"].Response.ToolCalls[0].Name)
	assert.False(t, byName["bad-rude"].Good)
	assert.Equal(t, 1, byName["bad-rude"].Criterion)
	assert.True(t, byName["bad-rude"].Gap())
	assert.True(t, byName["bad-late"].Good, "reclassified")
	assert.Equal(t, "the prompt sets no time", byName["bad-late"].Reclassified)

	vs, err := Measure(context.Background(), hello(t), answers)
	require.NoError(t, err)
	f := Tally(vs)
	assert.Equal(t, Figures{Good: 3, FalseFails: 0, Bad: 1, FalsePasses: 1, Covered: 1}, f)
	assert.Equal(t, "good 3, 0 fail (0.0%); bad 1, 1 pass (100.0%), 1 named by a rubric criterion", f.String())
	assert.Equal(t, "3/3 good pass, 0/1 bad fail (+1 for the rubric)", f.Rates())
}

func TestReadErrors(t *testing.T) {
	const head = "Blind answers for realworld-hello, written from the prompt alone.\n"
	path := func(dir string) string { return blind.Path(dir, "realworld-hello") }
	tests := []struct{ name, text, want string }{
		{"header", "Sample answers for realworld-hello.\n-- good --\nHello\n",
			`: the comment's first line must be "Blind answers for realworld-hello, written from the prompt alone.", not "Sample answers for realworld-hello."`},
		{"comment line", head + "a stray note\n-- good --\nHello\n",
			`: comment line "a stray note" must be "<answer name>: <reason>"`},
		{"unknown file", head + "good: hi.\n-- good --\nHello\n-- notes --\nx\n",
			`: unknown file "notes"; use good, good-<style>, bad, bad-<why>, rubric-<why> and <answer>.tool_calls.json`},
		{"no reason", head + "-- good --\nHello\n",
			`: add a comment line "good: <why it passes or fails>"`},
		{"reason without answer", head + "good: hi.\nbad: bye.\n-- good --\nHello\n",
			`: the comment gives a reason for bad, which is not in the file`},
		{"tool not offered", head + "good: hi.\n-- good --\nHello\n-- good.tool_calls.json --\n[{\"name\": \"shout\", \"args\": {}}]\n",
			`: good calls "shout", which the task does not offer`},
		{"criterion out of range", head + "bad: rude [rubric criterion 3]\n-- bad --\nHello, go away\n",
			`: bad names rubric criterion 3; the task has 2`},
		{"a good answer needs no criterion", head + "good: hi [rubric criterion 1]\n-- good --\nHello\n",
			`: good must pass, so no rubric criterion needs to catch it; drop its "[rubric criterion N]"`},
		{"reclassified as what it is", head + "bad: bye [reclassified as bad: it says bye]\n-- bad --\nBye\n",
			`: bad is reclassified as bad, which its name already says; reclassify a good answer as bad or a bad one as good`},
		{"rubric gap without its criterion", head + "rubric-rude: rude.\n-- rubric-rude --\nHello, go away\n",
			`: rubric-rude's reason must name the rubric criterion that catches it ("rubric criterion N")`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, blind, tt.text)
			_, err := blind.Read(dir, hello(t))
			require.Error(t, err)
			assert.Equal(t, path(dir)+tt.want, err.Error())
		})
	}
}

func TestMeasureLibrary(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, Sets[0], "Sample answers for realworld-hello.\ngood: hello.\nbad: bye.\n-- good --\nHello\n-- bad --\nBye\n")
	results, err := MeasureLibrary(context.Background(), dir, []featherbench.Task{hello(t)})
	require.NoError(t, err)
	require.Len(t, results, 1)
	assert.Contains(t, results[0].Sets, "samples")
	assert.NotContains(t, results[0].Sets, "blind", "a set with no archive is left out")

	var b strings.Builder
	require.NoError(t, WriteTable(&b, "category", ByCategory(results)))
	assert.Equal(t, "category   samples                      blind\n"+
		"realworld  1/1 good pass, 1/1 bad fail  -\n"+
		"all        1/1 good pass, 1/1 bad fail  -\n", b.String(), "blind shows as missing; the optional holdout set, which no task has, not at all")

	write(t, dir, blind, "not an archive of answers\n")
	_, err = MeasureLibrary(context.Background(), dir, []featherbench.Task{hello(t)})
	require.Error(t, err)
	assert.Contains(t, err.Error(), blind.Path(dir, "realworld-hello"))
}
