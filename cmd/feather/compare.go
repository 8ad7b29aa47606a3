package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/feather-eval/feather/harness/report/compare"
	"github.com/feather-eval/feather/harness/report/runs"
	"github.com/feather-eval/feather/internal/atomicfile"
)

func init() {
	register("compare", "compare two models, or one model in two runs, item by item with paired statistics", runCompare)
}

// defaultRun is the run two models are compared in when no run
// directory is given.
const defaultRun = "results/latest"

// runCompare writes the comparison of B with A as Markdown; with
// --fail-on-regression it exits 1 when B is significantly worse.
func runCompare(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	model := fs.String("model", "", "with two run directories, compare only this `model` (default: every model both runs have)")
	out := fs.String("out", "", "write the Markdown to this `file` instead of standard output")
	failOn := fs.Bool("fail-on-regression", false, "exit 1 when B is significantly worse than A in some suite (p < 0.05), for CI")
	setUsage(fs, "compare", "A B [RUN_DIR...] [--model KEY] [--out FILE] [--fail-on-regression]", `
A and B are two run directories, to compare a model with itself in two runs (before and after a
fine-tune, last week and today); or two models of the runs given (default: `+defaultRun+`);
MODEL@RUN names a model in one run, RUN a run directory or the stamp of one given.
For each suite, over the items both answered: each side's score, the discordant counts, the exact
McNemar p-value and B − A with its 95% interval; for μBench the domain and index differences with
their standard errors; then every item whose outcome differs, and the items one side lacks or
that errored, counted and listed apart. Exits 0, or 1 with --fail-on-regression when B is
significantly worse than A.

  feather compare alpha beta                                  two models in results/latest
  feather compare results/20260704T101530Z results/latest     each model in both runs
  feather compare smoke@results/20260704T101530Z smoke@results/latest --fail-on-regression`)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return parseFailed(err)
	}
	fail := failer(stderr, "compare")
	var dirs []string
	var sides []sideSpec
	for _, a := range pos {
		if isDir(a) {
			dirs = append(dirs, a)
			continue
		}
		s := sideSpec{arg: a, model: a}
		if m, run, ok := strings.Cut(a, "@"); ok {
			s.model, s.run = m, run
			if isDir(run) {
				s.dir = run
				dirs = append(dirs, run)
			}
		}
		if s.model == "" {
			return fail(2, "%q names no model; write MODEL or MODEL@RUN", a)
		}
		sides = append(sides, s)
	}
	twoRuns := len(sides) == 0 && len(dirs) == 2
	switch {
	case twoRuns:
	case len(sides) == 2:
		if len(dirs) == 0 {
			dirs = []string{defaultRun}
		}
		if *model != "" {
			return fail(2, "--model is for two run directories; name the models as A and B instead")
		}
	default:
		fs.Usage()
		return fail(2, "give A and B: two run directories, or two models (MODEL or MODEL@RUN) and the run directories they are in")
	}
	for _, d := range dirs {
		if !isDir(d) {
			return fail(2, "%s is not a run directory; run the suites first (make bench), or pass run directories such as results/<stamp>", d)
		}
	}
	set, err := runs.Load(dedupe(dirs), runs.Options{NoTasks: true})
	if err == nil && set.Empty() {
		err = fmt.Errorf("no suite results in %s", strings.Join(dirs, ", "))
	}
	if err != nil {
		return fail(1, "%v", err)
	}
	for _, n := range set.Notes {
		fmt.Fprintln(stderr, "feather compare: "+n)
	}
	cs := compare.FromRuns(set)
	var pairs [][2]string
	if twoRuns {
		pairs, err = runPairs(cs, dirs[0], dirs[1], *model)
	} else {
		var a, b string
		if a, err = sides[0].resolve(cs, dirs); err == nil {
			b, err = sides[1].resolve(cs, dirs)
		}
		pairs = [][2]string{{a, b}}
	}
	if err != nil {
		return fail(2, "%v", err)
	}
	var md []string
	var regressions []string
	for _, p := range pairs {
		c, err := cs.Compare(p[0], p[1])
		if err != nil {
			return fail(2, "%v", err)
		}
		md = append(md, c.Markdown())
		regressions = append(regressions, c.Regressions()...)
	}
	text := strings.Join(md, "\n")
	if *out != "" {
		if err := atomicfile.Write(*out, []byte(text)); err != nil {
			return fail(1, "%v", err)
		}
		fmt.Fprintf(stderr, "feather compare: wrote %s\n", *out)
	} else {
		fmt.Fprint(stdout, text)
	}
	if *failOn && len(regressions) > 0 {
		return fail(1, "B is significantly worse than A (--fail-on-regression):\n  %s", strings.Join(regressions, "\n  "))
	}
	return 0
}

