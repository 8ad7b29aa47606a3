package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/suites/audit"
	"github.com/feather-eval/feather/harness/suites/featherbench"
	"github.com/feather-eval/feather/harness/suites/featherbench/sandbox"
	"github.com/feather-eval/feather/harness/suites/featherweight"
	"github.com/feather-eval/feather/harness/suites/microbench"
	"github.com/feather-eval/feather/internal/plural"
)

func init() {
	register("validate", "check model catalogs, Featherbench tasks, Featherweight data and μBench items", runValidate)
}

// The repository's own files, validated when no flag names others.
const (
	defaultCatalogGlob = "models/*.json"
	defaultTasksDir    = "tasks"
	defaultFWData      = "testdata/featherweight/featherweight.jsonl"
	defaultMBData      = "testdata/microbench"
)

const validateDetails = `
Loads each file the way a run would and prints "ok" with what it holds, or
"FAIL" with every problem, naming the file and the line or field. A task
folder (-tasks) holds Featherbench task files named <category>-<name>.json;
Featherweight and μBench items are followed by their shortcut audit. With
no flag naming a file, the repository's own are checked: ` + defaultCatalogGlob + `,
` + defaultTasksDir + `/, ` + defaultFWData + ` and ` + defaultMBData + `/.
-featherbench also runs every task's checker on its answer sets (the
samples/ and blind/ folders beside the tasks) and prints, per task and per
category, how many good answers pass and bad answers fail in each set, then
each answer the checker gets wrong; only an unreadable answer file or a
checker that cannot run fails validation.
Exit status: 0 every file is valid, 1 some file is not, 2 bad usage.`

type stringList []string

func (l *stringList) String() string     { return fmt.Sprint(*l) }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

// runValidate loads every file the way a run would and reports each one,
// so a broken file is found before a long run starts. Exit 1 when any file
// is invalid, 2 on bad usage.
func runValidate(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var catalogs stringList
	fs.Var(&catalogs, "catalog", "a model catalog `file` to check (repeatable; default "+defaultCatalogGlob+")")
	tasks := fs.String("tasks", "", "a Featherbench task `folder` (default "+defaultTasksDir+")")
	answerSets := fs.Bool("featherbench", false, "also run every task's checker on its answer sets (samples/ and blind/ beside the tasks) and print the rate on each set per task")
	unisolated := fs.Bool("allow-unisolated", false, "with -featherbench, run python_tests code with limits only when neither bubblewrap nor user namespaces work here (no network or filesystem isolation)")
	fw := fs.String("featherweight", "", "a Featherweight JSONL `file` (default "+defaultFWData+")")
	mb := fs.String("microbench", "", "the μBench hand-written items `folder` (default "+defaultMBData+")")
	tokDir := fs.String("tokenizer", "", "a tokenizer `folder` (tokenizer.json) that adds token-length columns to the shortcut audit")
	setUsage(fs, "validate", "[-catalog FILE]... [-tasks DIR] [-featherbench] [-featherweight FILE] [-microbench DIR] [-tokenizer DIR]", validateDetails)
	if err := fs.Parse(args); err != nil {
		return parseFailed(err)
	}
	if fs.NArg() > 0 {
		return failer(stderr, "validate")(2, "unexpected argument %q; name files with -catalog, -tasks, -featherweight or -microbench", fs.Arg(0))
	}
	if len(catalogs) == 0 && *tasks == "" && *fw == "" && *mb == "" {
		var err error
		if catalogs, *tasks, *fw, *mb, err = repositoryDefaults(); err != nil {
			return failer(stderr, "validate")(2, "%v", err)
		}
	}

	if *answerSets && *tasks == "" {
		return failer(stderr, "validate")(2, "-featherbench runs the checkers on a task folder's answer sets; name the folder with -tasks DIR")
	}
	sandbox.AllowUnisolated(*unisolated)

	tok, err := validateTokenizer(*tokDir)
	if err != nil {
		return failer(stderr, "validate")(2, "%v", err)
	}
	bad := 0
	report := func(what, path string, err error, ok string) {
		if err != nil {
			bad++
			fmt.Fprintf(stdout, "FAIL %s %s\n%v\n", what, path, err)
			return
		}
		fmt.Fprintf(stdout, "ok   %s %s: %s\n", what, path, ok)
	}
	for _, p := range catalogs {
		c, err := catalog.Load(p)
		ok := ""
		if err == nil {
			enabled := 0
			for _, e := range c.Entries {
				if e.Enabled {
					enabled++
				}
			}
			ok = fmt.Sprintf("%s, %d enabled", plural.Of(len(c.Entries), "model"), enabled)
		}
		report("catalog", p, err, ok)
	}
	if *tasks != "" {
		ts, err := featherbench.LoadDir(*tasks)
		if err == nil && len(ts) == 0 {
			err = featherbench.NoTasks(*tasks, "-tasks")
		}
		report("tasks", *tasks, err, plural.Of(len(ts), "task"))
		if err == nil && *answerSets {
			if err := validateAnswerSets(stdout, *tasks, ts); err != nil {
				report("featherbench answers", *tasks, err, "")
			}
		}
	}
	if *fw != "" {
		ds, err := featherweight.Load(*fw)
		ok, checkErr := "", err
		if err == nil {
			// The content checks: text that would turn a correct prose
			// answer into a wrong letter or a parse error.
			var rc featherweight.ReplyCheck
			rc, checkErr = featherweight.CheckContent(ds)
			ok = fmt.Sprintf("%s, lint clean, %d realistic replies extract to the letter they mean", plural.Of(len(ds.Items), "item"), rc.Total)
		}
		report("featherweight", *fw, checkErr, ok)
		if err == nil {
			if tab, err := audit.Featherweight(context.Background(), ds.Items, tok); err != nil {
				report("featherweight audit", *fw, err, "")
			} else {
				printAudit(stdout, tab)
			}
		}
	}
	if *mb != "" {
		ts, err := loadMicrobench(*mb)
		ok := ""
		if err == nil {
			n := 0
			for _, t := range ts {
				n += len(t.Items)
			}
			ok = plural.Of(len(ts), "task") + ", " + plural.Of(n, "item")
		}
		report("microbench", *mb, err, ok)
		if err == nil {
			if tab, err := audit.Microbench(context.Background(), ts, tok); err != nil {
				report("microbench audit", *mb, err, "")
			} else {
				printAudit(stdout, tab)
			}
		}
	}
	if bad > 0 {
		return 1
	}
	return 0
}

func loadMicrobench(dir string) ([]*microbench.Task, error) {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%s is not a folder; point -microbench at the folder of hand-written items (%s in this repository)", dir, defaultMBData)
	}
	return microbench.Load(os.DirFS(dir))
}
