package onnx

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	ort "github.com/yalue/onnxruntime_go"

	pb "github.com/feather-eval/feather/harness/backends/onnx/onnxpb"
	"github.com/feather-eval/feather/harness/backends/onnx/ortlib/orttest"
	"github.com/feather-eval/feather/harness/lm"
)

// splitTol bounds how far the split head's logits may stray from the
// whole model's: the same MatMul on fewer rows.
const splitTol = 1e-5

// wholeRunner opens m's file unsplit: today's path, every position.
func wholeRunner(t *testing.T, m *Model) *runner {
	t.Helper()
	r, err := newRunner(m.file, m.spec, nil, nil, "", 0, 0)
	require.NoError(t, err)
	t.Cleanup(func() { r.close() })
	return r
}

// splitFile reads path as Open does and splits it.
func splitFile(t *testing.T, path string, vocab int) (*headSplit, error) {
	t.Helper()
	m, err := pb.ReadFile(path, pb.ReadOptions{SkipData: true})
	require.NoError(t, err)
	rw, err := prepareRewrite(path, m, kvGroups{})
	if err != nil {
		return nil, err
	}
	return planHeadSplit(m, vocab, rw)
}

// TestHeadSplitMatchesWhole runs left-padded batches through the split
// model, keeping the last k positions, and through the whole file: the
// kept logits agree within splitTol, for tied and untied heads, GPT-2 and
// Llama, float16, external data and 8-bit weights. Where query heads
// share key/value heads, the split's attention reads them unrepeated
// (groupSharedKV), so this holds that rewrite to the export too.
func TestHeadSplitMatchesWhole(t *testing.T) {
	cases := []struct{ fixture, variant string }{
		{"gpt2", ""}, {"tied", ""}, {"llama-gqa", ""}, {"llama-tied", ""}, {"gemma3", ""},
		{"fp16", ""}, {"external", ""}, {"llama-gqa", "quantized"}, {"nopast", ""}, {"quant", "q4"},
	}
	for _, c := range cases {
		t.Run(c.fixture+"/"+c.variant, func(t *testing.T) {
			fx := fixture(t, c.fixture)
			m := open(t, fx.Dir, Options{Variant: c.variant})
			require.NotNil(t, m.runners[0].head, "the head is split off")
			grouped := 0
			if (kvGroups{m.cfg.Heads, m.cfg.KVHeads}).rep() > 1 && m.spec.layers > 0 {
				grouped = 2 * m.cfg.Layers // each layer's scores and its weighted values
			}
			assert.Equal(t, grouped, m.runners[0].split.kvGrouped, "attention products reading key/value heads unrepeated")
			whole := wholeRunner(t, m)
			var rows []stageRow
			for i, n := range []int{7, 4, 6} {
				rows = append(rows, stageRow{tokens: ids(n, fx.Config.Vocab, 60+i)})
			}
			for _, positions := range [][]int{nil, {6, 13, 20}, {3, 4, 9, 14, 15, 16, 20}} {
				st := m.leftPadded(rows, 7)
				want, err := whole.run(st, nil)
				require.NoError(t, err)
				st.want = positions
				got, err := m.runners[0].run(st, nil)
				require.NoError(t, err)
				if positions == nil {
					positions = lastK(len(rows), 7, 7)
				}
				require.Equal(t, len(positions)*fx.Config.Vocab, len(got.f32)+len(got.f16), "logits computed only where asked")
				for _, p := range positions {
					b, s := p/7, p%7
					assert.LessOrEqualf(t, maxDiff(want.row(b, s), got.row(b, s)), splitTol, "row %d position %d", b, s)
				}
			}
		})
	}
}

