package e2e_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/feather-eval/feather/harness/lm"
)

// The comparison benchmarks' pieces, on hand-made inputs.

func TestDistinctRowsAddsEachPrefixOnce(t *testing.T) {
	rows := distinctRows([]scoreIDs{
		{IDs: []int{1, 5, 6, 7}, N: 1}, // a context and a one-token continuation
		{IDs: []int{1, 5, 6, 8}, N: 1}, // the same context, another continuation
		{IDs: []int{1, 5, 6, 7}, N: 1}, // a repeat adds nothing
		{IDs: []int{1, 5}, N: 1},       // a prefix of what is there adds nothing, but reads after BOS
		{IDs: []int{1, 9, 6, 7}, N: 2}, // shares only BOS
		{IDs: []int{2, 5}, N: 1},       // a new root
	})
	assert.Equal(t, []trieRow{
		{tokens: []int{1, 5, 6, 7}, keep: 4}, // read after 1 (by {1, 5}) and after 1 5 6
		{tokens: []int{8}, keep: 1},          // nothing read after it: one position all the same
		{tokens: []int{9, 6, 7}, keep: 3},    // read after 1 9 and 1 9 6
		{tokens: []int{2, 5}, keep: 2},       // read after 2
	}, rows)
}

func TestSpreadTakesWholeQuestionsFromAcrossTheList(t *testing.T) {
	var reqs []lm.LLRequest
	for _, c := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		for _, k := range []string{"1", "2", "3", "4"} {
			reqs = append(reqs, lm.LLRequest{Context: c, Continuation: k})
		}
	}
	got := spread(reqs, 8)
	assert.Equal(t, []lm.LLRequest{
		{Context: "a", Continuation: "1"}, {Context: "a", Continuation: "2"}, {Context: "a", Continuation: "3"}, {Context: "a", Continuation: "4"},
		{Context: "e", Continuation: "1"}, {Context: "e", Continuation: "2"}, {Context: "e", Continuation: "3"}, {Context: "e", Continuation: "4"},
	}, got)
	assert.Len(t, spread(reqs, 100), 32)
}
