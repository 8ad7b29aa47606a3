// Package gate is feather's regression gate: a recorded baseline of item
// outcomes and a score per model (testdata/baselines/<suite>/<model>.json),
// checked on every later run the way Go checks golden files.
//
//   - An item that passed in the baseline and fails now fails its own
//     subtest. (-strict, which fails every wrong item, is not the
//     gate's: harness/run/unit applies it.)
//   - The gate subtest fails when the score falls below the baseline's
//     threshold, or when the paired item outcomes show a significant drop:
//     the exact McNemar test on the items that changed, one-sided towards
//     a drop, at p < 0.05.
//   - Improvements are logged, never failed.
//   - -update records the baseline instead of checking it.
//
// harness/run/unit wires it into every suite with three calls:
//
//	g := gate.Open(t, "featherweight", model+"/"+style, update)
//	g.Item(t, itemID, correct) // in each item's subtest
//	g.Finish(t, score, se)     // after the item subtests: runs the gate subtest
//
// Open is cached per baseline section, so item subtests may call it too
// and get the same gate.
package gate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/feather-eval/feather/harness/stats"
	"github.com/feather-eval/feather/internal/atomicfile"
	"github.com/feather-eval/feather/internal/jsonpos"
)

// DefaultDir is where baselines live, relative to the root test package.
const DefaultDir = "testdata/baselines"

// Alpha is the significance level of the paired test.
const Alpha = 0.05

// Margin is how many standard errors below the recorded score the default
// threshold sits: a score that low is outside the recorded score's 95%
// interval (±1.96 SE), so sampling noise — API models at temperature > 0,
// a few trials — rarely trips it, while the item checks and the paired test
// catch smaller real losses.
const Margin = 2.0

// DefaultSection names a baseline's only section when the key has no "/".
const DefaultSection = "all"

// Outcomes as written in a baseline.
const (
	Pass = "pass"
	Fail = "fail"
)

// File is one model's baseline file.
type File struct {
	Suite string `json:"suite"`
	Model string `json:"model"`
	// Note tells a reader how the file is made and may be edited.
	Note     string              `json:"note"`
	Sections map[string]*Section `json:"sections"`
}

// Section is one gated score: a prompt style, a task set, or the whole run.
type Section struct {
	// Score and SE are the recorded score and its standard error, in the
	// suite's own units (percent, index points, a pass rate).
	Score float64 `json:"score"`
	SE    float64 `json:"se"`
	// Threshold fails the gate when the score falls below it. -update sets
	// it to Score - Margin·SE, rounded down; a hand-edited value is kept
	// by later updates.
	Threshold float64 `json:"threshold"`
	// Items maps item ids to "pass" or "fail".
	Items map[string]string `json:"items"`
}

const note = "Recorded by go test -update. Item outcomes gate each item's subtest; threshold gates the score. " +
	"Edit threshold by hand to loosen or tighten the gate: a later -update keeps a threshold that is not the default (score - 2·se, rounded down)."

// AutoThreshold is the default threshold for a recorded score: Margin
// standard errors below it, rounded down to 4 decimals, and never below 0.
func AutoThreshold(score, se float64) float64 {
	return math.Max(0, math.Floor((score-Margin*se)*1e4+1e-6)/1e4)
}

// Gate is one baseline section checked against one run.
type Gate struct {
	path, suite, model, section, label string
	update                             bool

	mu   sync.Mutex
	base *Section // nil: no baseline
	now  map[string]bool
}

var (
	cacheMu sync.Mutex
	cache   = map[string]*Gate{}
	fileMu  sync.Mutex // serialises baseline writes within the process
)

// Open returns the gate for suite and key ("<model>" or
// "<model>/<section>") from DefaultDir, loading its baseline once per
// process. Without a baseline the gate only records (and logs that once).
// A baseline that cannot be read fails t.
func Open(t testing.TB, suite, key string, update bool) *Gate {
	t.Helper()
	return OpenIn(t, DefaultDir, suite, key, update)
}

