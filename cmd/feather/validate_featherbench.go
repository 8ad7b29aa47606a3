package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/feather-eval/feather/harness/suites/featherbench"
	"github.com/feather-eval/feather/harness/suites/featherbench/checkers/samples"
	"github.com/feather-eval/feather/internal/plural"
)

// validateAnswerSets runs every task's checker on its answer sets and
// prints the rate on each set per task and per category, then every
// answer the checker gets wrong with the checker's detail. A wrong verdict
// is reported, not failed: the sets measure the checkers. The error is an
// answer file that cannot be read or a checker that cannot run.
func validateAnswerSets(w io.Writer, dir string, tasks []featherbench.Task) error {
	results, err := samples.MeasureLibrary(context.Background(), dir, tasks)
	if err != nil {
		return err
	}
	groups := samples.ByCategory(results)
	var counts []string
	for _, s := range samples.Shown(groups) {
		f := groups[len(groups)-1].Sets[s.Name]
		counts = append(counts, fmt.Sprintf("%s in %s/", plural.Of(f.Good+f.Bad, "answer"), s.Name))
	}
	fmt.Fprintf(w, "ok   featherbench answers %s: %s (good answers that pass, bad answers that fail; \"for the rubric\": bad answers that pass and name the rubric criterion that catches them)\n", dir, strings.Join(counts, ", "))
	if err := samples.WriteTable(w, "task", samples.ByTask(results)); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if err := samples.WriteTable(w, "category", groups); err != nil {
		return err
	}
	for _, r := range results {
		for _, s := range samples.Sets {
			for _, v := range r.Sets[s.Name] {
				if !v.Wrong() || v.Gap() {
					continue
				}
				verdict := "a good answer fails"
				if !v.Good {
					verdict = "a bad answer passes"
				}
				fmt.Fprintf(w, "wrong %s %s/%s: %s (%s): %s\n", r.Task.ID, s.Name, v.Name, verdict, v.Reason, clipDetail(v.Detail))
			}
		}
	}
	return nil
}

// clipDetail keeps a checker's detail to one readable line.
func clipDetail(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 300 {
		return string(r[:300]) + "…"
	}
	return s
}
