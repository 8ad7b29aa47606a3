package featherbench

import (
	"strings"

	"github.com/feather-eval/feather/harness/run/shard"
)

// InShard is Featherbench's part of shard s, over the paths its run's
// Selected takes ([model], [model, task], [model, task, trial]): trials by
// their key, task/trial. The model is left out of the key so that a
// trial's shard does not depend on the models.
func InShard(s shard.Shard) func(path ...string) bool {
	return func(path ...string) bool {
		return len(path) < 3 || s.HasKey(strings.Join(path[1:3], "/"))
	}
}
