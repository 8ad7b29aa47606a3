package e2e_test

import (
	"cmp"
	"encoding/json"
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/catalog"
	_ "github.com/feather-eval/feather/harness/backends/llamacpp" // the llamacpp catalog backend
	"github.com/feather-eval/feather/harness/backends/llamacpp/gguf"
	"github.com/feather-eval/feather/harness/backends/llamacpp/llamalib"
	"github.com/feather-eval/feather/harness/backends/llamacpp/llamalib/llamatest"
	"github.com/feather-eval/feather/harness/backends/llamacpp/twin"
	"github.com/feather-eval/feather/harness/backends/onnx"
	"github.com/feather-eval/feather/harness/backends/onnx/ortlib/orttest"
	"github.com/feather-eval/feather/harness/backends/onnx/testmodel"
	"github.com/feather-eval/feather/harness/backends/onnx/tokenizer"
	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/suites/microbench"
	"github.com/feather-eval/feather/internal/testenv"
)

// feather's ONNX backend beside llama.cpp, the engine a user would
// otherwise pick for CPU inference, on the SmolLM2-135M-shaped fixture:
// one set of weights as an ONNX export (float32 and its quantized files)
// and as GGUF (F32 and Q8_0, converted as llama.cpp's converter does),
// both with SmolLM-135M's vocabulary (package twin), over the same μBench
// requests and Featherweight prompts as the transformers.js comparison.
// llama.cpp runs twice: through the llamacpp backend, opened from a
// catalog entry as a run opens it, and driven directly through llamalib
// (llamaDirect), with the best settings found for this work: the anchor
// the backend is held to. Every engine runs on one thread and is compared
// on process CPU time, each engine's fastest of b.N runs counting, the
// engines taking turns within each run.

// vsLlamaVariants are the quantized ONNX files set beside llama.cpp's Q8_0.
var vsLlamaVariants = []string{"int8", "uint8", "q4"}

// vsLlamaTypes are the GGUF files, with the names the metrics use.
var vsLlamaTypes = []struct {
	ft   gguf.FileType
	name string
}{{gguf.AllF32, "f32"}, {gguf.MostlyQ8_0, "q8"}}

