package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/feather-eval/feather/harness/report"
)

func init() {
	register("report", "turn run directories and go test results into Markdown and self-contained HTML", runReport)
}

// runReport writes, for each suite in the run directories and for the test
// events or JUnit given, a Markdown summary and an HTML page that opens
// from disk.
func runReport(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	events := fs.String("events", "", "go test -json events `file` (gotestsum --jsonfile) to report as well")
	junit := fs.String("junit", "", "JUnit XML `file` (gotestsum --junitfile) to report as well")
	out := fs.String("out", "", "output `directory` (default: RUN_DIR/report for one run directory, or report/ beside the test results)")
	tasks := fs.String("tasks", "", "Featherbench task `directory`, for categories and prompts (default: the folder each run recorded, else tasks/)")
	setUsage(fs, "report", "RUN_DIR... [--events test-events.json] [--junit junit.xml] [--out DIR] [--tasks DIR]", `
RUN_DIR is a run directory such as results/latest or results/<stamp>. Writes <suite>.md and
<suite>.html for each suite found, tests.md and tests.html for go test results, and index.html.
The run directories of a sharded run (-shard i/n), or a folder of them, are merged into one run.`)
	dirs, err := parseInterspersed(fs, args)
	if err != nil {
		return parseFailed(err)
	}
	fail := failer(stderr, "report")
	if len(dirs) == 0 && *events == "" && *junit == "" {
		fs.Usage()
		return fail(2, "give at least one run directory, --events or --junit")
	}
	if *out == "" {
		switch {
		case len(dirs) == 1:
			*out = filepath.Join(dirs[0], "report")
		case len(dirs) > 1:
			return fail(2, "several run directories: say where the combined report goes with --out DIR")
		case *events != "":
			*out = filepath.Join(filepath.Dir(*events), "report")
		default:
			*out = filepath.Join(filepath.Dir(*junit), "report")
		}
	}
	written, err := report.Build(report.Options{RunDirs: dirs, Events: *events, JUnit: *junit, TasksDir: *tasks, DefaultTasksDir: defaultTasks(), Out: *out})
	if err != nil {
		return fail(1, "%v", err)
	}
	for _, p := range written {
		fmt.Fprintln(stdout, p)
	}
	fmt.Fprintf(stdout, "open %s\n", filepath.Join(*out, report.IndexFile))
	return 0
}

// defaultTasks is the task folder read for runs that recorded none of
// their own (runs made before runs recorded it): tasks/ when it exists.
func defaultTasks() string {
	if info, err := os.Stat("tasks"); err == nil && info.IsDir() {
		return "tasks"
	}
	return ""
}
