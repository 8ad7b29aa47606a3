package onnx

import (
	"errors"
	"fmt"
	"slices"

	ort "github.com/yalue/onnxruntime_go"
)

// Provider names, as catalogs spell them.
const (
	ProviderCPU  = "cpu"
	ProviderCUDA = "cuda"
)

// runner is one ONNX Runtime session with buffers it reuses between calls.
// A runner serves one goroutine at a time.
type runner struct {
	sess *ort.DynamicAdvancedSession
	spec *ioSpec
	// head is set when the model is split at its LM head (headsplit.go):
	// sess then outputs hidden states, and head turns the rows a call
	// keeps into logits.
	head  *ort.DynamicAdvancedSession
	split *headSplit
	// whole is set when the model runs unsplit but rewritten.
	whole         *wholeGraph
	hidden, rowsH []byte
	// norm, when set, gives each row of logits its maximum and log-sum
	// for calls that score (norm.go), into normBuf.
	norm    *ort.DynamicAdvancedSession
	normBuf []byte

	logits  []byte
	discard *kvCache // present outputs the caller does not keep
	view    logitsView
	// kvA and kvB are caches a job may use while it holds the runner.
	kvA, kvB *kvCache
	// kept holds a scoring wave's context caches (keptCache).
	kept []*kvCache
	// causal and causalSliding back the tree masks of calls without a
	// tree (causalTree).
	causal, causalSliding []bool
}

// newRunner opens the model at path, or its split when split is set, or
// else whole (the model rewritten) when that is set.
func newRunner(path string, spec *ioSpec, split *headSplit, whole *wholeGraph, provider string, deviceID, threads int) (*runner, error) {
	so, err := sessionOptions(provider, deviceID, threads)
	if err != nil {
		return nil, err
	}
	defer so.Destroy()
	r := &runner{spec: spec, split: split, whole: whole, discard: newKVCache(spec), kvA: newKVCache(spec), kvB: newKVCache(spec)}
	if r.logitsWhereRead() {
		if r.norm, err = newNormSession(spec, threads); err != nil {
			return nil, fmt.Errorf("ONNX Runtime cannot create the session normalising %s's logits: %w", path, err)
		}
	}
	rw := r.rewritten()
	if rw == nil {
		r.sess, err = ort.NewDynamicAdvancedSession(path, spec.inputs, spec.outputs, so)
		if err != nil {
			r.close()
			return nil, fmt.Errorf("ONNX Runtime cannot create a session for %s: %w", path, err)
		}
		return r, nil
	}
	// A rewritten graph's weights are external data in the model's folder.
	if err := so.AddSessionConfigEntry("session.model_external_initializers_file_folder_path", rw.dir); err != nil {
		r.close()
		return nil, err
	}
	if split == nil {
		if r.sess, err = ort.NewDynamicAdvancedSessionWithONNXData(whole.model, spec.inputs, spec.outputs, so); err != nil {
			r.close()
			return nil, fmt.Errorf("ONNX Runtime cannot create a session for %s rewritten: %w", path, err)
		}
		return r, nil
	}
	outputs := append([]string{splitHidden}, spec.outputs[1:]...)
	if r.sess, err = ort.NewDynamicAdvancedSessionWithONNXData(split.body, spec.inputs, outputs, so); err != nil {
		r.close()
		return nil, fmt.Errorf("ONNX Runtime cannot create a session for %s's body: %w", path, err)
	}
	if r.head, err = ort.NewDynamicAdvancedSessionWithONNXData(split.head, []string{split.hidden}, []string{outLogits}, so); err != nil {
		r.close()
		return nil, fmt.Errorf("ONNX Runtime cannot create a session for %s's head: %w", path, err)
	}
	return r, nil
}

func sessionOptions(provider string, deviceID, threads int) (*ort.SessionOptions, error) {
	so, err := ort.NewSessionOptions()
	if err != nil {
		return nil, err
	}
	if threads > 0 {
		if err := so.SetIntraOpNumThreads(threads); err != nil {
			so.Destroy()
			return nil, err
		}
	}
	if err := so.SetInterOpNumThreads(1); err != nil {
		so.Destroy()
		return nil, err
	}
	if err := so.SetGraphOptimizationLevel(ort.GraphOptimizationLevelEnableAll); err != nil {
		so.Destroy()
		return nil, err
	}
	if err := useProvider(so, provider, deviceID); err != nil {
		so.Destroy()
		return nil, err
	}
	return so, nil
}

// rewritten is what Open rewrote of the graph the runner runs; nil when
// it runs the file as exported.
func (r *runner) rewritten() *rewrite {
	switch {
	case r.split != nil:
		return &r.split.rewrite
	case r.whole != nil:
		return &r.whole.rewrite
	}
	return nil
}

// other returns the runner's cache that is not c.
func (r *runner) other(c *kvCache) *kvCache {
	if c == r.kvA {
		return r.kvB
	}
	return r.kvA
}

