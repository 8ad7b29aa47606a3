package gate_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/feather-eval/feather/harness/run/gate"
	"github.com/feather-eval/feather/harness/stats"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAutoThreshold(t *testing.T) {
	tests := []struct{ score, se, want float64 }{
		{47, 4.99, 37.02},
		{0.9, stats.SEProportion(0.9, 10), 0.7102},
		{1, 0, 1},
		{0.05, 0.1, 0},
		{66.7286, 4.9566, 56.8154},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, gate.AutoThreshold(tt.score, tt.se), "score %v se %v", tt.score, tt.se)
	}
}

// The fixture is a miniature suite, run only when the gate tests re-execute
// this test binary: TestGateFixture/m/item01…item10, then the gate subtest.
// item01–item09 pass and item10 fails, unless GATE_FLIP names them.
const fixtureEnv = "FEATHER_GATE_FIXTURE"

func TestGateFixture(t *testing.T) {
	if os.Getenv(fixtureEnv) != "1" {
		t.Skip("a fixture: TestGateInSubprocess runs it in a child test binary")
	}
	flip := map[string]bool{}
	for _, id := range strings.Split(os.Getenv("GATE_FLIP"), ",") {
		flip[id] = id != ""
	}
	t.Run("m", func(t *testing.T) {
		g := gate.OpenIn(t, os.Getenv("GATE_DIR"), "suite", "m", os.Getenv("GATE_UPDATE") == "1")
		n := 10
		if os.Getenv("GATE_ITEMS") != "" {
			fmt.Sscan(os.Getenv("GATE_ITEMS"), &n) // a run that -run cut short
		}
		passed := 0
		for i := 1; i <= n; i++ {
			id := fmt.Sprintf("item%02d", i)
			ok := (i != 10) != flip[id]
			if ok {
				passed++
			}
			t.Run(id, func(t *testing.T) { g.Item(t, id, ok) })
		}
		// GATE_NARROWED lists the run's narrowing options, "-run=selects fewer;...".
		var narrowed []gate.Narrowing
		for _, n := range strings.Split(os.Getenv("GATE_NARROWED"), ";") {
			if opt, effect, ok := strings.Cut(n, "="); ok {
				narrowed = append(narrowed, gate.Narrowing{Option: opt, Effect: effect})
			}
		}
		p := float64(passed) / float64(n)
		if os.Getenv("GATE_NOSCORE") == "1" {
			g.Finish(t, math.NaN(), 0, narrowed...) // like μBench without its index
			return
		}
		g.Finish(t, p, stats.SEProportion(p, n), narrowed...)
	})
}

type event struct {
	Action, Test, Output string
}

