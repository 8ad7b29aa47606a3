// Package samples reads a Featherbench task's answer sets and measures its
// checker against them. A set is a folder beside the task files holding one
// golang.org/x/tools/txtar archive per task, <set>/<id>.txtar: answers that
// must pass (good), answers that must fail (bad), and bad answers the
// checker cannot tell apart, which a named rubric criterion catches.
//
// Two sets ship: samples/, written with the checks, and blind/, written
// from the prompt alone by people who never saw the checker or the rubric.
// A checker tuned to its own samples shows on the blind set.
package samples

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"

	"golang.org/x/tools/txtar"

	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/suites/featherbench"
	"github.com/feather-eval/feather/harness/suites/featherbench/checkers"
)

// Set is one answer set: a folder beside the tasks and the first line its
// archives' comment starts with.
type Set struct {
	Name   string // "samples", "blind" or "holdout": the folder, and the set's name in reports
	header string // the comment's first line, with %s for the task id
	// Optional: a tasks folder need not have this set, and reports leave
	// it out when no task has it.
	Optional bool
}

// Sets are the shipped answer sets, in the order reports show them.
var Sets = []Set{
	{Name: "samples", header: "Sample answers for %s."},
	{Name: "blind", header: "Blind answers for %s, written from the prompt alone."},
	{Name: "holdout", header: "Holdout answers for %s, written from the prompt alone.", Optional: true},
}

// Path is the archive of task id's answers in the set, under tasksDir.
func (s Set) Path(tasksDir, id string) string {
	return filepath.Join(tasksDir, s.Name, id+".txtar")
}

// Answer is one answer of a set, as the checker sees it and as its comment
// line describes it.
type Answer struct {
	Name   string // the file name in the archive: good-<style>, bad-<why>, rubric-<why>
	Reason string // its comment line, after "<name>: "

	// Good is what a careful grader says of the answer: true when it must
	// pass the checker. It is the name's kind unless the comment line
	// reclassifies it ("[reclassified as bad: …]").
	Good bool
	// Reclassified is the reason the answer's kind differs from its name;
	// "" when it does not.
	Reclassified string
	// Criterion is, for a bad answer the checker cannot tell apart, the
	// 1-based rubric criterion that catches it: named in the reason of a
	// rubric-<why> answer ("rubric criterion 2"), or by a marker on a bad
	// answer's line ("[rubric criterion 2]"). 0 otherwise.
	Criterion int

	Response checkers.Response
}

// Gap reports whether the answer is documented as a wrong answer the
// checker passes: it must pass the checker, and its criterion catches it.
func (a Answer) Gap() bool { return a.Criterion > 0 }

var (
	// rubricRef names the criterion in a rubric-<why> answer's reason.
	rubricRef = regexp.MustCompile(`rubric criterion (\d+)`)
	// rubricMark marks a bad answer the checker cannot tell apart.
	rubricMark = regexp.MustCompile(`\[rubric criterion (\d+)\]`)
	// reclassMark gives a grader's verdict against the answer's name.
	reclassMark = regexp.MustCompile(`\[reclassified as (good|bad): ([^\]]+)\]`)
)

// kind is "good", "bad" or "rubric" for an answer file name, or "".
func kind(name string) string {
	for _, k := range []string{"good", "bad", "rubric"} {
		if name == k && k != "rubric" || strings.HasPrefix(name, k+"-") && len(name) > len(k)+1 {
			return k
		}
	}
	return ""
}