// BenchmarkVsLlamaCpp reports, for scoring and generation (<phase>):
// f32-x-<phase> (llama.cpp F32's time ÷ the float32 ONNX file's; goal
// ≥ 1.5), q8-x-<phase> (llama.cpp Q8_0's ÷ the fastest quantized ONNX
// file's; goal ≥ 1) and <variant>-x-q8-<phase> for each quantized file,
// all against llama.cpp driven directly; backend-<type>-x-<phase> (the
// direct drive's time ÷ the llamacpp backend's; goal ≥ 0.9); llama.cpp's
// own speeds driven directly (<type>-prefill-tok-s, <type>-decode-tok-s,
// <type>-score-req-s); and how far the engines agree: f32-max-dlogprob
// (the largest difference of a request's log-likelihood between llama.cpp
// F32 and the float32 ONNX file) and f32-same-text (prompts whose greedy
// text is the same on both).
func BenchmarkVsLlamaCpp(b *testing.B) {
	orttest.Require(b)
	llamatest.Require(b)
	root := b.TempDir()
	cfg := testmodel.SmolLM2Fixture()
	cfg.Variants = vsLlamaVariants
	tw, err := twin.Build(filepath.Join(root, "onnx"), cfg, testenv.Tokenizer("smollm-135m"))
	if err != nil {
		b.Fatal(err)
	}
	tok, err := tokenizer.Load(tw.ONNX)
	if err != nil {
		b.Fatal(err)
	}
	reqs := spread(microbenchRequests(b).reqs, vsLlamaRequests)
	prompts := featherweightRequests(b, vsLlamaPrompts)
	seqs, promptIDs := tokenizeRequests(tok, reqs), encodePrompts(tok, prompts)

	var engines []vsEngine
	for _, v := range append([]string{""}, vsLlamaVariants...) {
		m, err := onnx.Open(b.Context(), tw.ONNX, onnx.Options{Key: "smollm2-shape", Variant: v, Threads: vsLlamaThreads})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { m.Close() })
		m.Settle()
		engines = append(engines, vsEngine{name: "onnx " + cmp.Or(v, "fp32"), side: &featherSide{m: m, reqs: reqs, prompts: prompts}})
	}
	// The same weights as a Hugging Face checkpoint, whose graph the
	// backend builds with a tree mask (scoring a prefix tree a call).
	ckDir := filepath.Join(root, "checkpoint")
	if err := tw.SaveCheckpoint(ckDir); err != nil {
		b.Fatal(err)
	}
	for _, dt := range []string{onnx.DTypeFloat32, onnx.DTypeInt8} {
		ck, err := onnx.Open(b.Context(), ckDir, onnx.Options{Key: "smollm2-shape", Threads: vsLlamaThreads, DType: dt})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { ck.Close() })
		ck.Settle()
		engines = append(engines, vsEngine{name: "onnx " + dt + " checkpoint", side: &featherSide{m: ck, reqs: reqs, prompts: prompts}})
	}
	direct := map[gguf.FileType]*llamaDirect{}
	for _, t := range vsLlamaTypes {
		path, err := tw.GGUF(filepath.Join(root, "smollm2-shape-"+t.ft.String()+".gguf"), t.ft)
		if err != nil {
			b.Fatal(err)
		}
		direct[t.ft] = openDirect(b, path, seqs, promptIDs, prompts, llamaBest)
		engines = append(engines, vsEngine{name: "llama.cpp " + t.ft.String() + " direct", direct: direct[t.ft]})
		engines = append(engines, vsEngine{name: "llama.cpp " + t.ft.String() + " backend", side: &featherSide{m: openLlamaEntry(b, path), reqs: reqs, prompts: prompts}})
	}

	for _, e := range engines {
		e.run(b) // warm up
	}
	best := make([]struct{ score, gen cost }, len(engines))
	for b.Loop() {
		for i, e := range engines {
			s, g := e.run(b)
			best[i].score, best[i].gen = best[i].score.least(s), best[i].gen.least(g)
		}
	}
	b.StopTimer()
	at := map[string]int{}
	for i, e := range engines {
		at[e.name] = i
		b.Logf("%-24s scoring %v, generation %v (CPU, fastest of %d)", e.name, best[i].score.cpu, best[i].gen.cpu, b.N)
	}
	x := func(slow, fast string) (score, gen float64) {
		s, f := best[at[slow]], best[at[fast]]
		return ratio(s.score.cpu, f.score.cpu), ratio(s.gen.cpu, f.gen.cpu)
	}
	report := func(name string, score, gen float64) {
		b.ReportMetric(score, name+"-score")
		b.ReportMetric(gen, name+"-gen")
	}
	s, g := x("llama.cpp F32 direct", "onnx fp32")
	report("f32-x", s, g)
	s, g = x("llama.cpp F32 direct", "onnx float32 checkpoint")
	report("ckpt-f32-x", s, g)
	var bestScore, bestGen float64
	for _, v := range vsLlamaVariants {
		s, g := x("llama.cpp Q8_0 direct", "onnx "+v)
		report(v+"-x-q8", s, g)
		bestScore, bestGen = max(bestScore, s), max(bestGen, g)
	}
	s, g = x("llama.cpp Q8_0 direct", "onnx int8 checkpoint")
	report("ckpt-int8-x-q8", s, g)
	report("q8-x", max(bestScore, s), max(bestGen, g))
	for _, t := range vsLlamaTypes {
		name := "llama.cpp " + t.ft.String()
		s, g := x(name+" direct", name+" backend")
		report("backend-"+t.name+"-x", s, g)
		d := direct[t.ft]
		b.ReportMetric(float64(d.prefillTokens)/d.fastest.prefill.cpu.Seconds(), t.name+"-prefill-tok-s")
		b.ReportMetric(float64(d.decodeTokens)/d.fastest.decode.cpu.Seconds(), t.name+"-decode-tok-s")
		b.ReportMetric(float64(len(seqs))/d.fastest.score.cpu.Seconds(), t.name+"-score-req-s")
	}

	// Agreement: the same weights give the same answers, up to llama.cpp's
	// float16 key/value cache and attention.
	base, d := engines[at["onnx fp32"]].side, direct[gguf.AllF32]
	var worst float64
	for i, r := range base.scores {
		worst = max(worst, math.Abs(r.LogProb-d.logProbs[i]))
	}
	same := 0
	for i, g := range base.gens {
		if d.text(tok, i) == g.Text {
			same++
		}
	}
	b.ReportMetric(worst, "f32-max-dlogprob")
	b.ReportMetric(float64(same), "f32-same-text")
	if worst > vsLlamaAgree {
		b.Fatalf("llama.cpp F32 and the float32 ONNX file differ by %g in a request's log-likelihood (over %g): not the same model", worst, vsLlamaAgree)
	}
}