// TestHeadSplitGemm splits a head written as exporters write a Gemm:
// the hidden states flattened to rows, a tied weight read with transB, a
// bias, and the logits reshaped back to [batch, seq, vocab].
func TestHeadSplitGemm(t *testing.T) {
	orttest.Require(t)
	const vocab, width = 6, 4
	b := pb.NewBuilder("gemm")
	ids := b.Input("input_ids", pb.Int64, pb.P("batch"), pb.P("seq"))
	emb := make([]float32, vocab*width)
	for i := range emb {
		emb[i] = float32(i%7) - 2.5
	}
	w := b.Weight(pb.FloatTensor("embed", []int64{vocab, width}, emb))
	bias := b.Weight(pb.FloatTensor("bias", []int64{vocab}, []float32{0.5, -1, 0, 2, 1, -0.25}))
	x := b.Op("Reshape", b.Op("Tanh", b.Op("Gather", w, ids)), b.Ints(-1, width))
	y := b.OpAttr("Gemm", []pb.Attribute{pb.AttrInt("transB", 1)}, x, w, bias)
	shape := b.OpAttr("Concat", []pb.Attribute{pb.AttrInt("axis", 0)}, b.Op("Shape", ids), b.Ints(vocab))
	b.Output(b.Op("Reshape", y, shape), "logits", pb.Float, pb.P("batch"), pb.P("seq"), pb.D(vocab))
	model := &pb.Model{IRVersion: 8, Opsets: []pb.Opset{{Version: 17}}, Graph: b.Graph()}
	data, err := model.Marshal()
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "gemm.onnx")
	require.NoError(t, os.WriteFile(path, data, 0o644))

	split, err := splitFile(t, path, vocab)
	require.NoError(t, err)
	assert.Equal(t, width, split.width)
	spec := &ioSpec{inputs: []string{"input_ids"}, outputs: []string{"logits"}, logitsType: ort.TensorElementDataTypeFloat, vocab: vocab}
	whole, err := newRunner(path, spec, nil, nil, "", 0, 0)
	require.NoError(t, err)
	defer whole.close()
	r, err := newRunner(path, spec, split, nil, "", 0, 0)
	require.NoError(t, err)
	defer r.close()
	st := &step{rows: 2, seq: 3, ids: []int64{0, 1, 2, 3, 4, 5}}
	want, err := whole.run(st, nil)
	require.NoError(t, err)
	st.want = lastK(2, 3, 2)
	got, err := r.run(st, nil)
	require.NoError(t, err)
	for row := 0; row < 2; row++ {
		for p := 1; p < 3; p++ {
			assert.LessOrEqual(t, maxDiff(want.row(row, p), got.row(row, p)), splitTol)
		}
	}
}

// headGraphModel writes a graph whose logits come from out(b, hidden),
// where hidden is [batch, seq, 4], for findHead's refusals.
func headGraphModel(out func(b *pb.Builder, hidden string) string) *pb.Graph {
	b := pb.NewBuilder("g")
	h := b.Input("hidden", pb.Float, pb.P("batch"), pb.P("seq"), pb.D(4))
	b.Output(out(b, b.Op("Tanh", h)), "logits", pb.Float)
	return b.Graph()
}

