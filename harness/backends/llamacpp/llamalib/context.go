package llamalib

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"unsafe"
)

// ContextOptions size a Context.
type ContextOptions struct {
	// Size is the KV cache length in tokens, shared by all sequences; 0
	// takes the model's training context. llama.cpp rounds it up to a
	// multiple of 256 (Context.Size reports the result).
	Size int
	// Batch is the most tokens one Decode may carry; 0 means 512.
	Batch int
	// Sequences is how many sequences the context holds, ids 0 to
	// Sequences-1; 0 means 1, at most 256.
	Sequences int
	// Threads run ggml's CPU kernels; 0 means GOMAXPROCS.
	Threads int
	// F32Cache keeps the KV cache in float32 instead of llama.cpp's
	// float16, for results that match an engine computing in float32
	// (the float16 cache alone moves log-probabilities by about 2e-3).
	F32Cache bool
	// NoFlashAttention turns off flash attention, which llama.cpp turns
	// on where it can: its graph casts keys and values to float16 for
	// it, whatever the cache's type, which moves logits by about 3e-3.
	NoFlashAttention bool
}

// Context is a llama.cpp context: a KV cache holding sequences, and the
// logits of the last decoded batch. Its methods are safe for concurrent
// use; llama.cpp runs one at a time.
type Context struct {
	mu    sync.Mutex
	model *Model
	ctx   uintptr
	mem   uintptr
	batch cBatch
	size  int
	nBat  int
	nSeq  int
	rows  []bool // rows of the last decoded batch that have logits
}

