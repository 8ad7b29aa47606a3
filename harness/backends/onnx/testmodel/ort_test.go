package testmodel_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	ort "github.com/yalue/onnxruntime_go"

	"github.com/feather-eval/feather/harness/backends/onnx/onnxpb"
	"github.com/feather-eval/feather/harness/backends/onnx/ortlib/orttest"
	"github.com/feather-eval/feather/harness/backends/onnx/testmodel"
)

// session drives one ONNX file the way a backend does: inputs by name,
// a key/value cache carried from present to past.
type session struct {
	m      *testmodel.Model
	sess   *ort.DynamicAdvancedSession
	ins    []ort.InputOutputInfo
	outs   []ort.InputOutputInfo
	half   bool
	merged bool
}

func openSession(t *testing.T, m *testmodel.Model, path string) *session {
	t.Helper()
	ins, outs, err := ort.GetInputOutputInfo(path)
	require.NoError(t, err)
	inNames, outNames := names(ins), names(outs)
	sess, err := ort.NewDynamicAdvancedSession(path, inNames, outNames, nil)
	require.NoError(t, err)
	t.Cleanup(func() { sess.Destroy() })
	s := &session{m: m, sess: sess, ins: ins, outs: outs}
	s.half = outs[0].DataType == ort.TensorElementDataTypeFloat16
	for _, i := range ins {
		s.merged = s.merged || i.Name == "use_cache_branch"
	}
	return s
}

// kvCache holds present tensors (float32, [batch, kv_heads, len, head_dim]).
type kvCache struct {
	len  int
	data [][]float32 // key, value per layer
}

// step feeds ids [batch][seq] with mask [batch][past+seq] (and positions,
// when the file takes them) and returns logits [batch][seq][vocab] and the
// new cache.
func (s *session) step(t *testing.T, ids, mask, pos [][]int64, past *kvCache) ([][][]float32, *kvCache) {
	t.Helper()
	c := s.m.Config
	batch, seq := len(ids), len(ids[0])
	if past == nil {
		past = &kvCache{data: make([][]float32, 2*c.Layers)}
	}
	var vals []ort.Value
	defer func() {
		for _, v := range vals {
			if v != nil {
				v.Destroy()
			}
		}
	}()
	var inputs []ort.Value
	for _, in := range s.ins {
		var v ort.Value
		var err error
		switch in.Name {
		case "input_ids":
			v, err = ort.NewTensor(ort.NewShape(int64(batch), int64(seq)), flat(ids))
		case "attention_mask":
			v, err = ort.NewTensor(ort.NewShape(int64(batch), int64(len(mask[0]))), flat(mask))
		case "position_ids":
			v, err = ort.NewTensor(ort.NewShape(int64(batch), int64(seq)), flat(pos))
		case "use_cache_branch":
			v, err = ort.NewTensor(ort.NewShape(1), []bool{past.len > 0})
		default:
			var layer, which int
			var kv string
			_, err = fmt.Sscanf(in.Name, "past_key_values.%d.%s", &layer, &kv)
			require.NoError(t, err, in.Name)
			if kv == "value" {
				which = 1
			}
			v, err = s.floatTensor(ort.NewShape(int64(batch), int64(c.KVHeads), int64(past.len), int64(c.HeadDim)), past.data[2*layer+which])
		}
		require.NoError(t, err, in.Name)
		vals = append(vals, v)
		inputs = append(inputs, v)
	}
	total := int64(past.len + seq)
	outputs := make([]ort.Value, len(s.outs))
	for i, o := range s.outs {
		shape := ort.NewShape(int64(batch), int64(c.KVHeads), total, int64(c.HeadDim))
		if o.Name == "logits" {
			shape = ort.NewShape(int64(batch), int64(seq), int64(c.Vocab))
		}
		// Outputs are preallocated: onnxruntime_go copies too few bytes
		// when it allocates a float16 output itself.
		v, err := s.floatTensor(shape, make([]float32, shape.FlattenedSize()))
		require.NoError(t, err)
		vals = append(vals, v)
		outputs[i] = v
	}
	require.NoError(t, s.sess.Run(inputs, outputs))

	next := &kvCache{len: int(total)}
	var logits [][][]float32
	for i, o := range s.outs {
		data := s.floats(outputs[i])
		if o.Name == "logits" {
			logits = make([][][]float32, batch)
			for b := range logits {
				logits[b] = make([][]float32, seq)
				for p := range logits[b] {
					off := (b*seq + p) * c.Vocab
					logits[b][p] = data[off : off+c.Vocab]
				}
			}
			continue
		}
		next.data = append(next.data, data)
	}
	return logits, next
}