// The comparison's size: the transformers.js comparison's requests and
// prompts on this shape, one thread per engine.
const (
	vsLlamaRequests = 64
	vsLlamaPrompts  = 8
	vsLlamaThreads  = 1
)

// vsLlamaAgree bounds the difference of one request's log-likelihood
// between llama.cpp F32 and the float32 ONNX file: llama.cpp keeps its
// key/value cache in float16 and runs flash attention on it by default,
// which alone moves a token's log-probability by up to about 3e-3.
const vsLlamaAgree = 0.05

// vsEngine is one side of the comparison: a model behind the lm
// interfaces, or llama.cpp driven directly.
type vsEngine struct {
	name   string
	side   *featherSide
	direct *llamaDirect
}

func (e vsEngine) run(b *testing.B) (score, gen cost) {
	if e.direct != nil {
		return e.direct.run(b)
	}
	return e.side.run(b)
}

// openLlamaEntry opens the GGUF file at path through the catalog, as a
// run opens a llamacpp entry, on vsLlamaThreads.
func openLlamaEntry(b *testing.B, path string) scorerGenerator {
	b.Helper()
	entry, err := json.Marshal(map[string]any{"vs": map[string]any{"backend": "llamacpp", "path": path, "threads": vsLlamaThreads, "chat": "no"}})
	if err != nil {
		b.Fatal(err)
	}
	c, err := catalog.Parse("vs-llamacpp.json", entry)
	if err != nil {
		b.Fatal(err)
	}
	e, err := c.Get("vs")
	if err != nil {
		b.Fatal(err)
	}
	m, err := catalog.Open(b.Context(), e)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { m.Close() })
	sg, ok := m.(scorerGenerator)
	if !ok {
		b.Fatalf("the llamacpp backend's model %T does not both score and generate", m)
	}
	return sg
}

// encodePrompts is each prompt as the onnx backend feeds it.
func encodePrompts(tok *tokenizer.Tokenizer, prompts []lm.GenerateRequest) [][]int32 {
	out := make([][]int32, len(prompts))
	for i, p := range prompts {
		out[i] = int32s(tok.Encode(p.Prompt, true))
	}
	return out
}

// int32s and ints convert token ids between feather's and llama.cpp's types.
func int32s(ids []int) []int32 {
	out := make([]int32, len(ids))
	for i, id := range ids {
		out[i] = int32(id)
	}
	return out
}

func ints(ids []int32) []int {
	out := make([]int, len(ids))
	for i, id := range ids {
		out[i] = int(id)
	}
	return out
}

// llamaDirect is llama.cpp driven through llamalib alone, with the least
// work and the fewest calls this work allows: scoring puts requests in
// waves of at most the context's sequences, each wave's sequences in a
// prefix trie whose every token is decoded once, shared by all the
// sequences through it (a token may belong to several sequences, whose
// cache cell they then share), the whole wave in as few decodes as its
// tokens fill, logits only where a log-probability is read; generation
// prefills every prompt the same way, then decodes one token per prompt a
// step, all prompts still going in one batch, until a prompt has its new
// tokens or an end-of-generation token.
type llamaDirect struct {
	model    *llamalib.Model
	cx       *llamalib.Context
	seqs     []scoreIDs
	waves    [][]int // request indices
	prompts  [][]int32
	maxNew   []int
	feed     feeder
	logProbs []float64 // the last run's, per request
	gens     [][]int32 // the last run's, per prompt, an end token included
	done     []bool

	prefillTokens, decodeTokens int // the last run's
	// fastest is each phase's fastest run.
	fastest struct{ score, prefill, decode cost }
}

