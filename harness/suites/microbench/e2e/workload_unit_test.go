package e2e_test

import (
	"testing"
	"time"

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

// Two prompts of 3 and 5 tokens generating 3 and 1 tokens, on a model of
// 10 body and 2 head multiply-adds a token, at 1 multiply-add a second,
// reading its weights in 30 s: the prefill is 8 positions through the
// body and each prompt's last through the head (84 s), then steps 1 and
// 2 decode one row (12 s of arithmetic) each.
func TestGenFloorAddsOrOverlapsEachStepsReadAndArithmetic(t *testing.T) {
	in := tjsInput{Generate: []struct {
		IDs []int `json:"ids"`
	}{{IDs: []int{1, 2, 3}}, {IDs: []int{1, 2, 3, 4, 5}}}}
	gens := []lm.GenerateResult{{OutputTokens: 3}, {OutputTokens: 1}}
	m := macs{body: 10, head: 2}
	assert.Equal(t, (84+2*30)*time.Second, m.genFloor(in, gens, 1, 30*time.Second, overlapped))
	assert.Equal(t, (84+2*42)*time.Second, m.genFloor(in, gens, 1, 30*time.Second, serial))
	// A read shorter than a step's arithmetic: overlapped, the arithmetic.
	assert.Equal(t, (84+2*12)*time.Second, m.genFloor(in, gens, 1, 5*time.Second, overlapped))
}