// keptCache is the runner's i-th cache for a scoring wave's contexts,
// reused from wave to wave.
func (r *runner) keptCache(i int) *kvCache {
	for len(r.kept) <= i {
		r.kept = append(r.kept, newKVCache(r.spec))
	}
	return r.kept[i]
}

// logitsWhereRead says the runner's calls compute logits only at the
// positions they want (a split head, a logits-to-keep input) rather than
// at every position, which normalising rows and large generation batches
// pay off on.
func (r *runner) logitsWhereRead() bool { return r.split != nil || r.spec.keepInput != "" }

func (r *runner) close() error {
	var errs []error
	for _, sess := range []**ort.DynamicAdvancedSession{&r.sess, &r.head, &r.norm} {
		if *sess != nil {
			errs = append(errs, (*sess).Destroy())
			*sess = nil
		}
	}
	return errors.Join(errs...)
}

// step is one call of the model: rows × seq new tokens after past.
type step struct {
	rows, seq int
	ids       []int64 // rows*seq
	mask      []int64 // rows*(pastLen+seq), when the model takes a mask
	pos       []int64 // rows*seq, when the model takes position_ids
	past      *kvCache
	// tree, for a model with a tree mask (ioSpec.hasTree), is
	// rows*seq*(pastLen+seq): whether query s of row b attends to slot j;
	// nil attends causally over the mask, as a model without one does.
	tree []bool
	// treeSliding is tree for the sliding-window layers (the window
	// applied), when the model has them (ioSpec.hasTreeSliding).
	treeSliding []bool
	// want lists the positions (b·seq+s, ascending, once each) whose
	// logits the caller reads; nil means all. Models that can skip the
	// others do: a logits-to-keep input computes every row's positions
	// from the earliest wanted one on, a split head exactly the wanted ones.
	want []int
	// logProbs says the caller reads log-probabilities (logitsView's
	// logProb), which the runner then normalises for where it can.
	logProbs bool
	// cacheOnly says the caller reads no logits, only the cache (stage
	// 0): a split head is then not run, a logits-to-keep input keeps one
	// position (the fewest a call computes), and the view is empty.
	cacheOnly bool
}

// keepLast is how many trailing positions of every row cover want.
func (s *step) keepLast() int {
	if s.cacheOnly {
		return 1
	}
	if len(s.want) == 0 {
		return s.seq
	}
	first := s.seq
	for _, p := range s.want {
		first = min(first, p%s.seq)
	}
	return s.seq - first
}

// lastPositions wants each row's last position (the next token's logits).
func (s *step) lastPositions() []int {
	want := make([]int, s.rows)
	for b := range want {
		want[b] = (b+1)*s.seq - 1
	}
	return want
}

func (s *step) pastLen() int {
	if s.past == nil {
		return 0
	}
	return s.past.length
}

// emptyKV backs zero-length past tensors: ONNX Runtime needs a non-nil
// pointer even when a dimension is 0.
var emptyKV = alignedBytes(8)

// run calls the model. present receives the new cache (pastLen+seq long)
// and may be nil when the caller does not keep it; it must not be
// st.past. The returned view stays valid until the runner's next call.
func (r *runner) run(st *step, present *kvCache) (*logitsView, error) {
	spec := r.spec
	past := st.pastLen()
	if st.rows == 0 || st.seq == 0 {
		return nil, errors.New("empty model call")
	}
	var values []ort.Value
	defer func() {
		for _, v := range values {
			if v != nil {
				v.Destroy()
			}
		}
	}()
	add := func(v ort.Value, err error) error {
		if err != nil {
			return err
		}
		values = append(values, v)
		return nil
	}
	rows, seq := int64(st.rows), int64(st.seq)
	if err := add(ort.NewTensor(ort.NewShape(rows, seq), st.ids)); err != nil {
		return nil, err
	}
	if spec.hasMask {
		if err := add(ort.NewTensor(ort.NewShape(rows, int64(past)+seq), st.mask)); err != nil {
			return nil, err
		}
	}
	if spec.hasPos {
		if err := add(ort.NewTensor(ort.NewShape(rows, seq), st.pos)); err != nil {
			return nil, err
		}
	}
	kvShape := func(length int) ort.Shape {
		return ort.NewShape(rows, int64(spec.kvHeads), int64(length), int64(spec.headDim))
	}
	for i := 0; i < 2*spec.layers; i++ {
		data := emptyKV
		if past > 0 {
			data = st.past.bufs[i]
		}
		if err := add(ort.NewCustomDataTensor(kvShape(past), data, spec.kvType)); err != nil {
			return nil, err
		}
	}
	if spec.hasCacheBranch {
		if err := add(ort.NewTensor(ort.NewShape(1), []bool{past > 0})); err != nil {
			return nil, err
		}
	}
	kept := st.seq
	if spec.keepInput != "" {
		kept = st.keepLast()
		if err := add(ort.NewScalar(int64(kept))); err != nil {
			return nil, err
		}
	}
	if spec.hasTree {
		tree := st.tree
		if tree == nil {
			r.causal = causalTree(r.causal, st.rows, st.seq, past, 0)
			tree = r.causal
		}
		if err := add(ort.NewTensor(ort.NewShape(rows, seq, int64(past)+seq), tree)); err != nil {
			return nil, err
		}
	}
	if spec.hasTreeSliding {
		tree := st.treeSliding
		if tree == nil {
			r.causalSliding = causalTree(r.causalSliding, st.rows, st.seq, past, spec.window)
			tree = r.causalSliding
		}
		if err := add(ort.NewTensor(ort.NewShape(rows, seq, int64(past)+seq), tree)); err != nil {
			return nil, err
		}
	}
	nIn := len(values)

	if err := add(r.firstOutput(st, kept)); err != nil {
		return nil, err
	}
	if spec.layers > 0 {
		if present == nil {
			present = r.discard
		}
		present.resize(st.rows, past+st.seq)
		for i := 0; i < 2*spec.layers; i++ {
			if err := add(ort.NewCustomDataTensor(kvShape(past+st.seq), present.bufs[i], spec.kvType)); err != nil {
				return nil, err
			}
		}
	}
	if err := r.sess.Run(values[:nIn], values[nIn:]); err != nil {
		return nil, fmt.Errorf("ONNX Runtime: %w", err)
	}
	r.view = logitsView{seq: kept, skip: st.seq - kept, vocab: spec.vocab, scratch: r.view.scratch, index: r.view.index[:0]}
	if r.head != nil {
		if st.cacheOnly {
			r.logits = r.logits[:0]
		} else if err := r.runHead(st); err != nil {
			return nil, err
		}
	}
	if spec.logitsType == ort.TensorElementDataTypeFloat16 {
		r.view.f16 = asUint16(r.logits)
	} else {
		r.view.f32 = asFloat32(r.logits)
	}
	if st.logProbs && r.norm != nil {
		if err := r.normalise(len(r.logits) / (spec.vocab * elemSize(spec.logitsType))); err != nil {
			return nil, err
		}
	}
	return &r.view, nil
}