func TestFindHeadRefusals(t *testing.T) {
	weight := func(b *pb.Builder) string {
		return b.Weight(pb.FloatTensor("w", []int64{4, 6}, make([]float32, 24)))
	}
	tests := []struct {
		name string
		out  func(b *pb.Builder, hidden string) string
		want string
	}{
		{"softcap after the head", func(b *pb.Builder, h string) string {
			return b.Op("Tanh", b.Op("MatMul", h, weight(b)))
		}, "logits come from Tanh, not from a MatMul, Gemm or MatMulNBits head"},
		{"4-bit head without its shape", func(b *pb.Builder, h string) string {
			y := b.Op("MatMulNBits", h, weight(b))
			b.Graph().Nodes[len(b.Graph().Nodes)-1].Domain = "com.microsoft"
			return y
		}, "the head's MatMulNBits has K=0, N=0 outputs, not the vocabulary's 6"},
		{"4-bit head of another domain", func(b *pb.Builder, h string) string {
			return b.Op("MatMulNBits", h, weight(b))
		}, `the head is MatMulNBits of domain "", not com.microsoft's`},
		{"weight fed as an input", func(b *pb.Builder, h string) string {
			return b.Op("MatMul", h, b.Input("w_in", pb.Float, pb.D(4), pb.D(6)))
		}, "the head's weight: w_in is a graph input, not a stored weight"},
		{"weight computed", func(b *pb.Builder, h string) string {
			return b.Op("MatMul", h, b.Op("Mul", weight(b), weight2(b)))
		}, "the head's weight: /Mul_2_output_0 comes from Mul; a split head's weight may pass only through Transpose, Cast, DequantizeLinear and Identity"},
		{"vocabulary", func(b *pb.Builder, h string) string {
			return b.Op("MatMul", h, b.Weight(pb.FloatTensor("w", []int64{4, 5}, make([]float32, 20))))
		}, "the head's weight has 5 outputs, not the vocabulary's 6"},
		{"int8 arithmetic", func(b *pb.Builder, h string) string {
			return b.Op("MatMul", h, b.Weight(pb.Int8Tensor("w", []int64{4, 6}, make([]int8, 24))))
		}, "the head computes in element type 3; float32 and float16 heads are split"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := findHead(headGraphModel(tt.out), 6)
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
		})
	}
}

func weight2(b *pb.Builder) string {
	return b.Weight(pb.FloatTensor("w2", []int64{4, 6}, make([]float32, 24)))
}

// TestMergedDecoderRunsWhole: a merged decoder's head sits in both If
// branches; the model runs whole and says why, once per file.
func TestMergedDecoderRunsWhole(t *testing.T) {
	_, err := splitFile(t, fixture(t, "merged").File, 512)
	require.EqualError(t, err, "logits come from an If (a merged decoder), whose branches each hold the head")

	var lines []string
	defer func(f func(string, ...any)) { logf = f }(logf)
	logf = func(format string, args ...any) { lines = append(lines, fmt.Sprintf(format, args...)) }
	file := filepath.Join(t.TempDir(), "once.onnx")
	noteNoSplit(file, err)
	noteNoSplit(file, err)
	assert.Equal(t, []string{"onnx: " + file + ": computing logits at every position, as the LM head cannot be split off: logits come from an If (a merged decoder), whose branches each hold the head"}, lines)
}

// TestHeadSplitRefersToWeights: the halves hold no weights, only where
// they lie (the model file, or the export's external data file), so a
// split costs no copy of them; data under minExternalBytes (shapes, axes,
// which shape inference reads) stays inline.
func TestHeadSplitRefersToWeights(t *testing.T) {
	for _, tt := range []struct{ fixture, data string }{{"gpt2", "model.onnx"}, {"external", "model.onnx_data"}, {"quant", "model.onnx"}} {
		file := fixture(t, tt.fixture).File
		st, err := os.Stat(file)
		require.NoError(t, err)
		s, err := splitFile(t, file, 512)
		require.NoError(t, err, tt.fixture)
		assert.Equal(t, filepath.Dir(file), s.dir)
		for half, raw := range map[string][]byte{"body": s.body, "head": s.head} {
			m, err := pb.Unmarshal(raw)
			require.NoError(t, err)
			weights := 0
			for _, w := range m.Graph.Initializers {
				size := w.Elements() * int64(w.DataType.Size())
				if size < minExternalBytes {
					assert.Nil(t, w.External, "%s %s: %s", tt.fixture, half, w.Name)
					continue
				}
				if assert.NotNil(t, w.External, "%s %s: %s", tt.fixture, half, w.Name) && w.External.Location == tt.data {
					weights++
				}
			}
			assert.Positive(t, weights, "%s %s", tt.fixture, half)
			if tt.data == "model.onnx" {
				assert.Less(t, int64(len(raw))*20, st.Size(), "%s %s: bytes", tt.fixture, half)
			}
		}
	}
}

