package unit_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/run/gate"
	"github.com/feather-eval/feather/harness/run/unit"
)

func TestKey(t *testing.T) {
	tests := []struct {
		u       unit.Unit
		section []string
		item    string
	}{
		{unit.Unit{Path: []string{"completion", "geo01"}, Section: 1}, []string{"completion"}, "geo01"},
		{unit.Unit{Path: []string{"tracking", "tracking-017"}}, []string{}, "tracking/tracking-017"},
		{unit.Unit{Path: []string{"code-fizzbuzz", "2"}}, []string{}, "code-fizzbuzz/2"},
		// A section as long as the path would leave no item: the last
		// element stays the item.
		{unit.Unit{Path: []string{"a", "b"}, Section: 5}, []string{"a"}, "b"},
	}
	for _, tt := range tests {
		section, item := tt.u.Key()
		assert.Equal(t, tt.section, section, "%v", tt.u.Path)
		assert.Equal(t, tt.item, item, "%v", tt.u.Path)
	}
}

func TestGated(t *testing.T) {
	for s, want := range map[unit.Status]bool{unit.Pass: true, unit.Fail: true, unit.Error: false, unit.Unsupported: false, unit.Measured: false} {
		assert.Equal(t, want, unit.Unit{Status: s}.Gated(), "status %d", s)
	}
	assert.True(t, math.IsNaN(unit.NoScore("plain").Value))
	assert.Equal(t, []string{"plain"}, unit.NoScore("plain").Section)
}

// fixtureEnv makes TestUnitFixture run: it is a miniature suite that the
// tests below run in a child test binary, since a failing subtest would
// fail this one.
const fixtureEnv = "FEATHER_UNIT_FIXTURE"

// fixtureUnits: two prompt styles, the first with a pass, a miss and a
// harness error, the second with an unsupported and a measured unit.
func fixtureUnits(flip bool) []unit.Unit {
	a := unit.Pass
	if flip {
		a = unit.Fail
	}
	return []unit.Unit{
		{Path: []string{"completion", "a"}, Section: 1, Status: a, Log: "correct: A", Miss: `answered "B", want A`},
		{Path: []string{"completion", "b"}, Section: 1, Status: unit.Fail, Log: "wrong: B", Miss: `answered "B", want C`},
		{Path: []string{"plain", "a"}, Section: 1, Status: unit.Unsupported, Log: "tools are not supported"},
		{Path: []string{"completion", "c"}, Section: 1, Status: unit.Error, Log: "no answer: timeout"},
		{Path: []string{"plain", "d"}, Section: 1, Status: unit.Measured, Log: "0.9 bits per byte"},
	}
}

func TestUnitFixture(t *testing.T) {
	if os.Getenv(fixtureEnv) != "1" {
		t.Skip("a fixture: TestSubtests runs it in a child test binary")
	}
	o := unit.Options{Suite: "suite", Model: "m", Gate: os.Getenv("GATE") == "1", Update: os.Getenv("UPDATE") == "1",
		Strict: os.Getenv("STRICT") == "1", Interrupted: os.Getenv("INTERRUPTED") == "1", Baselines: os.Getenv("DIR")}
	t.Run("m", func(t *testing.T) {
		unit.Subtests(t, o, fixtureUnits(os.Getenv("FLIP") == "1"), []unit.Score{
			{Section: []string{"completion"}, Value: 50, SE: 10},
			unit.NoScore("plain"),
		})
	})
}

type result struct {
	order  []string          // subtests in the order they started
	status map[string]string // pass, fail or skip
	output map[string]string
}

func runFixture(t *testing.T, env ...string) result {
	t.Helper()
	cmd := exec.Command("go", "tool", "test2json", "-t", os.Args[0], "-test.run=^TestUnitFixture$", "-test.v=test2json")
	cmd.Env = append(os.Environ(), append([]string{fixtureEnv + "=1"}, env...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if _, ok := err.(*exec.ExitError); !ok {
		require.NoError(t, err, stderr.String())
	}
	r := result{status: map[string]string{}, output: map[string]string{}}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var e struct{ Action, Test, Output string }
		require.NoError(t, json.Unmarshal(sc.Bytes(), &e), sc.Text())
		name, ok := strings.CutPrefix(e.Test, "TestUnitFixture/m/")
		if !ok {
			continue
		}
		switch e.Action {
		case "run":
			r.order = append(r.order, name)
		case "output":
			r.output[name] += e.Output
		case "pass", "fail", "skip":
			r.status[name] = e.Action
		}
	}
	return r
}

func TestSubtests(t *testing.T) {
	t.Run("nesting, statuses and logs", func(t *testing.T) {
		r := runFixture(t)
		assert.Equal(t, []string{"completion", "completion/a", "completion/b", "completion/c", "plain", "plain/a", "plain/d"}, r.order,
			"nested by path, in the order the units first name each level")
		assert.Equal(t, map[string]string{
			"completion": "fail", "completion/a": "pass", "completion/b": "pass", "completion/c": "fail",
			"plain": "pass", "plain/a": "skip", "plain/d": "pass",
		}, r.status, "a miss is the model's result; an error fails; unsupported skips")
		assert.Contains(t, r.output["completion/c"], "no answer: timeout")
		assert.Contains(t, r.output["plain/a"], "tools are not supported")
		assert.Contains(t, r.output["plain/d"], "0.9 bits per byte")
	})
	t.Run("strict fails every miss", func(t *testing.T) {
		r := runFixture(t, "STRICT=1")
		assert.Equal(t, "fail", r.status["completion/b"])
		assert.Contains(t, r.output["completion/b"], `-strict: m answered "B", want C`)
		assert.Equal(t, "pass", r.status["completion/a"])
	})

	dir := t.TempDir()
	t.Run("update records each section", func(t *testing.T) {
		r := runFixture(t, "GATE=1", "UPDATE=1", "DIR="+dir)
		assert.NotContains(t, r.order, "completion/gate", "nothing to compare on the first recording")
		f, err := gate.Load(filepath.Join(dir, "suite", "m.json"))
		require.NoError(t, err)
		require.Contains(t, f.Sections, "completion")
		assert.Equal(t, map[string]string{"a": gate.Pass, "b": gate.Fail}, f.Sections["completion"].Items, "errors are not gated")
		assert.Equal(t, 50.0, f.Sections["completion"].Score)
	})
	t.Run("a later run is gated per section", func(t *testing.T) {
		r := runFixture(t, "GATE=1", "FLIP=1", "DIR="+dir)
		assert.Equal(t, "fail", r.status["completion/a"])
		assert.Contains(t, r.output["completion/a"], "regression: a passed in the baseline")
		assert.Contains(t, r.order, "completion/gate", "the section's gate subtest runs after its units")
		assert.Equal(t, "completion/gate", r.order[slices.Index(r.order, "completion/c")+1])
	})
	t.Run("an interrupted run leaves scores unchecked", func(t *testing.T) {
		r := runFixture(t, "GATE=1", "INTERRUPTED=1", "DIR="+dir)
		assert.NotContains(t, r.order, "completion/gate")
		assert.Contains(t, r.output["completion"], "gate not checked: the run was interrupted, so m's units are incomplete")
	})
	t.Run("no gate without Gate", func(t *testing.T) {
		r := runFixture(t, "FLIP=1", "DIR="+dir)
		assert.Equal(t, "pass", r.status["completion/a"], "the baseline is not consulted")
		assert.NotContains(t, r.order, "completion/gate")
	})
}