// sideSpec is A or B as typed: MODEL, MODEL@STAMP or MODEL@RUN_DIR.
type sideSpec struct {
	arg, model, run, dir string
}

// resolve finds the side the spec names among cs's.
func (s sideSpec) resolve(cs *compare.Set, dirs []string) (string, error) {
	stamp := s.run
	if s.dir != "" {
		var err error
		if stamp, err = stampOf(s.dir); err != nil {
			return "", err
		}
	}
	var found []compare.Side
	var models []string
	seen := map[string]bool{}
	for _, sd := range cs.Sides {
		if !seen[sd.Model] {
			seen[sd.Model] = true
			models = append(models, sd.Model)
		}
		if sd.Model == s.model && (stamp == "" || sd.Run == stamp) {
			found = append(found, sd)
		}
	}
	switch {
	case len(found) == 1:
		return found[0].ID, nil
	case len(found) > 1:
		var ids []string
		for _, sd := range found {
			ids = append(ids, s.model+"@"+sd.Run)
		}
		return "", fmt.Errorf("%s is in %d runs; name one: %s", s.model, len(found), strings.Join(ids, ", "))
	case seen[s.model]:
		return "", fmt.Errorf("%s has no results in run %s; its runs: %s", s.model, stamp, strings.Join(runsOf(cs, s.model), ", "))
	}
	sort.Strings(models)
	return "", fmt.Errorf("no model %q in %s; the runs hold: %s", s.model, strings.Join(dirs, ", "), strings.Join(models, ", "))
}

func runsOf(cs *compare.Set, model string) []string {
	var out []string
	for _, sd := range cs.Sides {
		if sd.Model == model {
			out = append(out, sd.Run)
		}
	}
	return out
}

// runPairs pairs each model of run a with itself in run b: the one
// named, or every model both runs hold.
func runPairs(cs *compare.Set, dirA, dirB, model string) ([][2]string, error) {
	a, err := stampOf(dirA)
	if err != nil {
		return nil, err
	}
	b, err := stampOf(dirB)
	if err != nil {
		return nil, err
	}
	if a == b {
		return nil, fmt.Errorf("%s and %s are the same run (%s); name two runs, or two models", dirA, dirB, a)
	}
	in := func(run string) map[string]bool {
		m := map[string]bool{}
		for _, sd := range cs.Sides {
			if sd.Run == run {
				m[sd.Model] = true
			}
		}
		return m
	}
	inA, inB := in(a), in(b)
	var pairs [][2]string
	for _, sd := range cs.Sides {
		if sd.Run != a || !inB[sd.Model] || (model != "" && sd.Model != model) {
			continue
		}
		pairs = append(pairs, [2]string{sd.ID, sd.Model + "@" + b})
	}
	if len(pairs) > 0 {
		return pairs, nil
	}
	if model != "" {
		return nil, fmt.Errorf("--model %s is not in both runs: %s has %s; %s has %s", model, a, keys(inA), b, keys(inB))
	}
	return nil, fmt.Errorf("runs %s and %s have no model in common (%s has %s; %s has %s): to compare two models, name them as MODEL@RUN",
		a, b, a, keys(inA), b, keys(inB))
}

func keys(m map[string]bool) string {
	if len(m) == 0 {
		return "none"
	}
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// stampOf is the run a run directory holds, as the sides name it.
func stampOf(dir string) (string, error) {
	set, err := runs.Load([]string{dir}, runs.Options{NoTasks: true})
	if err != nil {
		return "", err
	}
	st := set.Stamps()
	if len(st) != 1 {
		return "", fmt.Errorf("%s holds %d runs; pass one run directory per side", dir, len(st))
	}
	return st[0], nil
}

func isDir(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.IsDir()
}

func dedupe(xs []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