// OpenIn is Open with the baselines under dir.
func OpenIn(t testing.TB, dir, suite, key string, update bool) *Gate {
	t.Helper()
	model, section, ok := strings.Cut(key, "/")
	if !ok {
		section = DefaultSection
	}
	path := filepath.Join(dir, suite, model+".json")
	id := path + "\x00" + section
	cacheMu.Lock()
	defer cacheMu.Unlock()
	if g, ok := cache[id]; ok {
		return g
	}
	g := &Gate{path: path, suite: suite, model: model, section: section, label: suite + " " + key,
		update: update, now: map[string]bool{}}
	f, err := Load(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if !update {
			t.Logf("gate: no baseline %s for %s: not gated; record one with -update", path, g.label)
		}
	case err != nil:
		t.Fatalf("gate: %v", err)
	default:
		g.base = f.Sections[section]
		if g.base == nil && !update {
			t.Logf("gate: %s has no section %q for %s: not gated; record it with -update", path, section, g.label)
		}
	}
	cache[id] = g
	return g
}

// Load reads and checks a baseline file, as Open does. Errors name the
// file and the line or field, and say how to fix it.
func Load(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parse(path, b)
}

// redo is the way out of a damaged baseline.
const redo = "fix it, or delete it and record a new one with -update"

// parse checks a baseline by hand rather than with encoding/json, whose
// errors name Go types and byte offsets and which keeps the last of two
// repeated keys.
func parse(path string, b []byte) (*File, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, fmt.Errorf("%s: the file is empty; delete it and record a baseline with -update", path)
	}
	top, err := jsonpos.Members(path, b)
	switch {
	case errors.Is(err, jsonpos.ErrNotObject):
		return nil, fmt.Errorf(`%s: a baseline is a JSON object {"suite", "model", "note", "sections"}, not %s; %s`, path, jsonpos.Kind(b), redo)
	case err != nil:
		return nil, fmt.Errorf("%w; not a baseline file: %s", err, redo)
	}
	f := &File{}
	dup, first := jsonpos.Repeat(top)
	var sections *jsonpos.Member
	for i, m := range top {
		if i == dup {
			return nil, fmt.Errorf("%s:%d: duplicate field %q (first on line %d); JSON would keep only the last one, so remove one", path, m.Line, m.Key, top[first].Line)
		}
		var dst *string
		switch m.Key {
		case "suite":
			dst = &f.Suite
		case "model":
			dst = &f.Model
		case "note":
			dst = &f.Note
		case "sections":
			sections = &top[i]
			continue
		default:
			return nil, fmt.Errorf("%s:%d: unknown field %q; a baseline has suite, model, note and sections: %s", path, m.Line, m.Key, redo)
		}
		if err := json.Unmarshal(m.Value, dst); err != nil || jsonpos.Kind(m.Value) == "null" {
			return nil, fmt.Errorf("%s:%d: %q must be a string, not %s; %s", path, m.Line, m.Key, jsonpos.Kind(m.Value), redo)
		}
	}
	if sections == nil {
		return nil, fmt.Errorf(`%s: "sections" is missing, so nothing would be gated; %s`, path, redo)
	}
	secs, err := jsonpos.Members(path, sections.Value)
	if err != nil {
		return nil, fmt.Errorf(`%s:%d: "sections" must be an object mapping section names to {"score", "se", "threshold", "items"}, not %s; %s`, path, sections.Line, jsonpos.Kind(sections.Value), redo)
	}
	f.Sections = map[string]*Section{}
	dupSection, _ := jsonpos.Repeat(secs)
	for i, m := range secs {
		if i == dupSection {
			return nil, fmt.Errorf("%s: sections.%s appears twice; JSON would keep only the last one, so remove one", path, m.Key)
		}
		s, err := parseSection(path, "sections."+m.Key, m.Value)
		if err != nil {
			return nil, err
		}
		f.Sections[m.Key] = s
	}
	return f, nil
}

