// The root package is feather's runner: `go test` runs the benchmark suites
// (featherweight_test.go, microbench_test.go, featherbench_test.go) as
// subtests. This file holds what they share: options, the run directory and
// the models they load.
package feather_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/feather-eval/feather/harness/run/interrupt"
	"github.com/feather-eval/feather/harness/run/options"
	"github.com/feather-eval/feather/harness/run/progress"
	"github.com/feather-eval/feather/harness/run/rundir"
	"github.com/feather-eval/feather/harness/run/shard"
	"github.com/feather-eval/feather/harness/run/unit"
)

var (
	optResults = options.String("results", "results", "directory that holds the timestamped run directories")
	optModels  = options.String("models", "", "comma-separated catalog keys to run in every suite (default: each catalog's enabled models; all: every model)")
	optUpdate  = options.Bool("update", false, "record the run's outcomes as the regression baselines under testdata/baselines")
	optStrict  = options.Bool("strict", false, "fail every item the model gets wrong, not only regressions")
	optResume  = options.String("resume", "", "continue the interrupted run in this run directory (e.g. results/latest): Featherbench skips the trials it recorded, the other suites run again into it")
	optGrace   = options.Duration("grace", 30*time.Second, "after Ctrl-C, how long calls in flight may finish before they are cancelled (a second Ctrl-C cancels at once)")
	optShard   = options.String("shard", "", "run only shard i of n (e.g. 2/3) so that n jobs share a run: Featherweight by item, μBench by task (balanced by text size), Featherbench by trial; feather report and feather leaderboard merge the shards' run directories")
)

// run is this invocation's results directory, created when a suite first
// writes to it (or the one -resume continues).
var run *rundir.Dir

// interrupts turns Ctrl-C into an orderly stop: suites start no new work,
// calls in flight get -grace to finish, and finished results are written.
var interrupts = interrupt.New()

// tracker shows each suite's progress per model while the run goes: on the
// terminal, or a line every 30 s in a log. nil (FEATHER_PROGRESS=0) is off.
var tracker *progress.Tracker

// runShard is this run's -shard: each suite ANDs its selection with its
// part (featherweight/microbench/featherbench.InShard). Whole by default.
var runShard shard.Shard

func TestMain(m *testing.M) {
	flag.Parse()
	if err := setUp(); err != nil {
		fmt.Fprintf(os.Stderr, "feather: %v\n", err)
		os.Exit(2)
	}
	var release func()
	interrupts, release = interrupt.Watch(*optGrace, os.Stderr)
	code := m.Run()
	tracker.Close() // the whole run's time
	release()
	closeModels()
	if err := shard.MarkRun(run, runShard); err != nil {
		fmt.Fprintf(os.Stderr, "feather: %v\n", err)
		code = max(code, 1)
	}
	if run.Created() {
		p, _ := run.Path()
		fmt.Printf("feather: results in %s\n", p)
	}
	if s := interrupts.Signal(); s != nil {
		if p, _ := run.Path(); run.Created() {
			fmt.Printf("feather: the run was interrupted (%v); continue it with the same options and -resume %s\n", s, p)
		}
		code = max(code, 1) // an interrupted run is not a complete one
	}
	os.Exit(code)
}

// setUp reads the options a run needs before any test: a bad one stops
// the run before anything is asked.
func setUp() (err error) {
	if err = options.Default.Err(); err != nil {
		return err
	}
	if tracker, err = progress.Open(os.Getenv); err != nil {
		return err
	}
	if runShard, err = shard.Parse(*optShard); err != nil {
		return err
	}
	run = rundir.New(*optResults, time.Now())
	if *optResume == "" {
		return nil
	}
	if run, err = rundir.Existing(*optResume); err != nil {
		return err
	}
	return shard.CheckResume(run, runShard)
}

// suiteModels returns the model keys for one suite: its own option when set,
// else the global models option.
func suiteModels(suiteOpt string) []string {
	if strings.TrimSpace(suiteOpt) != "" {
		return options.List(suiteOpt)
	}
	return options.List(*optModels)
}

// workContext is the context for a suite's model calls: it ends with the
// test, or when an interrupt's grace period is over.
func workContext(t *testing.T) context.Context {
	ctx, release := interrupts.Within(t.Context())
	t.Cleanup(release)
	return ctx
}

// skipIfStopped skips a subtest that Ctrl-C came before: it starts no new
// model call.
func skipIfStopped(t *testing.T) {
	t.Helper()
	if interrupts.Stop().Err() != nil {
		t.Skip("not started: the run was interrupted")
	}
}

// unitOptions is how a suite's units become subtests in this run: -strict,
// the regression gate (-update records it; -run, -skip and -shard narrow
// it) and whether Ctrl-C cut the run.
func unitOptions(suite, model string) unit.Options {
	return unit.Options{Suite: suite, Model: model, Strict: *optStrict, Gate: true, Update: *optUpdate, Interrupted: interrupts.Interrupted(),
		Narrowed: runNarrowing(suite, model)}
}