// llamaSettings are the direct drive's choices.
type llamaSettings struct {
	// wave caps the distinct tokens of a scoring wave, which a call or
	// more decode: every row attends to all the cells in use (llama.cpp's
	// unified cache masks other sequences' cells), so a wave trades
	// attention over cells it does not need against fewer calls, each of
	// which reads every weight.
	wave int
	// batch is the most tokens one decode carries.
	batch int
	// noFlash turns llama.cpp's flash attention off.
	noFlash bool
}

// llamaBest are the settings the comparison drives llama.cpp with.
var llamaBest = llamaSettings{wave: 512, batch: 512}

func openDirect(tb testing.TB, path string, seqs []scoreIDs, prompts [][]int32, gen []lm.GenerateRequest, set llamaSettings) *llamaDirect {
	tb.Helper()
	m, err := llamalib.OpenModel(path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { m.Close() })
	d := &llamaDirect{model: m, seqs: seqs, prompts: prompts}
	cells := 0
	for i, p := range prompts {
		d.maxNew = append(d.maxNew, gen[i].MaxNewTokens)
		cells += len(p) + gen[i].MaxNewTokens
	}
	const sequences = 64
	cx, err := m.NewContext(llamalib.ContextOptions{Size: max(set.wave, cells), Batch: set.batch, Sequences: max(len(prompts), sequences), Threads: vsLlamaThreads, NoFlashAttention: set.noFlash})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { cx.Close() })
	d.cx, d.feed = cx, feeder{cx: cx}
	var t trie
	for i, s := range seqs {
		if len(d.waves) == 0 || len(d.waves[len(d.waves)-1]) == sequences || t.grown(s.IDs[:len(s.IDs)-1]) > set.wave {
			d.waves, t = append(d.waves, nil), trie{}
		}
		d.waves[len(d.waves)-1] = append(d.waves[len(d.waves)-1], i)
		t.insert(s.IDs[:len(s.IDs)-1])
	}
	return d
}

// trie holds token sequences by their shared prefixes: a node is a token
// at its position, with the sequences through it (by their place in the
// trie) in order of insertion.
type trie struct {
	next  map[[2]int]int // (node, token) → child; node 0 is the root
	nodes []trieNode     // node i+1 is nodes[i], parents before children
	seqs  int
}

type trieNode struct {
	token, pos int
	seqs       []int
}

// grown is how many nodes the trie would have with ids inserted.
func (t *trie) grown(ids []int) int {
	node, n := 0, len(t.nodes)
	for i, id := range ids {
		child, ok := t.next[[2]int{node, id}]
		if !ok {
			return n + len(ids) - i
		}
		node = child
	}
	return n
}

// insert adds ids as the next sequence and returns its node at each
// position.
func (t *trie) insert(ids []int) []int {
	if t.next == nil {
		t.next = map[[2]int]int{}
	}
	path := make([]int, len(ids))
	node := 0
	for i, id := range ids {
		child, ok := t.next[[2]int{node, id}]
		if !ok {
			t.nodes = append(t.nodes, trieNode{token: id, pos: i})
			child = len(t.nodes)
			t.next[[2]int{node, id}] = child
		}
		t.nodes[child-1].seqs = append(t.nodes[child-1].seqs, t.seqs)
		node, path[i] = child, child
	}
	t.seqs++
	return path
}

func (d *llamaDirect) run(b *testing.B) (score, gen cost) {
	score = measure(b, func() { d.check(b, d.score()) })
	prefill := measure(b, func() { d.check(b, d.prefill()) })
	decode := measure(b, func() { d.check(b, d.decode()) })
	d.fastest.score = d.fastest.score.least(score)
	d.fastest.prefill = d.fastest.prefill.least(prefill)
	d.fastest.decode = d.fastest.decode.least(decode)
	return score, cost{prefill.wall + decode.wall, prefill.cpu + decode.cpu}
}

func (d *llamaDirect) check(b *testing.B, err error) {
	if err != nil {
		b.Fatal(err)
	}
}