// runFixture re-executes this test binary on TestGateFixture through
// go tool test2json and returns the failed leaf tests and each test's
// output.
func runFixture(t *testing.T, dir string, env ...string) (failed []string, output map[string]string) {
	t.Helper()
	cmd := exec.Command("go", "tool", "test2json", "-t", os.Args[0], "-test.run=^TestGateFixture$", "-test.v=test2json")
	cmd.Env = append(os.Environ(), append([]string{fixtureEnv + "=1", "GATE_DIR=" + dir}, env...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if _, ok := err.(*exec.ExitError); !ok {
		require.NoError(t, err, stderr.String())
	}
	output = map[string]string{}
	status := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var e event
		require.NoError(t, json.Unmarshal(sc.Bytes(), &e), sc.Text())
		switch e.Action {
		case "output":
			output[e.Test] += e.Output
		case "pass", "fail", "skip":
			if e.Test != "" {
				status[e.Test] = e.Action
			}
		}
	}
	for name, s := range status {
		if s != "fail" {
			continue
		}
		leaf := true
		for other, os := range status {
			if os == "fail" && strings.HasPrefix(other, name+"/") {
				leaf = false
			}
		}
		if leaf {
			failed = append(failed, strings.TrimPrefix(name, "TestGateFixture/m/"))
		}
	}
	sort.Strings(failed)
	return failed, output
}

// TestGateInSubprocess records a baseline, then changes outcomes and reads
// the test events: exactly the regressed items' subtests fail, and the
// gate subtest fails or reports as the rules say.
func TestGateInSubprocess(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs the go command for go tool test2json")
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "suite", "m.json")

	t.Run("no baseline: not gated, said once", func(t *testing.T) {
		failed, out := runFixture(t, dir)
		assert.Empty(t, failed)
		all := strings.Join(values(out), "")
		assert.Equal(t, 1, strings.Count(all, "no baseline "+file+" for suite m: not gated; record one with -update"))
		assert.NotContains(t, out, "TestGateFixture/m/gate")
		assert.NoFileExists(t, file)
	})

	t.Run("record", func(t *testing.T) {
		failed, out := runFixture(t, dir, "GATE_UPDATE=1")
		assert.Empty(t, failed)
		assert.Contains(t, out["TestGateFixture/m"], "gate: recorded "+file+" (all): score 0.9 ± 0.09487, threshold 0.7102, 10 items")
		b, err := os.ReadFile(file)
		require.NoError(t, err)
		assert.Equal(t, `{
  "suite": "suite",
  "model": "m",
  "note": "Recorded by go test -update. Item outcomes gate each item's subtest; threshold gates the score. Edit threshold by hand to loosen or tighten the gate: a later -update keeps a threshold that is not the default (score - 2·se, rounded down).",
  "sections": {
    "all": {
      "score": 0.9,
      "se": 0.09486832980505137,
      "threshold": 0.7102,
      "items": {
        "item01": "pass",
        "item02": "pass",
        "item03": "pass",
        "item04": "pass",
        "item05": "pass",
        "item06": "pass",
        "item07": "pass",
        "item08": "pass",
        "item09": "pass",
        "item10": "fail"
      }
    }
  }
}
`, string(b))
	})

	tests := []struct {
		name       string
		env        []string
		failed     []string
		gateSays   []string
		outputSays map[string]string
	}{
		{
			name:     "same outcomes pass",
			gateSays: []string{"gate: suite m: score 0.9, threshold 0.7102 (baseline " + file + " (all): score 0.9 ± 0.09487)"},
		},
		{
			name:     "one regression fails its item; the gate reports it",
			env:      []string{"GATE_FLIP=item03"},
			failed:   []string{"item03"},
			gateSays: []string{"1 items regressed and 0 improved since the baseline " + file + " (all) (exact McNemar test, one-sided, p = 0.5: not a significant drop). Regressed: item03"},
			outputSays: map[string]string{
				"TestGateFixture/m/item03": "regression: item03 passed in the baseline (" + file + ", all) and fails now",
			},
		},
		{
			name:   "five regressions fail the gate on both rules",
			env:    []string{"GATE_FLIP=item01,item02,item03,item04,item05"},
			failed: []string{"gate", "item01", "item02", "item03", "item04", "item05"},
			gateSays: []string{
				"gate: suite m: score 0.4 is below the threshold 0.7102 (baseline " + file + " (all): score 0.9 ± 0.09487)",
				"gate: suite m: 5 items regressed and 0 improved since the baseline " + file + " (all): a significant drop (exact McNemar test, one-sided, p = 0.03125 < 0.05). Regressed: item01, item02, item03, item04, item05",
			},
		},
		{
			name:     "an improvement is logged",
			env:      []string{"GATE_FLIP=item10"},
			gateSays: []string{"gate: suite m: improved since the baseline: item10; record it with -update", "score 1 is above the baseline's 0.9"},
			outputSays: map[string]string{
				"TestGateFixture/m/item10": "improvement: item10 failed in the baseline (" + file + ", all) and passes now",
			},
		},
		{
			name:   "a partial run checks its items but not the score",
			env:    []string{"GATE_ITEMS=4", "GATE_FLIP=item02", "GATE_NARROWED=-run=selects fewer"},
			failed: []string{"item02"},
			gateSays: []string{
				"gate: suite m: 6 of the baseline's 10 items did not run (-run selects fewer): the score is not compared with the threshold",
				"1 items regressed and 0 improved",
			},
		},
		{
			name:     "a partial run names every option that narrowed it",
			env:      []string{"GATE_ITEMS=4", "GATE_NARROWED=-fb.tasks-dir=names other tasks;-shard=runs one of 3 parts"},
			gateSays: []string{"gate: suite m: 6 of the baseline's 10 items did not run (-fb.tasks-dir names other tasks; -shard runs one of 3 parts): the score is not compared with the threshold"},
		},
		{
			name: "items missing from a whole run are missing from the data",
			env:  []string{"GATE_ITEMS=9"},
			gateSays: []string{"gate: suite m: 1 of the baseline's 10 items did not run, and no option narrowed the run: the data no longer has them, " +
				"or the baseline was recorded with other options (record it again with -update); the score is not compared with the threshold"},
		},
		{
			name:     "a run without a score still gates its items",
			env:      []string{"GATE_NOSCORE=1", "GATE_FLIP=item01,item02,item03,item04,item05"},
			failed:   []string{"gate", "item01", "item02", "item03", "item04", "item05"},
			gateSays: []string{"gate: suite m: no score this run: only the items are compared", "p = 0.03125 < 0.05"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			failed, out := runFixture(t, dir, tt.env...)
			assert.Equal(t, tt.failed, failed)
			for _, s := range tt.gateSays {
				assert.Contains(t, out["TestGateFixture/m/gate"], s)
			}
			for test, s := range tt.outputSays {
				assert.Contains(t, out[test], s)
			}
		})
	}

	t.Run("a hand-set threshold gates and survives -update", func(t *testing.T) {
		b, err := os.ReadFile(file)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(file, bytes.Replace(b, []byte(`"threshold": 0.7102`), []byte(`"threshold": 0.85`), 1), 0o644))
		failed, out := runFixture(t, dir, "GATE_FLIP=item03")
		assert.Equal(t, []string{"gate", "item03"}, failed)
		assert.Contains(t, out["TestGateFixture/m/gate"], "score 0.8 is below the threshold 0.85")

		failed, out = runFixture(t, dir, "GATE_UPDATE=1")
		assert.Empty(t, failed)
		assert.Contains(t, out["TestGateFixture/m"], "kept the hand-set threshold 0.85 (the default would be 0.7102)")
		b, err = os.ReadFile(file)
		require.NoError(t, err)
		assert.Contains(t, string(b), `"threshold": 0.85,`)
	})

	t.Run("a partial -update keeps the recorded score", func(t *testing.T) {
		failed, out := runFixture(t, dir, "GATE_UPDATE=1", "GATE_ITEMS=4", "GATE_FLIP=item02")
		assert.Empty(t, failed)
		assert.Contains(t, out["TestGateFixture/m"], "6 of the baseline's items did not run: kept their outcomes and the recorded score and threshold")
		b, err := os.ReadFile(file)
		require.NoError(t, err)
		assert.Contains(t, string(b), `"score": 0.9,`)
		assert.Contains(t, string(b), `"item02": "fail",`)
		assert.Contains(t, string(b), `"item09": "pass",`)
	})

	t.Run("a broken baseline fails with the file and the fix", func(t *testing.T) {
		bad := t.TempDir()
		require.NoError(t, os.MkdirAll(filepath.Join(bad, "suite"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(bad, "suite", "m.json"), []byte(`{"sections": {"all": {"items": {"item01": "passed"}}}}`), 0o644))
		failed, out := runFixture(t, bad)
		assert.Equal(t, []string{"TestGateFixture/m"}, failed, "the suite test itself fails: a harness error, not a regression")
		assert.Contains(t, out["TestGateFixture/m"], filepath.Join(bad, "suite", "m.json")+`: sections.all.items.item01 is "passed"; want "pass" or "fail"`)

		// A hand edit that breaks the JSON is pointed at by line and column.
		require.NoError(t, os.WriteFile(filepath.Join(bad, "suite", "m.json"), []byte("{\"sections\": {\"all\": {\n  \"threshold\": 0.85,\n}}}"), 0o644))
		failed, out = runFixture(t, bad)
		assert.Equal(t, []string{"TestGateFixture/m"}, failed)
		assert.Contains(t, out["TestGateFixture/m"], filepath.Join(bad, "suite", "m.json")+":3:1: invalid JSON: invalid character '}' looking for beginning of object key string; not a baseline file: fix it, or delete it and record a new one with -update")
	})
}