// NewContext makes a context for the model. The KV cache is unified (one
// buffer for all sequences): sequences then share the cells of a copied
// prefix, and llama.cpp copies any part of a sequence without asserting.
func (m *Model) NewContext(o ContextOptions) (*Context, error) {
	if o.Batch == 0 {
		o.Batch = 512
	}
	if o.Sequences == 0 {
		o.Sequences = 1
	}
	if o.Threads == 0 {
		o.Threads = runtime.GOMAXPROCS(0)
	}
	switch {
	case o.Size < 0 || o.Size > math.MaxInt32:
		return nil, fmt.Errorf("llamalib: context size %d is out of range [0, %d]", o.Size, math.MaxInt32)
	case o.Batch < 0 || o.Batch > math.MaxInt32:
		return nil, fmt.Errorf("llamalib: batch size %d is out of range [1, %d]", o.Batch, math.MaxInt32)
	case o.Sequences < 0 || o.Sequences > llamaMaxSeq:
		return nil, fmt.Errorf("llamalib: %d sequences is out of range [1, %d]", o.Sequences, llamaMaxSeq)
	case o.Threads < 0 || o.Threads > math.MaxInt32:
		return nil, fmt.Errorf("llamalib: %d threads is out of range", o.Threads)
	case o.Sequences > o.Batch:
		// llama.cpp reserves a graph with one output per sequence and
		// asserts that they fit in a batch.
		return nil, fmt.Errorf("llamalib: %d sequences need a batch of at least %d tokens, not %d", o.Sequences, o.Sequences, o.Batch)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.model == 0 {
		return nil, ErrClosed
	}
	p := c.ctxDefaults()
	p.NCtx = uint32(o.Size)
	p.NBatch = uint32(o.Batch)
	p.NUbatch = uint32(o.Batch) // one ubatch per batch: llama_decode asserts n_ubatch >= n_tokens for non-causal attention
	p.NSeqMax = uint32(o.Sequences)
	p.NThreads = int32(o.Threads)
	p.NThreadsBatch = int32(o.Threads)
	p.KVUnified = true
	if o.F32Cache {
		p.TypeK, p.TypeV = ggmlTypeF32, ggmlTypeF32
	}
	if o.NoFlashAttention {
		p.FlashAttnType = flashAttnDisabled
	}
	mark := logs.mark()
	h := c.initFromModel(m.model, p)
	if h == 0 {
		return nil, fmt.Errorf("llama.cpp could not make a context for %s%s", m.path, logs.since(mark))
	}
	cx := &Context{model: m, ctx: h, mem: c.getMemory(h)}
	cx.size, cx.nBat, cx.nSeq = int(c.nCtx(h)), int(c.nBatch(h)), int(c.nSeqMax(h))
	if cx.mem == 0 {
		c.free(h)
		return nil, fmt.Errorf("%s has no KV cache in llama.cpp (an embedding model?); the llama.cpp backend needs a text decoder", m.path)
	}
	cx.batch = c.batchInit(int32(cx.nBat), 0, int32(cx.nSeq))
	if cx.batch.Token == nil || cx.batch.Pos == nil || cx.batch.NSeqID == nil || cx.batch.SeqID == nil || cx.batch.Logits == nil {
		c.batchFree(cx.batch)
		c.free(h)
		return nil, fmt.Errorf("llamalib: out of memory for a batch of %d tokens", cx.nBat)
	}
	m.contexts++
	return cx, nil
}

// Size is the KV cache length in tokens; positions run from 0 to Size-1.
func (cx *Context) Size() int { return cx.size }

// BatchSize is the most tokens one Decode may carry.
func (cx *Context) BatchSize() int { return cx.nBat }

// Sequences is the number of sequence ids, 0 to Sequences-1.
func (cx *Context) Sequences() int { return cx.nSeq }

// Close frees the context.
func (cx *Context) Close() error {
	cx.mu.Lock()
	defer cx.mu.Unlock()
	if cx.ctx == 0 {
		return nil
	}
	c.batchFree(cx.batch)
	c.free(cx.ctx)
	cx.ctx, cx.mem, cx.batch, cx.rows = 0, 0, cBatch{}, nil
	cx.model.mu.Lock()
	cx.model.contexts--
	cx.model.mu.Unlock()
	return nil
}

// checkBatch refuses what llama_decode would assert on (an empty batch,
// more tokens than n_batch) and what the package promises to refuse
// itself: unknown tokens, positions outside the context, sequence ids
// outside the context's, and repeated ids.
func (cx *Context) checkBatch(b *Batch) error {
	n := b.Len()
	switch {
	case n == 0:
		return fmt.Errorf("llamalib: empty batch")
	case n > cx.nBat:
		return fmt.Errorf("llamalib: batch of %d tokens exceeds the context's batch size %d", n, cx.nBat)
	}
	if err := cx.model.checkTokens(b.tokens); err != nil {
		return err
	}
	for i := range n {
		if p := b.pos[i]; p < 0 || p >= cx.size {
			return fmt.Errorf("llamalib: batch row %d: position %d is outside the context [0, %d)", i, p, cx.size)
		}
		seqs := b.seqs[i]
		if len(seqs) == 0 {
			return fmt.Errorf("llamalib: batch row %d belongs to no sequence", i)
		}
		for j, s := range seqs {
			if s < 0 || s >= cx.nSeq {
				return fmt.Errorf("llamalib: batch row %d: sequence %d is outside the context's [0, %d)", i, s, cx.nSeq)
			}
			for _, t := range seqs[:j] {
				if t == s {
					return fmt.Errorf("llamalib: batch row %d names sequence %d twice", i, s)
				}
			}
		}
	}
	return nil
}

// Decode runs the batch through the model, adding its tokens to their
// sequences' KV cache. Each sequence must continue from its last position
// (llama.cpp refuses gaps, with the error quoted). After a failed Decode no
// logits are readable.
func (cx *Context) Decode(b *Batch) error {
	cx.mu.Lock()
	defer cx.mu.Unlock()
	if cx.ctx == 0 {
		return ErrClosed
	}
	if err := cx.checkBatch(b); err != nil {
		return err
	}
	n := b.Len()
	tok := unsafe.Slice(cx.batch.Token, n)
	pos := unsafe.Slice(cx.batch.Pos, n)
	nSeq := unsafe.Slice(cx.batch.NSeqID, n)
	seqs := unsafe.Slice(cx.batch.SeqID, n)
	out := unsafe.Slice(cx.batch.Logits, n)
	copy(tok, b.tokens)
	for i := range n {
		pos[i] = int32(b.pos[i]) // checked to be below the context size
		nSeq[i] = int32(len(b.seqs[i]))
		ids := unsafe.Slice(seqs[i], len(b.seqs[i]))
		for j, s := range b.seqs[i] {
			ids[j] = int32(s)
		}
		out[i] = 0
		if b.logits[i] {
			out[i] = 1
		}
	}
	cx.batch.NTokens = int32(n)
	cx.rows = nil
	mark := logs.mark()
	switch ret := c.decode(cx.ctx, cx.batch); {
	case ret == 0:
		cx.rows = append([]bool(nil), b.logits...)
		return nil
	case ret == 1:
		return fmt.Errorf("llamalib: no room in the KV cache (%d tokens) for a batch of %d; remove sequences or use a larger context", cx.size, n)
	case ret == -1:
		return fmt.Errorf("llama.cpp refused the batch%s", logs.since(mark))
	default:
		return fmt.Errorf("llama.cpp failed to decode (status %d)%s", ret, logs.since(mark))
	}
}

// Logits copies the logits of a row of the last decoded batch (one that
// asked for them) into dst, reusing it when it has room; the result has
// Model.VocabSize entries.
func (cx *Context) Logits(row int, dst []float32) ([]float32, error) {
	cx.mu.Lock()
	defer cx.mu.Unlock()
	if cx.ctx == 0 {
		return nil, ErrClosed
	}
	if row < 0 || row >= len(cx.rows) || !cx.rows[row] {
		return nil, fmt.Errorf("llamalib: row %d of the last decoded batch has no logits (ask for them in Batch.Add)", row)
	}
	p := c.logitsIth(cx.ctx, int32(row))
	if p == nil {
		return nil, fmt.Errorf("llama.cpp has no logits for row %d", row)
	}
	n := cx.model.nVocab
	if cap(dst) < n {
		dst = make([]float32, n)
	}
	dst = dst[:n]
	copy(dst, unsafe.Slice(p, n))
	return dst, nil
}

func (cx *Context) checkSeq(seq int) error {
	if seq < 0 || seq >= cx.nSeq {
		return fmt.Errorf("llamalib: sequence %d is outside the context's [0, %d)", seq, cx.nSeq)
	}
	return nil
}

// SeqCopy makes dst a copy of src: the KV entries of src are shared with
// dst (after dst's own are removed), so decoding can continue both from
// src's end.
func (cx *Context) SeqCopy(src, dst int) error {
	cx.mu.Lock()
	defer cx.mu.Unlock()
	if cx.ctx == 0 {
		return ErrClosed
	}
	if err := cx.checkSeq(src); err != nil {
		return err
	}
	if err := cx.checkSeq(dst); err != nil {
		return err
	}
	if src == dst {
		return nil
	}
	// Whole sequences only: some of llama.cpp's memories (DeepSeek V4's)
	// assert on partial copies.
	c.memorySeqRm(cx.mem, int32(dst), -1, -1)
	c.memorySeqCp(cx.mem, int32(src), int32(dst), -1, -1)
	return nil
}

// SeqRemove removes the positions from `from` on of sequence seq (from 0:
// all of it). Models with recurrent state cannot drop part of a sequence;
// that is an error.
func (cx *Context) SeqRemove(seq, from int) error {
	cx.mu.Lock()
	defer cx.mu.Unlock()
	if cx.ctx == 0 {
		return ErrClosed
	}
	if err := cx.checkSeq(seq); err != nil {
		return err
	}
	if from < 0 {
		return fmt.Errorf("llamalib: position %d is negative", from)
	}
	if !c.memorySeqRm(cx.mem, int32(seq), int32(min(from, math.MaxInt32)), -1) {
		return fmt.Errorf("llama.cpp cannot remove positions %d on of sequence %d from this model's memory; remove the whole sequence (from 0)", from, seq)
	}
	return nil
}

// SeqEnd is the position after the last one sequence seq holds (0 when it
// is empty): where its next token goes.
func (cx *Context) SeqEnd(seq int) (int, error) {
	cx.mu.Lock()
	defer cx.mu.Unlock()
	if cx.ctx == 0 {
		return 0, ErrClosed
	}
	if err := cx.checkSeq(seq); err != nil {
		return 0, err
	}
	return int(c.memoryPosMax(cx.mem, int32(seq))) + 1, nil
}

// Clear empties every sequence.
func (cx *Context) Clear() error {
	cx.mu.Lock()
	defer cx.mu.Unlock()
	if cx.ctx == 0 {
		return ErrClosed
	}
	c.memoryClear(cx.mem, true)
	return nil
}
