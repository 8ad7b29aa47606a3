package onnx

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	ort "github.com/yalue/onnxruntime_go"

	pb "github.com/feather-eval/feather/harness/backends/onnx/onnxpb"
	"github.com/feather-eval/feather/harness/backends/onnx/ortlib/orttest"
)

// normTol bounds how far a log-probability from the normalisation in
// ONNX Runtime (a float32 sum) may stray from tokenLogProb's (a float64
// sum in Go) on the same logits. The worst seen is 4.3e-6, on the
// 150k-token rows of TestNormGraph.
const normTol = 1e-5

// TestNormMatchesGo scores every token of the vocabulary at the positions
// a scoring call computes, from the normalisation and with tokenLogProb on
// the same logits: float32, float16, 8-bit and 4-bit heads split off, and
// an export with a logits-to-keep input, give the same log-probabilities
// within normTol and the same greedy flags. A call that does not score
// (generation) is not normalised.
func TestNormMatchesGo(t *testing.T) {
	cases := []struct{ fixture, variant string }{
		{"llama-gqa", ""}, {"gpt2", ""}, {"fp16", ""}, {"llama-gqa", "quantized"}, {"quant", "q4"}, {"quant", "fp16"}, {"keep", ""},
	}
	for _, c := range cases {
		t.Run(c.fixture+"/"+c.variant, func(t *testing.T) {
			fx := fixture(t, c.fixture)
			m := open(t, fx.Dir, Options{Variant: c.variant})
			var rows []stageRow
			for i, n := range []int{7, 4, 6} {
				rows = append(rows, stageRow{tokens: ids(n, fx.Config.Vocab, 80+i)})
			}
			st := m.leftPadded(rows, 7)
			st.want = []int{4, 5, 13, 18, 20}
			view, err := m.runners[0].run(st, nil)
			require.NoError(t, err)
			assert.Nil(t, view.max, "a call that does not score is not normalised")

			st.logProbs = true
			view, err = m.runners[0].run(st, nil)
			require.NoError(t, err)
			require.NotNil(t, view.max, "the rows are normalised in ONNX Runtime")
			for _, p := range st.want {
				b, s := p/7, p%7
				greedy := 0
				for tok := range fx.Config.Vocab {
					lp, g := view.logProb(b, s, tok)
					wantLP, wantG := tokenLogProb(view.row(b, s), tok)
					assert.InDeltaf(t, wantLP, lp, normTol, "position %d token %d", p, tok)
					assert.Equalf(t, wantG, g, "position %d token %d", p, tok)
					if g {
						greedy++
					}
				}
				assert.Equalf(t, 1, greedy, "position %d: one greedy token", p)
			}
		})
	}
}

// TestNormRunsWhereRowsAreRead: a model run whole computes every
// position, so its rows are normalised in Go, only those read.
func TestNormRunsWhereRowsAreRead(t *testing.T) {
	m := open(t, fixture(t, "merged").Dir, Options{})
	assert.Nil(t, m.runners[0].norm)
	assert.NotNil(t, open(t, fixture(t, "gpt2").Dir, Options{}).runners[0].norm)
}

// TestNormGraph runs the normalisation on rows built to test it: a
// 150k-token vocabulary of realistic spread, the same shifted far up,
// ties for the maximum (the first wins, as torch.argmax) and a constant
// row; from float32 and float16 logits; twice over, so that the rows take
// two calls (normChunkBytes).
func TestNormGraph(t *testing.T) {
	orttest.Require(t)
	const vocab = 151936
	spread := make([]float32, vocab)
	x := uint32(7)
	for i := range spread {
		x = x*1664525 + 1013904223
		spread[i] = float32(x>>8)/float32(1<<24)*30 - 20
	}
	shifted := make([]float32, vocab)
	for i, v := range spread {
		shifted[i] = v + 1000
	}
	ties := make([]float32, vocab)
	for i := range ties {
		ties[i] = float32(i%97) / 10
	}
	ties[3], ties[7], ties[vocab-1] = 12, 12, 12
	constant := make([]float32, vocab)
	for i := range constant {
		constant[i] = 2.5
	}
	rows := [][]float32{spread, shifted, ties, constant, spread, shifted, ties, constant}
	require.Greater(t, len(rows), normChunkBytes/(4*vocab), "the rows take more than one call")
	check := []int{0, 1, 3, 7, 4242, vocab - 1}
	for _, dtype := range []ort.TensorElementDataType{ort.TensorElementDataTypeFloat, ort.TensorElementDataTypeFloat16} {
		t.Run(typeName(dtype), func(t *testing.T) {
			view := runNorm(t, rows, vocab, dtype)
			for b := range rows {
				best := argmax(view.row(b, 0))
				for _, tok := range append(check, best) {
					lp, g := view.logProb(b, 0, tok)
					wantLP, wantG := tokenLogProb(view.row(b, 0), tok)
					assert.InDeltaf(t, wantLP, lp, normTol, "row %d token %d", b, tok)
					assert.Equalf(t, wantG, g, "row %d token %d", b, tok)
					assert.Equalf(t, tok == best, g, "row %d token %d", b, tok)
				}
			}
			for _, b := range []int{2, 6} {
				_, g := view.logProb(b, 0, 3)
				assert.True(t, g, "the first of tied maxima is greedy")
				for _, tok := range []int{7, vocab - 1} {
					_, g := view.logProb(b, 0, tok)
					assert.False(t, g, "a later tie is not greedy: token %d", tok)
				}
				_, g = view.logProb(b+1, 0, 0)
				assert.True(t, g, "a constant row's first token is greedy")
				_, g = view.logProb(b+1, 0, 1)
				assert.False(t, g)
			}
			lp, _ := view.logProb(0, 0, 4242)
			again, _ := view.logProb(4, 0, 4242)
			assert.Equal(t, lp, again, "the same row gives the same figures in either call")
		})
	}
}

// runNorm normalises rows (rounded to float16 when dtype says so) through
// a runner's normalisation and returns the view scoring would read: one
// position per row.
func runNorm(t *testing.T, rows [][]float32, vocab int, dtype ort.TensorElementDataType) *logitsView {
	t.Helper()
	spec := &ioSpec{vocab: vocab, logitsType: dtype}
	sess, err := newNormSession(spec, 1)
	require.NoError(t, err)
	r := &runner{spec: spec, norm: sess}
	defer r.close()
	n := len(rows)
	r.logits = alignedBytes(n * vocab * elemSize(dtype))
	r.view = logitsView{seq: 1, vocab: vocab}
	if dtype == ort.TensorElementDataTypeFloat16 {
		r.view.f16 = asUint16(r.logits)
		for b, row := range rows {
			for i, v := range row {
				r.view.f16[b*vocab+i] = pb.Float16Bits(v)
			}
		}
	} else {
		r.view.f32 = asFloat32(r.logits)
		for b, row := range rows {
			copy(r.view.f32[b*vocab:], row)
		}
	}
	require.NoError(t, r.normalise(n))
	return &r.view
}
