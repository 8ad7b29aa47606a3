package featherweight

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/run/shard"
	"github.com/feather-eval/feather/internal/testenv"
)

var shards = []shard.Shard{{Index: 1, Count: 3}, {Index: 2, Count: 3}, {Index: 3, Count: 3}}

func TestFeatherweightTakesItemsInEveryStyle(t *testing.T) {
	ds, err := Load(filepath.Join(testenv.RepoRoot(), "testdata", "featherweight", "featherweight.jsonl"))
	require.NoError(t, err)
	var ids []string
	for _, it := range ds.Items {
		ids = append(ids, it.ID)
	}
	preds := map[shard.Shard]func(...string) bool{}
	for _, s := range shards {
		preds[s] = InShard(s, ds.Items)
		assert.True(t, preds[s]("plain"), "a style may hold items of the shard")
		assert.False(t, preds[s]("plain", "no-such-item"))
	}
	for _, st := range Styles {
		var order []string
		for _, s := range shards {
			for _, id := range ids {
				if preds[s](string(st), id) {
					order = append(order, id)
				}
			}
		}
		assert.Equal(t, ids, order, "%s: the shards in order are the file in order, each item once", st)
	}
	for _, s := range shards {
		for _, id := range ids {
			assert.Equal(t, preds[s]("plain", id), preds[s]("completion", id), "%s %s: the same shard in both styles", s, id)
		}
	}
}
