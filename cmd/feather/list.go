package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/suites/featherbench"
)

func init() {
	register("list", "list the models of a catalog, the Featherbench tasks or the μBench tasks", runList)
}

const listArgs = "models [-catalog FILE] | tasks [-tasks DIR] | microbench [-microbench DIR]"

func runList(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("list", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cat := fs.String("catalog", "models/models.json", "the model catalog `file` whose models to list")
	tasksDir := fs.String("tasks", defaultTasksDir, "the Featherbench task `folder` whose tasks to list")
	mbDir := fs.String("microbench", defaultMBData, "the μBench hand-written items `folder` whose tasks to list")
	setUsage(fs, "list", listArgs, "")
	positional, err := parseInterspersed(fs, args)
	if err != nil {
		return parseFailed(err)
	}
	fail := failer(stderr, "list")
	if len(positional) != 1 {
		return fail(2, "want one of models, tasks or microbench, got %d arguments\nusage: feather list %s", len(positional), listArgs)
	}
	what := positional[0]
	w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	defer w.Flush()
	switch what {
	case "models":
		c, err := catalog.Load(*cat)
		if err != nil {
			return fail(1, "%v", err)
		}
		fmt.Fprintln(w, "KEY\tBACKEND\tENABLED\tMODEL")
		for _, e := range c.Entries {
			fmt.Fprintf(w, "%s\t%s\t%v\t%s\n", e.Key, e.Backend, e.Enabled, e.Settings.Target())
		}
	case "tasks":
		ts, err := featherbench.LoadDir(*tasksDir)
		if err != nil {
			return fail(1, "%v", err)
		}
		fmt.Fprintln(w, "ID\tCATEGORY\tCHECKER\tRUBRIC\tREFUSAL\tTOOLS\tHASH")
		for _, t := range ts {
			checker := "-"
			if t.Scored() {
				checker = "yes"
			}
			rubric := "-"
			if t.Rubric != nil {
				rubric = fmt.Sprintf("%d criteria", len(t.Rubric.Criteria))
			}
			var tools []string
			for _, tl := range t.Tools {
				tools = append(tools, tl.Name)
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.ID, t.Category, checker, rubric, t.Refusal, orDash(strings.Join(tools, ",")), t.Hash)
		}
	case "microbench":
		ts, err := loadMicrobench(*mbDir)
		if err != nil {
			return fail(1, "%v", err)
		}
		fmt.Fprintln(w, "TASK\tDOMAIN\tREDUCTION\tGROUPED\tITEMS\tNAME")
		for _, t := range ts {
			fmt.Fprintf(w, "%s\t%s\t%s\t%v\t%d\t%s\n", t.ID, t.Domain, t.Reduction, t.Grouped, len(t.Items), t.Name)
		}
	default:
		return fail(2, "unknown list %q; want models, tasks or microbench\nusage: feather list %s", what, listArgs)
	}
	return 0
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