// parseSection checks one section, found at where (sections.<name>).
func parseSection(path, where string, raw json.RawMessage) (*Section, error) {
	if jsonpos.Kind(raw) == "null" {
		return nil, fmt.Errorf("%s: %s is null; delete the section or record it with -update", path, where)
	}
	fields, err := jsonpos.Members(path, raw)
	if err != nil {
		return nil, fmt.Errorf(`%s: %s must be an object {"score", "se", "threshold", "items"}, not %s; %s`, path, where, jsonpos.Kind(raw), redo)
	}
	s := &Section{}
	dup, _ := jsonpos.Repeat(fields)
	for i, m := range fields {
		if i == dup {
			return nil, fmt.Errorf("%s: %s.%s appears twice; JSON would keep only the last one, so remove one", path, where, m.Key)
		}
		var dst *float64
		switch m.Key {
		case "score":
			dst = &s.Score
		case "se":
			dst = &s.SE
		case "threshold":
			dst = &s.Threshold
		case "items":
			if s.Items, err = parseItems(path, where+".items", m.Value); err != nil {
				return nil, err
			}
			continue
		default:
			return nil, fmt.Errorf("%s: %s: unknown field %q; a section has score, se, threshold and items: %s", path, where, m.Key, redo)
		}
		if err := json.Unmarshal(m.Value, dst); err != nil || jsonpos.Kind(m.Value) == "null" {
			return nil, fmt.Errorf("%s: %s.%s must be a number, not %s; %s", path, where, m.Key, jsonpos.Kind(m.Value), redo)
		}
	}
	if s.Threshold < 0 {
		return nil, fmt.Errorf("%s: %s.threshold is %v; want a number ≥ 0", path, where, s.Threshold)
	}
	if s.SE < 0 {
		return nil, fmt.Errorf("%s: %s.se is %v; want a number ≥ 0 (a standard error)", path, where, s.SE)
	}
	return s, nil
}

// parseItems checks a section's item outcomes, found at where.
func parseItems(path, where string, raw json.RawMessage) (map[string]string, error) {
	items, err := jsonpos.Members(path, raw)
	if err != nil {
		return nil, fmt.Errorf(`%s: %s must be an object mapping item ids to %q or %q, not %s; %s`, path, where, Pass, Fail, jsonpos.Kind(raw), redo)
	}
	out := make(map[string]string, len(items))
	dup, _ := jsonpos.Repeat(items)
	for i, m := range items {
		if i == dup {
			return nil, fmt.Errorf("%s: %s.%s appears twice; JSON would keep only the last one, so remove one", path, where, m.Key)
		}
		var o string
		if err := json.Unmarshal(m.Value, &o); err != nil {
			return nil, fmt.Errorf("%s: %s.%s is %s; want %q or %q", path, where, m.Key, bytes.TrimSpace(m.Value), Pass, Fail)
		}
		if o != Pass && o != Fail {
			return nil, fmt.Errorf("%s: %s.%s is %q; want %q or %q", path, where, m.Key, o, Pass, Fail)
		}
		out[m.Key] = o
	}
	return out, nil
}

// Item records one item's outcome. Called from the item's subtest, it
// fails that subtest when the item passed in the baseline and fails now. An item that failed in the
// baseline and passes now is logged.
func (g *Gate) Item(t testing.TB, id string, correct bool) {
	t.Helper()
	g.mu.Lock()
	g.now[id] = correct
	was := ""
	if g.base != nil {
		was = g.base.Items[id]
	}
	g.mu.Unlock()
	switch {
	case !correct && was == Pass && !g.update:
		t.Errorf("regression: %s passed in the baseline (%s, %s) and fails now", id, g.path, g.section)
	case correct && was == Fail:
		t.Logf("improvement: %s failed in the baseline (%s, %s) and passes now", id, g.path, g.section)
	}
}

