package feather_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/backends/onnx"
	"github.com/feather-eval/feather/harness/run/rundir"
	"github.com/feather-eval/feather/harness/run/runfilter"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fbSelect applies the catalog's selection rules for Featherbench's models
// and judges, except that "all" leaves out built-in models (the smoke
// model): they measure the harness, not a language model, and as a judge
// one would add an error to every graded trial. Naming one still selects it.
func fbSelect(c *catalog.Catalog, keys []string, option string) ([]catalog.Entry, error) {
	entries, err := c.Select(keys)
	if err != nil || len(keys) != 1 || keys[0] != "all" {
		return entries, err
	}
	var out, builtin []catalog.Entry
	for _, e := range entries {
		if s, ok := e.Settings.(*onnx.Settings); ok && s.Builtin != "" {
			builtin = append(builtin, e)
			continue
		}
		out = append(out, e)
	}
	if len(out) == 0 {
		names := make([]string, len(builtin))
		for i, e := range builtin {
			names[i] = e.Key
		}
		return nil, fmt.Errorf(`"all" selects no language model: %s holds only built-in models, which "all" leaves out; name one to run it (%s %s)`, c.File, option, strings.Join(names, ","))
	}
	return out, nil
}

func TestFBSelectAllLeavesOutBuiltins(t *testing.T) {
	c, err := catalog.Load("models/models.json")
	require.NoError(t, err)
	all, err := fbSelect(c, []string{"all"}, "-fb.models")
	require.NoError(t, err)
	var keys []string
	for _, e := range all {
		keys = append(keys, e.Key)
	}
	assert.NotContains(t, keys, "smoke")
	assert.Len(t, keys, len(c.Entries)-1, "every other model is selected")

	named, err := fbSelect(c, []string{"smoke"}, "-fb.models")
	require.NoError(t, err)
	assert.Equal(t, "smoke", named[0].Key, "naming the smoke model still selects it")

	path := filepath.Join(t.TempDir(), "models.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"smoke": {"backend": "onnx", "builtin": "smoke"}}`), 0o644))
	only, err := catalog.Load(path)
	require.NoError(t, err)
	_, err = fbSelect(only, []string{"all"}, "-fb.judge")
	require.Error(t, err)
	assert.Equal(t, `"all" selects no language model: `+path+` holds only built-in models, which "all" leaves out; name one to run it (-fb.judge smoke)`, err.Error())
}

// TestFBDryRunAllLeavesOutTheSmokeModel: "all" as models and as judges
// plans the catalog's language models only.
func TestFBDryRunAllLeavesOutTheSmokeModel(t *testing.T) {
	s := fbRubricServer(t)
	cat := fbRubricCatalog(t, s, `, "smoke": {"backend": "onnx", "builtin": "smoke"}`)
	var out bytes.Buffer
	recs := runFeatherbench(t, fbConfig{
		Catalog: cat, TasksDir: fbRubricTasks(t), Models: []string{"all"}, Trials: 1, Concurrency: 1, DryRun: true,
		Rubric: fbRubricOptions{Judges: []string{"all"}},
		Filter: &runfilter.Filter{}, Run: rundir.New(filepath.Join(t.TempDir(), "results"), time.Now()), Stdout: &out,
	})
	assert.Nil(t, recs)
	assert.Contains(t, out.String(), "(3 models × 4 tasks × 1 trials)")
	assert.Contains(t, out.String(), "× 3 judges (good, shaky, heron)")
	assert.NotContains(t, out.String(), "smoke")
}
