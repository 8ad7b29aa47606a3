package testmodel

import (
	"fmt"
	"math"
	"sort"
	"sync"

	"github.com/feather-eval/feather/harness/backends/onnx/decoder"
	"github.com/feather-eval/feather/harness/backends/onnx/seeded"
)

// BigramConfig describes a designed model: a Llama-style decoder whose
// attention and MLP output projections are zero, so every layer adds
// exactly nothing to the residual stream and the logits at position t are
// a function of token t alone: log P(next | token_t) is a fixed table.
//
// Each token belongs to one of Hidden classes and its embedding is a
// scaled one-hot vector of its class, so RMSNorm yields exactly 1.0 and
// the logits are the LM head's row for the class, bit for bit, in ONNX
// Runtime's float32 as in the table. The table has one row per class.
type BigramConfig struct {
	// Config gives the shape and the file options (Layout, Variants,
	// NoPast, PositionIDs, ExternalData, ChatTemplate, EOSIDs, Seed…).
	// Arch must be Llama or empty; Hidden must be a power of 4 (16, 64,
	// 256, 1024; default 64) so the normalisation is exact; the head is
	// always untied.
	Config
	// Next makes Next[prev] the most likely token after prev, by Margin
	// nats over the next best, so greedy decoding follows a chain you
	// choose (ending in an EOS to test stopping). Each entry gives prev a
	// class of its own, so Next needs fewer than Hidden entries.
	Next map[int]int
	// Margin defaults to 3 nats.
	Margin float64
}

// Bigram is a built designed model with its exact table.
type Bigram struct {
	*Model
	class []int // token → class
	mu    sync.Mutex
	rows  map[int][]float64
}

// bigramScale is each embedding's one non-zero value: a power of two
// large enough that RMSNorm's epsilon vanishes in float32 rounding.
const bigramScale = 1024

// BuildBigram writes a designed model folder to dir.
func BuildBigram(dir string, bc BigramConfig) (*Bigram, error) {
	if bc.Arch != "" && bc.Arch != Llama {
		return nil, fmt.Errorf("testmodel: designed bigram models are Llama-style; leave Arch empty or set it to %q", Llama)
	}
	if bc.TiedEmbeddings {
		return nil, fmt.Errorf("testmodel: a designed bigram model's LM head holds its table, so it cannot be tied to the embedding; drop TiedEmbeddings")
	}
	c := bc.Config
	c.Arch = Llama
	if c.Hidden == 0 {
		c.Hidden = 64
	}
	c = c.Defaults()
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if c.Hidden != 16 && c.Hidden != 64 && c.Hidden != 256 && c.Hidden != 1024 {
		return nil, fmt.Errorf("testmodel: a designed bigram model needs Hidden 16, 64, 256 or 1024 (a power of 4, so RMSNorm is exact in float32); got %d", c.Hidden)
	}
	if len(bc.Next) >= c.Hidden {
		return nil, fmt.Errorf("testmodel: %d Next entries need Hidden > %d (got %d): each takes a class of its own", len(bc.Next), len(bc.Next), c.Hidden)
	}
	for p, n := range bc.Next {
		if p < 0 || p >= c.Vocab || n < 0 || n >= c.Vocab {
			return nil, fmt.Errorf("testmodel: Next entry %d → %d is outside the vocabulary [0, %d)", p, n, c.Vocab)
		}
	}
	margin := bc.Margin
	if margin == 0 {
		margin = 3
	}
	m, err := newModel(c)
	if err != nil {
		return nil, err
	}
	b := &Bigram{Model: m, rows: map[int][]float64{}}
	b.design(bc.Next, margin)
	if err := m.writeFolder(dir); err != nil {
		return nil, err
	}
	return b, nil
}