// Narrowing is an option in effect that runs fewer items than a whole
// run: Option as the user types it ("-run", "-fb.tasks-dir") and Effect,
// what it does ("selects fewer", "names other tasks"). The gate names
// them when baseline items did not run, so the note blames the option
// that left them out, or none.
type Narrowing struct{ Option, Effect string }

// Finish closes the gate once every item has been recorded: with -update
// it writes the baseline; otherwise, when there is a baseline, it runs the
// "gate" subtest of t, which checks score (with its standard error se, in
// the same units) against the threshold and the item outcomes against the
// baseline's. A run with no score (μBench's index needs every item) passes
// math.NaN(): its items are still gated and recorded. narrowed are the
// options of this run that select fewer items.
func (g *Gate) Finish(t *testing.T, score, se float64, narrowed ...Narrowing) {
	t.Helper()
	g.mu.Lock()
	now := make(map[string]bool, len(g.now))
	for k, v := range g.now {
		now[k] = v
	}
	g.mu.Unlock()
	if g.update {
		old := g.base
		sec, kept, err := g.record(score, se, now)
		if err != nil {
			t.Fatalf("gate: %v", err)
		}
		t.Logf("gate: recorded %s (%s): score %.4g ± %.4g, threshold %.4g, %d items", g.path, g.section, sec.Score, sec.SE, sec.Threshold, len(sec.Items))
		for _, k := range kept {
			t.Log("gate: " + k)
		}
		if old != nil {
			t.Run("gate", func(t *testing.T) { g.compare(t, old, score, now, narrowed, false) })
		}
		return
	}
	if g.base == nil {
		return
	}
	t.Run("gate", func(t *testing.T) { g.compare(t, g.base, score, now, narrowed, true) })
}

// compare checks (or, when !fail, only reports) this run against base.
func (g *Gate) compare(t *testing.T, base *Section, score float64, now map[string]bool, narrowed []Narrowing, fail bool) {
	report := t.Logf
	if fail {
		report = t.Errorf
	}
	var regressed, improved, missing, added []string
	for id, o := range base.Items {
		c, ok := now[id]
		switch {
		case !ok:
			missing = append(missing, id)
		case o == Pass && !c:
			regressed = append(regressed, id)
		case o == Fail && c:
			improved = append(improved, id)
		}
	}
	for id := range now {
		if _, ok := base.Items[id]; !ok {
			added = append(added, id)
		}
	}
	sort.Strings(regressed)
	sort.Strings(improved)
	sort.Strings(added)
	from := fmt.Sprintf("baseline %s (%s)", g.path, g.section)

	switch {
	case math.IsNaN(score):
		t.Logf("gate: %s: no score this run: only the items are compared", g.label)
	case len(missing) == 0:
		if score < base.Threshold-1e-9 {
			report("gate: %s: score %.4g is below the threshold %.4g (%s: score %.4g ± %.4g)", g.label, score, base.Threshold, from, base.Score, base.SE)
		} else {
			t.Logf("gate: %s: score %.4g, threshold %.4g (%s: score %.4g ± %.4g)", g.label, score, base.Threshold, from, base.Score, base.SE)
		}
	default:
		t.Logf("gate: %s: %s", g.label, notRun(len(missing), len(base.Items), narrowed))
	}
	b, c := len(regressed), len(improved)
	p := stats.McNemarDrop(b, c)
	switch {
	case p < Alpha:
		report("gate: %s: %d items regressed and %d improved since the %s: a significant drop (exact McNemar test, one-sided, p = %.4g < %.2g). Regressed: %s",
			g.label, b, c, from, p, Alpha, list(regressed))
	case b > 0:
		t.Logf("gate: %s: %d items regressed and %d improved since the %s (exact McNemar test, one-sided, p = %.4g: not a significant drop). Regressed: %s",
			g.label, b, c, from, p, list(regressed))
	}
	if c > 0 {
		t.Logf("gate: %s: improved since the baseline: %s; record it with -update", g.label, list(improved))
	}
	if !math.IsNaN(score) && score > base.Score+1e-9 {
		t.Logf("gate: %s: score %.4g is above the baseline's %.4g; record it with -update", g.label, score, base.Score)
	}
	if len(added) > 0 {
		t.Logf("gate: %s: %d items are not in the baseline: %s", g.label, len(added), list(added))
	}
}

