package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/feather-eval/feather/harness/report/leaderboard"
	"github.com/feather-eval/feather/harness/report/runs"
)

func init() {
	register("leaderboard", "merge run directories into per-suite Markdown leaderboards and summary.json", runLeaderboard)
}

// runLeaderboard merges runs into leaderboard.md and summary.json and
// prints the Markdown.
func runLeaderboard(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("leaderboard", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "output `directory` for leaderboard.md and summary.json (default: leaderboard/ beside the first run directory)")
	tasks := fs.String("tasks", "", "Featherbench task `directory`, for categories (default: the folder each run recorded, else tasks/)")
	setUsage(fs, "leaderboard", "RUN_DIR... [--out DIR] [--tasks DIR]", `
Merges the runs (results/<stamp> directories) into one leaderboard per suite: Featherbench by
pass rate with cost, latency and rubric; μBench by index with the significance rule; Featherweight
with both prompt columns. Writes leaderboard.md and summary.json and prints the Markdown.
The run directories of a sharded run (-shard i/n), or a folder of them, are merged into one run.`)
	dirs, err := parseInterspersed(fs, args)
	if err != nil {
		return parseFailed(err)
	}
	fail := failer(stderr, "leaderboard")
	if len(dirs) == 0 {
		fs.Usage()
		return fail(2, "give at least one run directory")
	}
	if *out == "" {
		*out = filepath.Join(filepath.Dir(filepath.Clean(dirs[0])), "leaderboard")
	}
	set, err := runs.Load(dirs, runs.Options{TasksDir: *tasks, DefaultTasksDir: defaultTasks()})
	if err == nil && set.Empty() {
		err = fmt.Errorf("no suite results in %v", dirs)
	}
	if err != nil {
		return fail(1, "%v", err)
	}
	for _, n := range set.Notes {
		fmt.Fprintln(stderr, "feather leaderboard: "+n)
	}
	md, err := leaderboard.Write(set, *out)
	if err != nil {
		return fail(1, "%v", err)
	}
	fmt.Fprint(stdout, md)
	fmt.Fprintf(stderr, "feather leaderboard: wrote %s and %s\n", filepath.Join(*out, leaderboard.MarkdownFile), filepath.Join(*out, leaderboard.JSONFile))
	return 0
}