// design zeroes what mixes positions, gives every token its class
// embedding and writes the table into the LM head.
func (b *Bigram) design(next map[int]int, margin float64) {
	c := b.Config
	for i := 0; i < c.Layers; i++ {
		clear(b.w[decoder.LayerName(i, "self_attn.o_proj.weight")].Data)
		clear(b.w[decoder.LayerName(i, "mlp.down_proj.weight")].Data)
	}
	prevs := make([]int, 0, len(next))
	for p := range next {
		prevs = append(prevs, p)
	}
	sort.Ints(prevs)
	own := map[int]int{}
	for k, p := range prevs {
		own[p] = k
	}
	shared := c.Hidden - len(prevs)
	b.class = make([]int, c.Vocab)
	for t := range b.class {
		if k, ok := own[t]; ok {
			b.class[t] = k
		} else {
			b.class[t] = len(prevs) + t%shared
		}
	}

	emb := b.w[c.arch().EmbedName()]
	clear(emb.Data)
	for t, k := range b.class {
		emb.Data[t*c.Hidden+k] = bigramScale
	}
	// RMSNorm of a·e_k is a·e_k/√(a²/D) = √D·e_k; the weight 1/√D (a power
	// of two) makes it exactly e_k.
	norm := b.w["model.norm.weight"]
	for i := range norm.Data {
		norm.Data[i] = float32(1 / math.Sqrt(float64(c.Hidden)))
	}
	head := b.w["lm_head.weight"]
	r := seeded.Stream(c.Seed, "bigram table")
	for i := range head.Data {
		head.Data[i] = r.Uniform(2)
	}
	for k, p := range prevs {
		row := head.Data[k*c.Vocab : (k+1)*c.Vocab]
		n := next[p]
		best := float32(math.Inf(-1))
		for v, x := range row {
			if v != n {
				best = max(best, x)
			}
		}
		row[n] = best + float32(margin)
		for float64(row[n])-float64(best) < margin {
			row[n] = math.Nextafter32(row[n], float32(math.Inf(1))) // at least the margin, after rounding
		}
	}
}

// Class is the table row token tok reads.
func (b *Bigram) Class(tok int) int { return b.class[tok] }

// Row is log P(· | prev) over the vocabulary: the log-softmax of the
// head's row for prev's class.
func (b *Bigram) Row(prev int) []float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	k := b.class[prev]
	if r, ok := b.rows[k]; ok {
		return r
	}
	v := b.Config.Vocab
	logits := b.w["lm_head.weight"].Data[k*v : (k+1)*v]
	r := LogSoftmax(logits)
	b.rows[k] = r
	return r
}

// LogProb is log P(next | prev), natural log.
func (b *Bigram) LogProb(prev, next int) float64 { return b.Row(prev)[next] }

// Argmax is the most likely token after prev (the smallest id on ties).
func (b *Bigram) Argmax(prev int) int {
	r := b.Row(prev)
	best := 0
	for i, v := range r {
		if v > r[best] {
			best = i
		}
	}
	return best
}

// SequenceLogProb is log P(ids[1:] | ids[0]): every token after the first
// scored once. With ids = [BOS] + tokens(text) it is the rolling
// log-likelihood of text, whatever the windows.
func (b *Bigram) SequenceLogProb(ids []int) float64 {
	var s float64
	for t := 1; t < len(ids); t++ {
		s += b.LogProb(ids[t-1], ids[t])
	}
	return s
}

// ContinuationLogProb is log P(continuation | context) with the result of
// IsGreedy: whether every continuation token is the argmax. The context
// must hold at least one token (the BOS prefix).
func (b *Bigram) ContinuationLogProb(context, continuation []int) (logProb float64, greedy bool) {
	if len(context) == 0 {
		panic("testmodel: ContinuationLogProb needs a context of at least one token (the BOS prefix)")
	}
	greedy = true
	prev := context[len(context)-1]
	for _, tok := range continuation {
		logProb += b.LogProb(prev, tok)
		greedy = greedy && b.Argmax(prev) == tok
		prev = tok
	}
	return logProb, greedy
}

// Greedy is greedy decoding after last: up to maxNew tokens, stopping
// after (and including) the first of Config.EOSIDs.
func (b *Bigram) Greedy(last, maxNew int) []int {
	var out []int
	for len(out) < maxNew {
		last = b.Argmax(last)
		out = append(out, last)
		for _, e := range b.Config.EOSIDs {
			if last == e {
				return out
			}
		}
	}
	return out
}
