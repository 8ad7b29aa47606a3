package feather_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/run/runfilter"
)

// runSelection is what a suite tells requireRunSelects about its run.
type runSelection struct {
	flag     string   // the suite's model option, e.g. -fw.models
	catalog  string   // the suite's catalog file
	layout   string   // its subtests' names, e.g. <model>/<style>/<item-id>
	selected []string // the models the run selected, in order
	// selects reports whether sel, a selection of paths under one model,
	// takes any of that model's units.
	selects func(model string, sel func(path ...string) bool) bool
}

// requireRunSelects fails a suite's test t when -run selects nothing of
// it, before any model is opened: a pattern that names a model this run
// did not select would otherwise print ok having measured nothing. The
// message names the flag that selects the model.
func requireRunSelects(t *testing.T, s runSelection) {
	t.Helper()
	if msg := runSelectionProblem(runPattern(), runfilter.FromFlags(), strings.Split(t.Name(), "/"), s); msg != "" {
		t.Fatal(msg)
	}
}

// runPattern is this binary's -run pattern, "" when there is none.
func runPattern() string {
	if f := flag.Lookup("test.run"); f != nil {
		return f.Value.String()
	}
	return ""
}

// runSelectionProblem says why -run pattern (parsed as f) selects none of
// the suite's units under the test path prefix, or "" when it selects
// some or there is no pattern.
func runSelectionProblem(pattern string, f *runfilter.Filter, prefix []string, s runSelection) string {
	if pattern == "" {
		return ""
	}
	under := func(path ...string) []string { return append(slices.Clip(prefix), path...) }
	var named []string
	for _, m := range s.selected {
		if !f.Selected(under(m)...) {
			continue
		}
		if s.selects(m, f.Under(under(m)...)) {
			return ""
		}
		named = append(named, m)
	}
	suite := strings.Join(prefix, "/")
	if len(named) > 0 {
		return fmt.Sprintf("-run %q selects none of the items of %s: its subtests are %s/%s",
			pattern, strings.Join(named, ", "), suite, s.layout)
	}
	c, err := catalog.Load(s.catalog)
	if err != nil {
		return err.Error()
	}
	var others []string
	for _, k := range c.Keys() {
		if f.Selected(under(k)...) {
			others = append(others, k)
		}
	}
	if len(others) == 0 {
		return fmt.Sprintf("-run %q names no model of %s (%s); its subtests are %s/%s",
			pattern, s.catalog, strings.Join(c.Keys(), ", "), suite, s.layout)
	}
	if exact := spelledOut(pattern, others); len(exact) > 0 {
		others = exact // -run "…/gpt2/…" means gpt2, not every key it matches
	}
	return fmt.Sprintf("-run %q names %s, which this run does not select (it selects %s): add %s=%s",
		pattern, strings.Join(others, ", "), orNone(s.selected), s.flag, strings.Join(others, ","))
}

// spelledOut are the keys that pattern spells out whole as a level of
// its own.
func spelledOut(pattern string, keys []string) []string {
	var out []string
	for _, k := range keys {
		for _, level := range strings.FieldsFunc(pattern, func(r rune) bool { return r == '/' || r == '|' }) {
			if strings.Trim(level, "^$") == k {
				out = append(out, k)
				break
			}
		}
	}
	return out
}

func orNone(keys []string) string {
	if len(keys) == 0 {
		return "none"
	}
	return strings.Join(keys, ", ")
}

// TestRunSelectionProblem: what a suite says when -run selects none of
// its units, for each way that happens, and silence when it selects some.
func TestRunSelectionProblem(t *testing.T) {
	cat := filepath.Join(t.TempDir(), "models.json")
	require.NoError(t, os.WriteFile(cat, []byte(`{
		"smoke": {"backend": "onnx", "builtin": "smoke", "enabled": true},
		"gpt2": {"backend": "onnx", "hf": "openai-community/gpt2"},
		"distilgpt2": {"backend": "onnx", "hf": "distilbert/distilgpt2"}}`), 0o644))
	items := map[string]bool{"plain/geo01": true, "completion/geo01": true}
	s := runSelection{flag: "-fw.models", catalog: cat, layout: "<model>/<style>/<item-id>", selected: []string{"smoke"},
		selects: func(_ string, sel func(...string) bool) bool {
			for it := range items {
				if sel(strings.Split(it, "/")...) {
					return true
				}
			}
			return false
		}}
	for _, tt := range []struct{ pattern, want string }{
		{"", ""},
		{"TestFeatherweight", ""},
		{"TestFeatherweight/smoke/plain/geo", ""},
		{"TestFeatherweight/gpt2/plain", `-run "TestFeatherweight/gpt2/plain" names gpt2, which this run does not select (it selects smoke): add -fw.models=gpt2`},
		{"TestFeatherweight/^gpt2$", `-run "TestFeatherweight/^gpt2$" names gpt2, which this run does not select (it selects smoke): add -fw.models=gpt2`},
		{"TestFeatherweight/gpt", `-run "TestFeatherweight/gpt" names gpt2, distilgpt2, which this run does not select (it selects smoke): add -fw.models=gpt2,distilgpt2`},
		{"TestFeatherweight/llama", `-run "TestFeatherweight/llama" names no model of ` + cat + ` (smoke, gpt2, distilgpt2); its subtests are TestFeatherweight/<model>/<style>/<item-id>`},
		{"TestFeatherweight/smoke/plain/rea", `-run "TestFeatherweight/smoke/plain/rea" selects none of the items of smoke: its subtests are TestFeatherweight/<model>/<style>/<item-id>`},
	} {
		t.Run(tt.pattern, func(t *testing.T) {
			f, err := runfilter.New(tt.pattern, "")
			require.NoError(t, err)
			assert.Equal(t, tt.want, runSelectionProblem(tt.pattern, f, []string{"TestFeatherweight"}, s))
		})
	}
}
