package tokenizer

import (
	"hash/maphash"
	"sync"
	"sync/atomic"
)

// scratch holds the buffers one Encode call reuses; a pool keeps them
// across calls so steady-state encoding allocates little.
type scratch struct {
	splits [2][]split
	found  [][2]int
	segs   []segment
	ranges [][2]int
	raw    []piece
	normed []piece
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// wordCache maps a pre-token to its ids. It is sharded so concurrent
// Encode calls rarely wait on each other, and bounded: past its limit new
// words are simply not remembered (as in the Rust library).
type wordCache struct {
	seed   maphash.Seed
	size   atomic.Int64
	shards [32]cacheShard
}

type cacheShard struct {
	mu sync.RWMutex
	m  map[string][]int
}

// cacheLimit bounds the entries of one cache; cacheWordMax skips long
// words, which rarely repeat.
const (
	cacheLimit   = 1 << 17
	cacheWordMax = 256
)

func newWordCache() *wordCache {
	c := &wordCache{seed: maphash.MakeSeed()}
	for i := range c.shards {
		c.shards[i].m = map[string][]int{}
	}
	return c
}

func (c *wordCache) shard(k string) *cacheShard {
	return &c.shards[maphash.String(c.seed, k)%uint64(len(c.shards))]
}

func (c *wordCache) get(k string) ([]int, bool) {
	s := c.shard(k)
	s.mu.RLock()
	v, ok := s.m[k]
	s.mu.RUnlock()
	return v, ok
}

func (c *wordCache) put(k string, v []int) {
	if len(k) > cacheWordMax || c.size.Load() >= cacheLimit {
		return
	}
	s := c.shard(k)
	s.mu.Lock()
	if _, ok := s.m[k]; !ok {
		s.m[k] = v
		c.size.Add(1)
	}
	s.mu.Unlock()
}

// clear empties the cache (benchmarks of cold encoding).
func (c *wordCache) clear() {
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		s.m = map[string][]int{}
		s.mu.Unlock()
	}
	c.size.Store(0)
}
