package featherweight

import "github.com/feather-eval/feather/harness/run/shard"

// InShard is Featherweight's part of shard s, over unit paths [style, id]:
// the items of s by position in the question file, in every style, so the
// shards in order are the file in order. A path too short to name an item
// is taken: some item under it may be in the shard.
func InShard(s shard.Shard, items []Item) func(path ...string) bool {
	pos := make(map[string]int, len(items))
	for i, it := range items {
		pos[it.ID] = i
	}
	return func(path ...string) bool {
		if len(path) < 2 {
			return true
		}
		i, ok := pos[path[1]]
		return ok && s.HasPosition(i, len(items))
	}
}