// score computes every request's log-likelihood into d.logProbs.
func (d *llamaDirect) score() error {
	d.logProbs = make([]float64, len(d.seqs))
	for _, wave := range d.waves {
		if err := d.cx.Clear(); err != nil {
			return err
		}
		// Which requests read the log-probability after each node, and
		// of which token: a request scoring its last n tokens reads it
		// after each of the n positions before its end.
		var t trie
		reads := map[int][]target{}
		for _, r := range wave {
			ids := d.seqs[r].IDs
			path := t.insert(ids[:len(ids)-1])
			for p := len(ids) - 1 - d.seqs[r].N; p < len(ids)-1; p++ {
				reads[path[p]] = append(reads[path[p]], target{r, ids[p+1]})
			}
		}
		for i, n := range t.nodes {
			var use func([]float32)
			if ts := reads[i+1]; len(ts) > 0 {
				use = func(row []float32) {
					lse := logSumExp(row)
					for _, tg := range ts {
						d.logProbs[tg.req] += float64(row[tg.token]) - lse
					}
				}
			}
			if err := d.feed.add(int32(n.token), n.pos, use, n.seqs...); err != nil {
				return err
			}
		}
		if err := d.feed.flush(); err != nil {
			return err
		}
	}
	return nil
}

// target is a scored token: request req's token, read from a row.
type target struct{ req, token int }

// prefill decodes every prompt, each its own sequence, shared prefixes
// once, and picks each one's first token.
func (d *llamaDirect) prefill() error {
	if err := d.cx.Clear(); err != nil {
		return err
	}
	d.gens, d.done = make([][]int32, len(d.prompts)), make([]bool, len(d.prompts))
	d.decodeTokens = 0
	var t trie
	last := map[int][]int{} // node → the prompts it ends
	for i, p := range d.prompts {
		path := t.insert(ints(p))
		last[path[len(p)-1]] = append(last[path[len(p)-1]], i)
	}
	d.prefillTokens = len(t.nodes)
	for i, n := range t.nodes {
		var use func([]float32)
		if ends := last[i+1]; len(ends) > 0 {
			use = func(row []float32) {
				for _, e := range ends {
					d.pick(e)(row)
				}
			}
		}
		if err := d.feed.add(int32(n.token), n.pos, use, n.seqs...); err != nil {
			return err
		}
	}
	return d.feed.flush()
}

// decode feeds each prompt's last token, all prompts still going in one
// batch a step, until none is.
func (d *llamaDirect) decode() error {
	for {
		going := false
		for i, g := range d.gens {
			if d.done[i] {
				continue
			}
			going = true
			d.decodeTokens++
			if err := d.feed.add(g[len(g)-1], len(d.prompts[i])+len(g)-1, d.pick(i), i); err != nil {
				return err
			}
		}
		if !going {
			return nil
		}
		if err := d.feed.flush(); err != nil {
			return err
		}
	}
}

// pick takes prompt i's greedy token from a row of logits.
func (d *llamaDirect) pick(i int) func([]float32) {
	return func(row []float32) {
		t := argmax(row)
		d.gens[i] = append(d.gens[i], t)
		d.done[i] = d.model.IsEOG(t) || len(d.gens[i]) >= d.maxNew[i]
	}
}

// text is prompt i's greedy text as tok decodes it, without the end token.
func (d *llamaDirect) text(tok *tokenizer.Tokenizer, i int) string {
	g := d.gens[i]
	if len(g) > 0 && d.model.IsEOG(g[len(g)-1]) {
		g = g[:len(g)-1]
	}
	return tok.Decode(ints(g), true)
}

// feeder fills a batch, decodes it when full or flushed, and hands each
// row that asked for logits to its use.
type feeder struct {
	cx    *llamalib.Context
	batch llamalib.Batch
	uses  []rowUse
	row   []float32
}

type rowUse struct {
	row int
	use func([]float32)
}

func (f *feeder) add(tok int32, pos int, use func([]float32), seqs ...int) error {
	if f.batch.Len() == f.cx.BatchSize() {
		if err := f.flush(); err != nil {
			return err
		}
	}
	if use != nil {
		f.uses = append(f.uses, rowUse{f.batch.Len(), use})
	}
	f.batch.Add(tok, pos, use != nil, seqs...)
	return nil
}

func (f *feeder) flush() error {
	if f.batch.Len() == 0 {
		return nil
	}
	defer func() { f.batch.Reset(); f.uses = f.uses[:0] }()
	if err := f.cx.Decode(&f.batch); err != nil {
		return err
	}
	for _, u := range f.uses {
		row, err := f.cx.Logits(u.row, f.row)
		if err != nil {
			return err
		}
		f.row = row
		u.use(row)
	}
	return nil
}

