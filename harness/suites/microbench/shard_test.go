package microbench

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/run/shard"
	"github.com/feather-eval/feather/internal/testenv"
)

var shards = []shard.Shard{{Index: 1, Count: 3}, {Index: 2, Count: 3}, {Index: 3, Count: 3}}

func TestMicrobenchBalancesTasks(t *testing.T) {
	tasks, err := Load(os.DirFS(filepath.Join(testenv.RepoRoot(), "testdata", "microbench")))
	require.NoError(t, err)
	load := map[int]int64{}
	var largest int64
	for _, tk := range tasks {
		var in []int
		for _, s := range shards {
			if InShard(s, tasks)(tk.ID, tk.Items[0].ID) {
				in = append(in, s.Index)
			}
			assert.True(t, InShard(s, tasks)(), "the empty path")
		}
		require.Len(t, in, 1, "%s is in exactly one shard", tk.ID)
		c := tk.Cost()
		require.Positive(t, c, tk.ID)
		load[in[0]] += c
		largest = max(largest, c)
	}
	lo, hi := min(load[1], load[2], load[3]), max(load[1], load[2], load[3])
	assert.LessOrEqual(t, hi-lo, largest, "longest-first keeps the shards within one task of each other: %v", load)
	assert.True(t, InShard(shard.Shard{}, tasks)("capitals", "x"))
}

func TestCost(t *testing.T) {
	choice := &Task{Reduction: Sum, Items: []Item{{Context: "Paris is in", Choices: []string{"France", "Peru"}}}}
	assert.EqualValues(t, (11+7)+(11+5), choice.Cost())
	pmi := &Task{Reduction: PMI, Items: choice.Items}
	assert.EqualValues(t, (11+7)+(11+5)+(7+7)+(7+5), pmi.Cost(), "plus the null context %q", NullContext)
	bpb := &Task{Reduction: BitsPerByte, Items: []Item{{Text: "twelve bytes"}}}
	assert.EqualValues(t, 12, bpb.Cost())
}