func (s *session) floatTensor(shape ort.Shape, data []float32) (ort.Value, error) {
	if !s.half {
		return ort.NewTensor(shape, data)
	}
	raw := make([]byte, 2*max(1, len(data))) // the binding refuses zero bytes, even for an empty tensor
	for i, v := range data {
		binary.LittleEndian.PutUint16(raw[2*i:], onnxpb.Float16Bits(v))
	}
	return ort.NewCustomDataTensor(shape, raw, ort.TensorElementDataTypeFloat16)
}

func (s *session) floats(v ort.Value) []float32 {
	if !s.half {
		return append([]float32(nil), v.(*ort.Tensor[float32]).GetData()...)
	}
	raw := v.(*ort.CustomDataTensor).GetData()
	out := make([]float32, len(raw)/2)
	for i := range out {
		out[i] = onnxpb.Float16Value(binary.LittleEndian.Uint16(raw[2*i:]))
	}
	return out
}

func flat(rows [][]int64) []int64 {
	var out []int64
	for _, r := range rows {
		out = append(out, r...)
	}
	return out
}

// maxDiff is the largest |a-b| over two rows of logits.
func maxDiff(a, b []float32) float64 {
	var m float64
	for i := range a {
		m = math.Max(m, math.Abs(float64(a[i])-float64(b[i])))
	}
	return m
}

// TestLlamaGraphAsExported holds the Llama graph to what torch's exporter
// writes for Hugging Face's model where ONNX Runtime's speed depends on
// it, on both sides of make perf's comparison: each cache output comes
// straight from its Concat (no Identity copy), and each RMSNorm is the
// form ONNX Runtime fuses into one SimplifiedLayerNormalization.
func TestLlamaGraphAsExported(t *testing.T) {
	orttest.Require(t)
	cfg := testmodel.Config{Arch: testmodel.Llama, Layers: 2, KVHeads: 2, PositionIDs: true, Seed: 41}
	m, err := testmodel.Build(filepath.Join(t.TempDir(), "m"), cfg)
	require.NoError(t, err)
	file, err := onnxpb.ReadFile(m.File, onnxpb.ReadOptions{SkipData: true})
	require.NoError(t, err)
	producer := map[string]string{}
	for _, n := range file.Graph.Nodes {
		for _, o := range n.Outputs {
			producer[o] = n.OpType
		}
	}
	for _, o := range file.Graph.Outputs[1:] {
		assert.Equal(t, "Concat", producer[o.Name], "%s", o.Name)
	}

	data, err := os.ReadFile(m.File)
	require.NoError(t, err)
	ins, outs, err := ort.GetInputOutputInfo(m.File)
	require.NoError(t, err)
	norms := 0
	for _, n := range orttest.Optimized(t, data, names(ins), names(outs)).Nodes {
		if n.OpType == "SimplifiedLayerNormalization" {
			norms++
		}
	}
	assert.Equal(t, 2*cfg.Layers+1, norms, "two RMSNorms a layer and the final one, each fused")
}

// names lists inputs' or outputs' names.
func names(infos []ort.InputOutputInfo) []string {
	var out []string
	for _, i := range infos {
		out = append(out, i.Name)
	}
	return out
}