// TestHeadSplitResolvesLinks: a Hugging Face cache's model folder holds
// links into its blobs folder, outside which ONNX Runtime reads no
// external data; the halves name the files the links resolve to, and a
// model whose files resolve into two folders runs whole, saying why.
func TestHeadSplitResolvesLinks(t *testing.T) {
	for _, name := range []string{"gpt2", "external"} {
		real := fixture(t, name).File
		link := filepath.Join(t.TempDir(), "snapshot", "model.onnx")
		require.NoError(t, os.MkdirAll(filepath.Dir(link), 0o755))
		require.NoError(t, os.Symlink(real, link))
		if name == "external" {
			require.NoError(t, os.Symlink(real+"_data", link+"_data"))
		}
		s, err := splitFile(t, link, 512)
		require.NoError(t, err, name)
		assert.Equal(t, filepath.Dir(real), s.dir, name)
	}

	// gpt2's weights of 4 KiB or more in a data file that is a link to
	// another folder; smaller ones, above minExternalBytes, inline.
	m, err := pb.ReadFile(fixture(t, "gpt2").File, pb.ReadOptions{})
	require.NoError(t, err)
	blob := m.SplitExternal("model.onnx_data", 4096)
	raw, err := m.Marshal()
	require.NoError(t, err)
	dir, other := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "model.onnx"), raw, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(other, "model.onnx_data"), blob, 0o644))
	require.NoError(t, os.Symlink(filepath.Join(other, "model.onnx_data"), filepath.Join(dir, "model.onnx_data")))
	_, err = splitFile(t, filepath.Join(dir, "model.onnx"), 512)
	require.Error(t, err)
	assert.Regexp(t, "^the weights lie in two folders, ("+dir+" and "+other+"|"+other+" and "+dir+"), and ONNX Runtime reads a split's from one$", err.Error())
}

// TestHeadSplitKeepsResults: generation and scoring through the split
// head give the whole model's texts, token counts and greedy flags, and
// log-probabilities within splitTol.
func TestHeadSplitKeepsResults(t *testing.T) {
	prompts := []string{"The cat sat on the mat.", "Hello", "A longer prompt, with more words in it than the others.", "Why?"}
	llReqs := []lm.LLRequest{
		{Context: "The cat sat on the", Continuation: " mat"},
		{Context: "The cat sat on the", Continuation: " hat, and then it slept"},
		{Context: "Question: what is two plus two? Answer:", Continuation: " four"},
		{Context: "", Continuation: "Once upon a time"},
	}
	var reqs []lm.GenerateRequest
	for _, p := range prompts {
		reqs = append(reqs, lm.GenerateRequest{Prompt: p, MaxNewTokens: 12})
	}
	for _, name := range []string{"llama-tied", "gpt2", "fp16", "external"} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			m := open(t, fixture(t, name).Dir, Options{})
			require.NotNil(t, m.runners[0].head)
			split, err := m.Generate(ctx, reqs)
			require.NoError(t, err)
			splitLL, err := m.LogLikelihood(ctx, llReqs, lm.ScoreOptions{})
			require.NoError(t, err)

			// The same model with its session replaced by the whole file's.
			whole := wholeRunner(t, m)
			<-m.pool
			m.pool <- whole
			want, err := m.Generate(ctx, reqs)
			require.NoError(t, err)
			wantLL, err := m.LogLikelihood(ctx, llReqs, lm.ScoreOptions{})
			require.NoError(t, err)
			for i := range reqs {
				assert.Equal(t, want[i].Text, split[i].Text, "prompt %d", i)
				assert.Equal(t, want[i].OutputTokens, split[i].OutputTokens, "prompt %d", i)
			}
			for i := range llReqs {
				assert.InDelta(t, wantLL[i].LogProb, splitLL[i].LogProb, splitTol, "request %d", i)
				assert.Equal(t, wantLL[i].IsGreedy, splitLL[i].IsGreedy, "request %d", i)
			}
		})
	}
}