// notRun is the note on missing of the baseline's total items not
// running: it names the options that narrowed the run, or says that none
// did, so the items are gone from the data.
func notRun(missing, total int, narrowed []Narrowing) string {
	const unscored = "the score is not compared with the threshold"
	if len(narrowed) == 0 {
		return fmt.Sprintf("%d of the baseline's %d items did not run, and no option narrowed the run: the data no longer has them, "+
			"or the baseline was recorded with other options (record it again with -update); %s", missing, total, unscored)
	}
	why := make([]string, len(narrowed))
	for i, n := range narrowed {
		why[i] = n.Option + " " + n.Effect
	}
	return fmt.Sprintf("%d of the baseline's %d items did not run (%s): %s", missing, total, strings.Join(why, "; "), unscored)
}

// list names up to 20 ids.
func list(ids []string) string {
	if len(ids) > 20 {
		return strings.Join(ids[:20], ", ") + fmt.Sprintf(" and %d more", len(ids)-20)
	}
	return strings.Join(ids, ", ")
}

// record writes this run into the baseline file, keeping the file's other
// sections. A partial run (items of the old baseline missing) merges its
// items and keeps the recorded score; a hand-edited threshold is kept.
func (g *Gate) record(score, se float64, now map[string]bool) (*Section, []string, error) {
	fileMu.Lock()
	defer fileMu.Unlock()
	f, err := Load(g.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		f = &File{}
	case err != nil:
		return nil, nil, err
	}
	f.Suite, f.Model, f.Note = g.suite, g.model, note
	if f.Sections == nil {
		f.Sections = map[string]*Section{}
	}
	old := f.Sections[g.section]
	sec := &Section{Score: score, SE: se, Threshold: AutoThreshold(score, se), Items: map[string]string{}}
	var kept []string
	partial := 0
	if old != nil {
		for id, o := range old.Items {
			if _, ok := now[id]; !ok {
				sec.Items[id] = o
				partial++
			}
		}
	}
	switch {
	case math.IsNaN(score) && old == nil:
		sec.Score, sec.SE, sec.Threshold = 0, 0, 0 // items only
		kept = append(kept, "no score this run: only the items are gated")
	case math.IsNaN(score):
		sec.Score, sec.SE, sec.Threshold = old.Score, old.SE, old.Threshold
		kept = append(kept, "no score this run: kept the recorded score and threshold")
	case partial > 0:
		sec.Score, sec.SE, sec.Threshold = old.Score, old.SE, old.Threshold
		kept = append(kept, fmt.Sprintf("%d of the baseline's items did not run: kept their outcomes and the recorded score and threshold; run every item to re-record them", partial))
	case old != nil && old.Threshold != AutoThreshold(old.Score, old.SE):
		sec.Threshold = old.Threshold
		kept = append(kept, fmt.Sprintf("kept the hand-set threshold %.4g (the default would be %.4g)", old.Threshold, AutoThreshold(score, se)))
	}
	for id, ok := range now {
		sec.Items[id] = Fail
		if ok {
			sec.Items[id] = Pass
		}
	}
	f.Sections[g.section] = sec
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, nil, err
	}
	if err := atomicfile.Write(g.path, append(b, '\n')); err != nil {
		return nil, nil, err
	}
	g.mu.Lock()
	g.base = sec
	g.mu.Unlock()
	return sec, kept, nil
}
