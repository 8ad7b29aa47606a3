// Package shard splits one run into n disjoint parts, so that n CI jobs or
// machines can each run one (-shard i/n, FEATHER_SHARD) and `feather report`
// and `feather leaderboard` can merge their run directories into results
// equal to an unsharded run's.
//
// Each suite splits by its own unit of work: Featherweight by item (the same
// item in every prompt style), μBench by task (balanced by text size), and
// Featherbench by trial. The split depends only on the data, never on the
// model list or on -run, so every shard of a run agrees on it.
package shard

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
)

// Shard is part Index of Count (1-based). The zero Shard is the whole run.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// usage is the example every parse error ends with.
const usage = "want i/n with 1 ≤ i ≤ n, e.g. -shard 2/3 (FEATHER_SHARD=2/3) for the second of three shards"

// Parse reads "i/n". An empty value is the whole run.
func Parse(v string) (Shard, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return Shard{}, nil
	}
	is, ns, ok := strings.Cut(v, "/")
	i, ierr := strconv.Atoi(strings.TrimSpace(is))
	n, nerr := strconv.Atoi(strings.TrimSpace(ns))
	switch {
	case !ok || ierr != nil || nerr != nil:
		return Shard{}, fmt.Errorf("-shard (FEATHER_SHARD) %q: %s", v, usage)
	case n < 1 || i < 1 || i > n:
		return Shard{}, fmt.Errorf("-shard (FEATHER_SHARD) %q: shard %d of %d does not exist; %s", v, i, n, usage)
	}
	return Shard{Index: i, Count: n}, nil
}

// Whole reports whether s is the whole run: no shard given.
func (s Shard) Whole() bool { return s.Count == 0 }

// String is "i/n", or "" for the whole run.
func (s Shard) String() string {
	if s.Whole() {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// HasKey reports whether the unit named key is in s: the key's FNV-1a hash
// picks its shard, so it depends on nothing but the key.
func (s Shard) HasKey(key string) bool {
	if s.Whole() {
		return true
	}
	h := fnv.New32a()
	h.Write([]byte(key))
	return int(h.Sum32()%uint32(s.Count)) == s.Index-1
}

// HasPosition reports whether the unit at pos of total is in s: shards
// take contiguous blocks, so concatenating the shards in order restores
// the units' order.
func (s Shard) HasPosition(pos, total int) bool {
	if s.Whole() {
		return true
	}
	return pos*s.Count/total == s.Index-1
}

// Job is one unit of work with a cost, for Balance.
type Job struct {
	Key  string
	Cost int64
}

// Balance assigns jobs to n shards (1-based) so that their costs are even:
// longest processing time first, each job to the least loaded shard. Ties
// are broken by key and then by the lower shard, so the assignment depends
// only on the jobs, not on their order.
func Balance(jobs []Job, n int) map[string]int {
	sorted := slices.Clone(jobs)
	slices.SortFunc(sorted, func(a, b Job) int {
		// Highest cost first, then by key.
		return cmp.Or(cmp.Compare(b.Cost, a.Cost), strings.Compare(a.Key, b.Key))
	})
	load := make([]int64, n)
	out := make(map[string]int, len(jobs))
	for _, j := range sorted {
		least := 0
		for k := range load {
			if load[k] < load[least] {
				least = k
			}
		}
		load[least] += j.Cost
		out[j.Key] = least + 1
	}
	return out
}

// And is a selection that takes a unit only when both a and b take it; a
// nil selection takes every unit.
func And(a, b func(path ...string) bool) func(path ...string) bool {
	return func(path ...string) bool {
		return (a == nil || a(path...)) && (b == nil || b(path...))
	}
}
