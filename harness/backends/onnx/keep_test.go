package onnx

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/local"
)

// TestLogitsToKeep runs a left-padded batch through exports with a
// logits-to-keep input: asked for the last k positions, the call returns
// exactly those (equal to the reference), and k = 0 returns every one.
func TestLogitsToKeep(t *testing.T) {
	for name, input := range map[string]string{"keep": "num_logits_to_keep", "keep-merged": "logits_to_keep"} {
		t.Run(name, func(t *testing.T) {
			ref := fixture(t, name)
			m := open(t, ref.Dir, Options{})
			require.Equal(t, input, m.spec.keepInput)
			require.Equal(t, input, m.spec.inputs[len(m.spec.inputs)-1])
			var rows []stageRow
			for i, n := range []int{7, 4, 6} {
				rows = append(rows, stageRow{tokens: ids(n, ref.Config.Vocab, 40+i)})
			}
			for _, keep := range []int{0, 1, 3, 7} {
				st := m.leftPadded(rows, 7)
				st.want = lastK(len(rows), 7, keep)
				view, err := m.runners[0].run(st, nil)
				require.NoError(t, err)
				kept := keep
				if keep == 0 {
					kept = 7
				}
				assert.Equal(t, []int{kept, 7 - kept}, []int{view.seq, view.skip}, "keep %d", keep)
				assert.Len(t, view.f32, len(rows)*kept*ref.Config.Vocab, "keep %d: logits computed", keep)
				for b, row := range rows {
					want := ref.Logits(row.tokens)
					pad := 7 - len(row.tokens)
					for p := max(0, 7-kept-pad); p < len(row.tokens); p++ {
						assert.LessOrEqualf(t, maxDiff(want[p], view.row(b, pad+p)), tol, "keep %d row %d position %d", keep, b, p)
					}
				}
			}
		})
	}
}

// TestLogitsKeptWhole: an export without the input whose head cannot be
// split off (a merged decoder) computes every position whatever the call
// keeps.
func TestLogitsKeptWhole(t *testing.T) {
	m := open(t, fixture(t, "merged").Dir, Options{})
	require.Nil(t, m.runners[0].head)
	st := m.leftPadded([]stageRow{{tokens: ids(5, 512, 1)}}, 5)
	st.want = []int{4}
	view, err := m.runners[0].run(st, nil)
	require.NoError(t, err)
	assert.Equal(t, []int{5, 0}, []int{view.seq, view.skip})
}

// lastK wants the last k positions of each of rows rows (none: nil).
func lastK(rows, seq, k int) []int {
	var want []int
	for b := 0; b < rows; b++ {
		for s := seq - k; s < seq; s++ {
			want = append(want, b*seq+s)
		}
	}
	return want
}

func TestWantedPositions(t *testing.T) {
	rows := []stageRow{
		{tokens: make([]int, 6), targets: []target{{pos: 5}, {pos: 4}}},
		{tokens: make([]int, 3), targets: []target{{pos: 2}, {pos: 2}, {pos: 2}}},
		{tokens: make([]int, 8), targets: []target{{pos: 7}}},
	}
	// Row 0 is padded by 2, row 1 by 5; row 1's three targets (choices
	// sharing a context) read one position.
	assert.Equal(t, []int{6, 7, 15, 23}, wantedPositions(rows, 8))
}

// TestCallsKeepOnlyWhatTheyRead: generation's prefill computes logits at
// the last position only, and a lone scored sequence at its scored
// positions only, through the export's input or the split head.
func TestCallsKeepOnlyWhatTheyRead(t *testing.T) {
	for _, name := range []string{"keep", "llama-gqa"} {
		t.Run(name, func(t *testing.T) {
			m := open(t, fixture(t, name).Dir, Options{})
			r := m.runners[0]
			computed := func() int { return len(r.view.f32) / 512 }
			_, err := m.decodeSeqs(context.Background(), []local.GenSeq{{Prompt: ids(6, 512, 1), MaxNew: 1}}, nil)
			require.NoError(t, err)
			assert.Equal(t, 1, computed(), "prefill")

			_, err = m.scoreSeqs(context.Background(), []local.ScoreSeq{{Tokens: ids(8, 512, 2), N: 2}}, nil)
			require.NoError(t, err)
			assert.Equal(t, 2, computed(), "scoring: 7 positions run, the last 2 scored")

			// Choices of different lengths after one context: stage 2 runs
			// the longer continuations right-padded; the padding gets no
			// logits from a split head, while the logits-to-keep input
			// covers every row's positions from the first wanted one.
			ctx := ids(5, 512, 3)
			var seqs []local.ScoreSeq
			for i, n := range []int{3, 4} {
				seqs = append(seqs, local.ScoreSeq{Tokens: append(slices.Clone(ctx), ids(n, 512, 4+i)...), N: n})
			}
			_, err = m.scoreSeqs(context.Background(), seqs, nil)
			require.NoError(t, err)
			want := map[string]int{"keep": 2 * 3, "llama-gqa": 2 + 3}[name]
			assert.Equal(t, want, computed(), "stage 2")
		})
	}
}