// Read parses task's archive in set s under tasksDir. An archive that is
// missing is reported with os.ErrNotExist; unknown file names, answers
// without a reason line, malformed tool calls, calls of tools the task does
// not offer and criteria the rubric lacks are errors naming the archive.
func (s Set) Read(tasksDir string, task featherbench.Task) ([]Answer, error) {
	path := s.Path(tasksDir, task.ID)
	ar, err := txtar.ParseFile(path)
	if err != nil {
		return nil, err
	}
	fail := func(format string, args ...any) ([]Answer, error) {
		return nil, fmt.Errorf("%s: %s", path, fmt.Sprintf(format, args...))
	}
	lines := strings.Split(strings.TrimSpace(string(ar.Comment)), "\n")
	if want := fmt.Sprintf(s.header, task.ID); lines[0] != want {
		return fail("the comment's first line must be %q, not %q", want, lines[0])
	}
	reasons := map[string]string{}
	for _, line := range lines[1:] {
		name, reason, ok := strings.Cut(line, ": ")
		if !ok || kind(name) == "" {
			return fail("comment line %q must be \"<answer name>: <reason>\"", line)
		}
		if _, dup := reasons[name]; dup {
			return fail("two reasons for %s", name)
		}
		reasons[name] = strings.TrimSpace(reason)
	}
	texts := map[string]string{}
	calls := map[string][]lm.ToolCall{}
	for _, f := range ar.Files {
		switch {
		case strings.HasSuffix(f.Name, ".tool_calls.json"):
			var list []lm.ToolCall
			dec := json.NewDecoder(bytes.NewReader(f.Data))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&list); err != nil {
				return fail("%s must be a JSON list of {\"name\", \"args\"}: %v", f.Name, err)
			}
			calls[strings.TrimSuffix(f.Name, ".tool_calls.json")] = list
		case kind(f.Name) != "":
			if _, dup := texts[f.Name]; dup {
				return fail("%s appears twice", f.Name)
			}
			texts[f.Name] = string(f.Data)
		default:
			return fail("unknown file %q; use good, good-<style>, bad, bad-<why>, rubric-<why> and <answer>.tool_calls.json", f.Name)
		}
	}
	for name := range calls {
		if _, ok := texts[name]; !ok {
			return fail("%s.tool_calls.json has no answer %q", name, name)
		}
	}
	for name := range reasons {
		if _, ok := texts[name]; !ok {
			return fail("the comment gives a reason for %s, which is not in the file", name)
		}
	}
	offered := map[string]bool{}
	for _, tool := range task.Tools {
		offered[tool.Name] = true
	}
	criteria := 0
	if task.Rubric != nil {
		criteria = len(task.Rubric.Criteria)
	}
	names := make([]string, 0, len(texts))
	for name := range texts {
		names = append(names, name)
	}
	sort.Strings(names)
	out := make([]Answer, 0, len(names))
	for _, name := range names {
		reason := reasons[name]
		if reason == "" {
			return fail("add a comment line \"%s: <why it passes or fails>\"", name)
		}
		for _, c := range calls[name] {
			if !offered[c.Name] {
				return fail("%s calls %q, which the task does not offer", name, c.Name)
			}
		}
		a := Answer{Name: name, Reason: reason, Good: kind(name) == "good", Response: checkers.Response{Text: texts[name], ToolCalls: calls[name]}}
		if m := reclassMark.FindStringSubmatch(reason); m != nil {
			if kind(name) == "rubric" || (m[1] == "good") == a.Good {
				return fail("%s is reclassified as %s, which its name already says; reclassify a good answer as bad or a bad one as good", name, m[1])
			}
			a.Good, a.Reclassified = m[1] == "good", strings.TrimSpace(m[2])
		}
		var ref []string
		switch {
		case kind(name) == "rubric":
			if ref = rubricRef.FindStringSubmatch(reason); ref == nil {
				return fail("%s's reason must name the rubric criterion that catches it (\"rubric criterion N\")", name)
			}
		case rubricMark.MatchString(reason):
			if a.Good {
				return fail("%s must pass, so no rubric criterion needs to catch it; drop its \"[rubric criterion N]\"", name)
			}
			ref = rubricMark.FindStringSubmatch(reason)
		}
		if ref != nil {
			if criteria == 0 {
				return fail("%s names a rubric criterion, but the task has no rubric", name)
			}
			n, _ := strconv.Atoi(ref[1])
			if n < 1 || n > criteria {
				return fail("%s names rubric criterion %d; the task has %d", name, n, criteria)
			}
			a.Criterion = n
		}
		out = append(out, a)
	}
	return out, nil
}

// Verdict is the checker's verdict on one answer.
type Verdict struct {
	Answer
	Passed bool
	Detail string
}

// Wrong reports whether the checker disagrees with the grader: a good
// answer that fails, or a bad one that passes.
func (v Verdict) Wrong() bool { return v.Passed != v.Good }

// Measure runs task's checker on every answer. An error is the checker's
// own failure (an interpreter missing, a pattern that ran away), named
// with the answer.
func Measure(ctx context.Context, task featherbench.Task, answers []Answer) ([]Verdict, error) {
	out := make([]Verdict, 0, len(answers))
	for _, a := range answers {
		passed, detail, err := task.Check(ctx, a.Response)
		if err != nil {
			return nil, fmt.Errorf("%s: the checker itself failed on %s: %w", task.ID, a.Name, err)
		}
		out = append(out, Verdict{Answer: a, Passed: passed, Detail: detail})
	}
	return out, nil
}

// Figures count one set's verdicts for a task, a category or the library.
type Figures struct {
	Good        int // good answers
	FalseFails  int // good answers the checker fails
	Bad         int // bad answers, rubric gaps included
	FalsePasses int // bad answers the checker passes
	Covered     int // false passes whose answer names the rubric criterion that catches it
}

// Tally counts verdicts.
func Tally(vs []Verdict) Figures {
	var f Figures
	for _, v := range vs {
		switch {
		case v.Good:
			f.Good++
			if !v.Passed {
				f.FalseFails++
			}
		default:
			f.Bad++
			if v.Passed {
				f.FalsePasses++
				if v.Gap() {
					f.Covered++
				}
			}
		}
	}
	return f
}

