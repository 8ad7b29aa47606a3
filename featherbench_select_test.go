package feather_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/feather-eval/feather/harness/run/rundir"
	"github.com/feather-eval/feather/harness/suites/featherbench"
)

// TestFBDryRunAllLeavesOutTheSmokeModel: "all" as models and as judges
// plans the catalog's language models only.
func TestFBDryRunAllLeavesOutTheSmokeModel(t *testing.T) {
	s := fbRubricServer(t)
	cat := fbRubricCatalog(t, s, `, "smoke": {"backend": "onnx", "builtin": "smoke"}`)
	plan := fbPlan(t, featherbench.Config{
		Catalog: cat, TasksDir: fbRubricTasks(t), Models: []string{"all"}, Trials: 1, Concurrency: 1,
		Rubric: featherbench.RubricOptions{Judges: []string{"all"}},
		Dir:    rundir.New(filepath.Join(t.TempDir(), "results"), time.Now()),
	})
	assert.Contains(t, plan, "(3 models × 4 tasks × 1 trial)")
	assert.Contains(t, plan, "× 3 judges (good, shaky, heron)")
	assert.NotContains(t, plan, "smoke")
}