// causalTree is the tree mask of a call without a tree: each query sees
// every slot up to its own (the attention mask hides the padding) and,
// with a window, fewer than window slots back, in buf when it is large
// enough. Slots are positions there: a model with sliding-window layers
// is never padded (ioSpec.unpadded).
func causalTree(buf []bool, rows, seq, past, window int) []bool {
	total := past + seq
	n := rows * seq * total
	if cap(buf) < n {
		buf = make([]bool, n)
	}
	buf = buf[:n]
	for b := 0; b < rows; b++ {
		for i := 0; i < seq; i++ {
			row := buf[(b*seq+i)*total : (b*seq+i+1)*total]
			for j := range row {
				row[j] = j <= past+i && (window == 0 || past+i-j < window)
			}
		}
	}
	return buf
}

// firstOutput is where the session writes its first output: logits
// [rows, kept, vocab], or a split body's hidden states [rows·seq, width].
func (r *runner) firstOutput(st *step, kept int) (ort.Value, error) {
	if r.head == nil {
		r.logits = grow(r.logits, st.rows*kept*r.spec.vocab*elemSize(r.spec.logitsType))
		return ort.NewCustomDataTensor(ort.NewShape(int64(st.rows), int64(kept), int64(r.spec.vocab)), r.logits, r.spec.logitsType)
	}
	r.hidden = grow(r.hidden, st.rows*st.seq*r.split.width*r.split.hiddenSize())
	return ort.NewCustomDataTensor(ort.NewShape(int64(st.rows*st.seq), int64(r.split.width)), r.hidden, r.split.hiddenType())
}

// runHead applies the split head to the hidden states the body just
// wrote, at the positions st wants (all when it says none), and points
// the view at them.
func (r *runner) runHead(st *step) error {
	all := st.rows * st.seq
	rowBytes := r.split.width * r.split.hiddenSize()
	rows := r.hidden[:all*rowBytes]
	n := all
	if st.want != nil {
		n = len(st.want)
		r.rowsH = grow(r.rowsH, n*rowBytes)
		r.view.index = slices.Grow(r.view.index, all)[:all]
		for p := range r.view.index {
			r.view.index[p] = -1
		}
		for i, p := range st.want {
			copy(r.rowsH[i*rowBytes:(i+1)*rowBytes], r.hidden[p*rowBytes:(p+1)*rowBytes])
			r.view.index[p] = int32(i)
		}
		rows = r.rowsH[:n*rowBytes]
		r.view.seq = st.seq
	}
	r.logits = grow(r.logits, n*r.spec.vocab*elemSize(r.spec.logitsType))
	in, err := ort.NewCustomDataTensor(ort.NewShape(int64(n), int64(r.split.width)), rows, r.split.hiddenType())
	if err != nil {
		return err
	}
	defer in.Destroy()
	out, err := ort.NewCustomDataTensor(ort.NewShape(int64(n), int64(r.spec.vocab)), r.logits, r.spec.logitsType)
	if err != nil {
		return err
	}
	defer out.Destroy()
	if err := r.head.Run([]ort.Value{in}, []ort.Value{out}); err != nil {
		return fmt.Errorf("ONNX Runtime (LM head): %w", err)
	}
	return nil
}
