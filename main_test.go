// The root package is feather's runner: `go test` runs the benchmark suites
// (featherweight_test.go, microbench_test.go, featherbench_test.go) as
// subtests. This file holds what they share: options, the run directory and
// the models they load.
package feather_test

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/feather-eval/feather/harness/options"
	"github.com/feather-eval/feather/harness/rundir"
)

var (
	optResults = options.String("results", "results", "directory that holds the timestamped run directories")
	optModels  = options.String("models", "", "comma-separated catalog keys to run in every suite (default: each catalog's enabled models; all: every model)")
	optUpdate  = options.Bool("update", false, "record the run's outcomes as the regression baselines under testdata/baselines")
	optStrict  = options.Bool("strict", false, "fail every item the model gets wrong, not only regressions")
)

// run is this invocation's results directory, created when a suite first
// writes to it.
var run *rundir.Dir

func TestMain(m *testing.M) {
	flag.Parse()
	if err := options.Default.Err(); err != nil {
		fmt.Fprintf(os.Stderr, "feather: %v\n", err)
		os.Exit(2)
	}
	run = rundir.New(*optResults, time.Now())
	code := m.Run()
	closeModels()
	if run.Created() {
		p, _ := run.Path()
		fmt.Printf("feather: results in %s\n", p)
	}
	os.Exit(code)
}

// suiteModels returns the model keys for one suite: its own option when set,
// else the global models option.
func suiteModels(suiteOpt string) []string {
	if strings.TrimSpace(suiteOpt) != "" {
		return options.List(suiteOpt)
	}
	return options.List(*optModels)
}
