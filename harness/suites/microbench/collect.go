package microbench

import (
	"path/filepath"
	"sort"
	"sync"

	"github.com/feather-eval/feather/internal/atomicfile"
)

// Collector keeps a run's μBench results on disk as they come: each
// model's result file, and the leaderboard over them rewritten after each,
// so every finished model is on disk even if a later one fails.
type Collector struct {
	// Dir returns the folder the files go in, making it on first use, so
	// a run that saves nothing leaves nothing behind.
	Dir func() (string, error)
	// Stamp, when set, is the run's stamp, recorded in each result.
	Stamp func() string

	mu    sync.Mutex // one model's files at a time
	saved map[string]int
}

// Save writes res as <model key>.json in the folder and rewrites
// leaderboard.md there; it returns the result file's path. The same model
// saved again gets <key>-2.json and so on. Each file is written whole
// (a temporary file renamed into place), and replaces the file of that
// name from an earlier attempt at the run (a -resume after a crash or a
// kill scores its models again), so a model is never counted twice and
// no file is left half-written.
func (c *Collector) Save(res *Result) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	dir, err := c.Dir()
	if err != nil {
		return "", err
	}
	if c.Stamp != nil {
		res.Run = c.Stamp()
	}
	if c.saved == nil {
		c.saved = map[string]int{}
	}
	data, err := encodeResult(res)
	if err != nil {
		return "", err
	}
	c.saved[res.Model.Key]++
	p := filepath.Join(dir, resultName(res.Model.Key, c.saved[res.Model.Key]))
	if err := atomicfile.Write(p, data); err != nil {
		return "", err
	}
	return p, WriteLeaderboard(dir)
}

// WriteLeaderboard builds dir/leaderboard.md from the result files in dir,
// in name order, the same way a report over several runs would.
func WriteLeaderboard(dir string) error {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return err
	}
	sort.Strings(paths)
	results, err := ReadResults(paths...)
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, "leaderboard.md"), []byte(Leaderboard(results)))
}
