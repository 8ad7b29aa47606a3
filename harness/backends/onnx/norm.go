package onnx

import (
	"fmt"

	ort "github.com/yalue/onnxruntime_go"

	pb "github.com/feather-eval/feather/harness/backends/onnx/onnxpb"
)

// This file normalises rows of logits in ONNX Runtime for scoring. A
// token's log-probability is x[tok] - max - log Σ e^(x-max); that sum over
// the vocabulary, in Go (logsoftmax.SumExp), took about 200 µs a 32k row, a third of
// a μBench run's time on the perf fixture, where this file's graph (ONNX
// Runtime's vectorised LogSoftmax and two ReduceMax) takes about 15. So a
// call that scores (step.logProbs) runs a small second session on the
// rows of logits the model just computed, which gives each row's maximum
// and log Σ; scoring then reads only the token's logit
// (logitsView.logProb). A session of its own, not nodes added to the
// split head, so that generation, which reads only the argmax, does not
// pay for it. It runs where the rows computed are about the rows read (a
// split head's, an export's logits-to-keep span); a model run whole
// computes every position, and the rows read are normalised in Go.

// The normalisation graph's input and outputs.
const (
	normLogits = "logits"
	normMax    = "max"
	normLogSum = "logsum"
)

// normOpset is the normalisation graph's opset: ReduceMax still takes its
// axes as an attribute.
const normOpset = 17

// normGraph computes, from logits [rows, vocab] of type dtype, each row's
// maximum (normMax) and log Σ e^(x-max) (normLogSum), in float32 whatever
// the logits' type (float16 rows are cast first). LogSoftmax writes
// (x-max) - log Σ, which is -log Σ at the maximum and less elsewhere, so
// its row maximum gives log Σ without a second pass over e^x; on 32k
// rows ReduceLogSumExp, or Exp and ReduceSum written out, took 4-10 times
// as long, and ArgMax twice as long as ReduceMax and LogSoftmax together
// (so greedy flags compare with the maximum instead).
func normGraph(dtype pb.DataType, vocab int) *pb.Graph {
	b := pb.NewBuilder("feather_norm")
	x := b.Input(normLogits, dtype, pb.P("rows"), pb.D(int64(vocab)))
	if dtype != pb.Float {
		x = b.OpAttr("Cast", []pb.Attribute{pb.AttrInt("to", int64(pb.Float))}, x)
	}
	reduce := []pb.Attribute{pb.AttrInts("axes", 1), pb.AttrInt("keepdims", 0)}
	lsm := b.OpAttr("LogSoftmax", []pb.Attribute{pb.AttrInt("axis", 1)}, x)
	b.Output(b.OpAttr("ReduceMax", reduce, x), normMax, pb.Float, pb.P("rows"))
	b.Output(b.Op("Neg", b.OpAttr("ReduceMax", reduce, lsm)), normLogSum, pb.Float, pb.P("rows"))
	return b.Graph()
}

// newNormSession opens the normalisation of the model's logits. It runs
// on the CPU whatever the model's provider: the logits are in host memory.
func newNormSession(spec *ioSpec, threads int) (*ort.DynamicAdvancedSession, error) {
	dtype := pb.Float
	if spec.logitsType == ort.TensorElementDataTypeFloat16 {
		dtype = pb.Float16
	}
	data, err := (&pb.Model{IRVersion: 8, Opsets: []pb.Opset{{Version: normOpset}}, Graph: normGraph(dtype, spec.vocab)}).Marshal()
	if err != nil {
		return nil, err
	}
	so, err := sessionOptions(ProviderCPU, 0, threads)
	if err != nil {
		return nil, err
	}
	defer so.Destroy()
	return ort.NewDynamicAdvancedSessionWithONNXData(data, []string{normLogits}, []string{normMax, normLogSum}, so)
}

// normChunkBytes bounds the rows of one normalisation call by the size of
// LogSoftmax's output, which ONNX Runtime's arena must hold: larger calls
// only grow it (first-touch page faults on every new size).
const normChunkBytes = 4 << 20

// normalise runs the normalisation on the first n rows of logits the
// runner holds and points the view at the results.
func (r *runner) normalise(n int) error {
	vocab, size := r.spec.vocab, elemSize(r.spec.logitsType)
	r.normBuf = grow(r.normBuf, 2*n*4)
	chunk := max(1, normChunkBytes/(4*vocab))
	for lo := 0; lo < n; lo += chunk {
		hi := min(n, lo+chunk)
		if err := r.normaliseRows(r.logits[lo*vocab*size:hi*vocab*size], hi-lo, r.normBuf[lo*4:hi*4], r.normBuf[(n+lo)*4:(n+hi)*4]); err != nil {
			return err
		}
	}
	all := asFloat32(r.normBuf)
	r.view.max, r.view.logsum = all[:n], all[n:]
	return nil
}

// normaliseRows runs the normalisation on rows rows of logits.
func (r *runner) normaliseRows(logits []byte, rows int, maxOut, logsumOut []byte) error {
	in, err := ort.NewCustomDataTensor(ort.NewShape(int64(rows), int64(r.spec.vocab)), logits, r.spec.logitsType)
	if err != nil {
		return err
	}
	defer in.Destroy()
	maxes, err := ort.NewCustomDataTensor(ort.NewShape(int64(rows)), maxOut, ort.TensorElementDataTypeFloat)
	if err != nil {
		return err
	}
	defer maxes.Destroy()
	logsums, err := ort.NewCustomDataTensor(ort.NewShape(int64(rows)), logsumOut, ort.TensorElementDataTypeFloat)
	if err != nil {
		return err
	}
	defer logsums.Destroy()
	if err := r.norm.Run([]ort.Value{in}, []ort.Value{maxes, logsums}); err != nil {
		return fmt.Errorf("ONNX Runtime (normalising logits): %w", err)
	}
	return nil
}