// logSumExp is log Σ e^x over a row of logits.
func logSumExp(row []float32) float64 {
	hi := float32(math.Inf(-1))
	for _, x := range row {
		hi = max(hi, x)
	}
	var z float64
	for _, x := range row {
		z += math.Exp(float64(x - hi))
	}
	return float64(hi) + math.Log(z)
}

// argmax is the greedy token: the first of the largest logits.
func argmax(row []float32) int32 {
	best := 0
	for i, x := range row {
		if x > row[best] {
			best = i
		}
	}
	return int32(best)
}

// TestTrie pins the prefix trie the direct drive decodes: a token per
// distinct prefix, parents first, each with the sequences through it.
func TestTrie(t *testing.T) {
	var tr trie
	paths := [][]int{}
	for _, ids := range [][]int{{1, 2, 3}, {1, 2, 4}, {1, 5}, {1, 2, 3}} {
		paths = append(paths, tr.insert(ids))
	}
	assert.Equal(t, [][]int{{1, 2, 3}, {1, 2, 4}, {1, 5}, {1, 2, 3}}, paths)
	assert.Equal(t, []trieNode{
		{token: 1, pos: 0, seqs: []int{0, 1, 2, 3}},
		{token: 2, pos: 1, seqs: []int{0, 1, 3}},
		{token: 3, pos: 2, seqs: []int{0, 3}},
		{token: 4, pos: 2, seqs: []int{1}},
		{token: 5, pos: 1, seqs: []int{2}},
	}, tr.nodes)
	assert.Equal(t, 5, tr.grown([]int{1, 2, 4}))
	assert.Equal(t, 7, tr.grown([]int{1, 5, 6, 7}))
	assert.Equal(t, 8, tr.grown([]int{9, 9, 9}))
}

// TestDirectDriveAgreesWithONNX holds the comparison's anchor to the
// numbers: llama.cpp driven directly scores μBench requests and greedily
// generates Featherweight prompts on a small model's F32 GGUF as the onnx
// backend does on its ONNX twin, within llama.cpp's float16 cache.
func TestDirectDriveAgreesWithONNX(t *testing.T) {
	orttest.Require(t)
	llamatest.Require(t)
	root := t.TempDir()
	tw, err := twin.Build(filepath.Join(root, "onnx"), testmodel.Config{Arch: testmodel.Llama, Layers: 2, KVHeads: 2, PositionIDs: true, Seed: 30}, testenv.Tokenizer("smollm-135m"))
	require.NoError(t, err)
	tok, err := tokenizer.Load(tw.ONNX)
	require.NoError(t, err)
	path, err := tw.GGUF(filepath.Join(root, "m.gguf"), gguf.AllF32)
	require.NoError(t, err)
	reqs := spread(microbenchRequests(t).reqs, 24)
	prompts := featherweightRequests(t, 4)
	m, err := onnx.Open(t.Context(), tw.ONNX, onnx.Options{Threads: 1})
	require.NoError(t, err)
	defer m.Close()
	want, err := m.LogLikelihood(t.Context(), reqs, lm.ScoreOptions{MaxLength: microbench.MaxLength})
	require.NoError(t, err)
	gens, err := m.Generate(t.Context(), prompts)
	require.NoError(t, err)

	d := openDirect(t, path, tokenizeRequests(tok, reqs), encodePrompts(tok, prompts), prompts, llamaSettings{wave: 96, batch: 64})
	require.NoError(t, d.score())
	require.NoError(t, d.prefill())
	require.NoError(t, d.decode())
	require.Greater(t, len(d.waves), 1, "several waves, several decodes a wave")
	worst := 0.0
	for i, w := range want {
		worst = max(worst, math.Abs(w.LogProb-d.logProbs[i]))
		assert.InDelta(t, w.LogProb, d.logProbs[i], 0.01, "request %d %q|%q", i, reqs[i].Context, reqs[i].Continuation)
	}
	t.Logf("%d requests in %d waves, log-likelihoods within %.2g", len(reqs), len(d.waves), worst)
	for i, g := range gens {
		assert.Equal(t, g.Text, d.text(tok, i), "prompt %d", i)
	}
}