func values(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// TestOpenIsShared: item subtests can open the gate themselves and reach
// the one their parent opened.
func TestOpenIsShared(t *testing.T) {
	dir := t.TempDir()
	a := gate.OpenIn(t, dir, "s", "m/plain", false)
	b := gate.OpenIn(t, dir, "s", "m/plain", true)
	c := gate.OpenIn(t, dir, "s", "m/completion", false)
	assert.Same(t, a, b)
	assert.NotSame(t, a, c)
	assert.False(t, math.IsNaN(gate.AutoThreshold(1, 0)))
}

func TestLoadRejectsRepeatedKeys(t *testing.T) {
	const redo = "fix it, or delete it and record a new one with -update"
	const keepsLast = "JSON would keep only the last one, so remove one"
	for _, tc := range []struct{ name, data, want string }{
		{"top-level field", "{\n\"suite\": \"a\",\n\"suite\": \"b\"\n}",
			`B:3: duplicate field "suite" (first on line 2); ` + keepsLast},
		{"an earlier unknown field is reported first", `{"x": 1, "suite": "a", "suite": "b"}`,
			`B:1: unknown field "x"; a baseline has suite, model, note and sections: ` + redo},
		{"section", `{"sections": {"s": {"score": 1}, "s": {"score": 2}}}`,
			`B: sections.s appears twice; ` + keepsLast},
		{"section field", `{"sections": {"s": {"score": 1, "score": 2}}}`,
			`B: sections.s.score appears twice; ` + keepsLast},
		{"item", `{"sections": {"s": {"items": {"a": "pass", "b": "fail", "a": "fail"}}}}`,
			`B: sections.s.items.a appears twice; ` + keepsLast},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "B")
			require.NoError(t, os.WriteFile(path, []byte(tc.data), 0o644))
			_, err := gate.Load(path)
			require.Error(t, err)
			assert.Equal(t, tc.want, strings.ReplaceAll(err.Error(), path, "B"))
		})
	}
}