// Add sums two tallies.
func (f Figures) Add(g Figures) Figures {
	return Figures{f.Good + g.Good, f.FalseFails + g.FalseFails, f.Bad + g.Bad, f.FalsePasses + g.FalsePasses, f.Covered + g.Covered}
}

// String is the figures in words: "good 4, 0 fail (0.0%); bad 5, 1 pass (20.0%), 1 named by a rubric criterion".
func (f Figures) String() string {
	return fmt.Sprintf("good %d, %d fail (%s); bad %d, %d pass (%s), %d named by a rubric criterion",
		f.Good, f.FalseFails, pct(f.FalseFails, f.Good), f.Bad, f.FalsePasses, pct(f.FalsePasses, f.Bad), f.Covered)
}

// Rates is the figures as a table cell: "4/4 good pass, 5/5 bad fail" with
// the rubric-covered passes noted.
func (f Figures) Rates() string {
	s := fmt.Sprintf("%d/%d good pass, %d/%d bad fail", f.Good-f.FalseFails, f.Good, f.Bad-f.FalsePasses, f.Bad)
	if f.Covered > 0 {
		s += fmt.Sprintf(" (+%d for the rubric)", f.Covered)
	}
	return s
}

func pct(n, of int) string {
	if of == 0 {
		return "-"
	}
	return strconv.FormatFloat(100*float64(n)/float64(of), 'f', 1, 64) + "%"
}

// Result is one task's verdicts on each set; a set the task has no archive
// for is absent.
type Result struct {
	Task featherbench.Task
	Sets map[string][]Verdict
}

// MeasureLibrary reads and measures every task's archive in every set,
// several tasks at a time (checkers that run code take a while). A task
// with no archive in a set is left out of that set; any other problem is
// an error.
func MeasureLibrary(ctx context.Context, tasksDir string, tasks []featherbench.Task) ([]Result, error) {
	out := make([]Result, len(tasks))
	errs := make([]error, len(tasks))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i], errs[i] = measureTask(ctx, tasksDir, tasks[i])
			}
		}()
	}
	for i := range tasks {
		next <- i
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// measureTask measures one task on every set it has an archive in.
func measureTask(ctx context.Context, tasksDir string, task featherbench.Task) (Result, error) {
	r := Result{Task: task, Sets: map[string][]Verdict{}}
	for _, s := range Sets {
		answers, err := s.Read(tasksDir, task)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return r, err
		}
		vs, err := Measure(ctx, task, answers)
		if err != nil {
			return r, err
		}
		r.Sets[s.Name] = vs
	}
	return r, nil
}

// Group is a row of a report: a task, a category or the whole library,
// with its figures per set.
type Group struct {
	Name string
	Sets map[string]Figures
}

// ByCategory sums the results per category, sorted by name, and adds an
// "all" row.
func ByCategory(results []Result) []Group {
	var out []Group
	index := map[string]int{}
	all := Group{Name: "all", Sets: map[string]Figures{}}
	for _, r := range results {
		i, ok := index[r.Task.Category]
		if !ok {
			i = len(out)
			index[r.Task.Category] = i
			out = append(out, Group{Name: r.Task.Category, Sets: map[string]Figures{}})
		}
		for set, vs := range r.Sets {
			f := Tally(vs)
			out[i].Sets[set] = out[i].Sets[set].Add(f)
			all.Sets[set] = all.Sets[set].Add(f)
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Name < out[b].Name })
	return append(out, all)
}

// ByTask is one row per task.
func ByTask(results []Result) []Group {
	out := make([]Group, 0, len(results))
	for _, r := range results {
		g := Group{Name: r.Task.ID, Sets: map[string]Figures{}}
		for set, vs := range r.Sets {
			g.Sets[set] = Tally(vs)
		}
		out = append(out, g)
	}
	return out
}

// Shown are the sets a report of groups shows: every set but an optional
// one no group has answers in.
func Shown(groups []Group) []Set {
	var out []Set
	for _, s := range Sets {
		has := !s.Optional
		for _, g := range groups {
			_, ok := g.Sets[s.Name]
			has = has || ok
		}
		if has {
			out = append(out, s)
		}
	}
	return out
}

// WriteTable writes groups as a table, one column per set: each cell is
// the set's Rates, "-" when the group has no answers in it.
func WriteTable(w io.Writer, first string, groups []Group) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, first)
	shown := Shown(groups)
	for _, s := range shown {
		fmt.Fprint(tw, "\t"+s.Name)
	}
	fmt.Fprintln(tw)
	for _, g := range groups {
		fmt.Fprint(tw, g.Name)
		for _, s := range shown {
			cell := "-"
			if f, ok := g.Sets[s.Name]; ok {
				cell = f.Rates()
			}
			fmt.Fprint(tw, "\t"+cell)
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}
