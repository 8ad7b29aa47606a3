package llamacpp

import (
	"context"

	"github.com/feather-eval/feather/harness/backends/llamacpp/llamalib"
	"github.com/feather-eval/feather/harness/backends/local"
	"github.com/feather-eval/feather/internal/logsoftmax"
)

// feeder packs tokens into batches for one context and hands each row
// whose logits are wanted to read, with the owner its token was added
// with.
type feeder struct {
	ctx    context.Context
	cx     *llamalib.Context
	batch  llamalib.Batch
	owners []int // per row: -1 for no logits, else the caller's id
	row    []float32
	read   func(owner int, logits []float32) error
}

// add appends a token at position pos of the sequences seqs (several
// share its cache cell), flushing first when the batch is full; owner
// >= 0 asks for the token's logits.
func (f *feeder) add(tok, pos, owner int, seqs ...int) error {
	if f.batch.Len() == f.cx.BatchSize() {
		if err := f.flush(); err != nil {
			return err
		}
	}
	f.batch.Add(int32(tok), pos, owner >= 0, seqs...)
	f.owners = append(f.owners, owner)
	return nil
}

// flush decodes the batch and reads the logits asked for.
func (f *feeder) flush() error {
	if f.batch.Len() == 0 {
		return nil
	}
	if err := f.ctx.Err(); err != nil {
		return err
	}
	if err := f.cx.Decode(&f.batch); err != nil {
		return err
	}
	for r, o := range f.owners {
		if o < 0 {
			continue
		}
		row, err := f.cx.Logits(r, f.row)
		if err != nil {
			return err
		}
		f.row = row
		if err := f.read(o, row); err != nil {
			return err
		}
	}
	f.batch.Reset()
	f.owners = f.owners[:0]
	return nil
}

// scoreSeqs returns one result per sequence. progress, when set, hears of
// the sequences done after each wave (lm.ScoreOptions.Progress).
func (m *Model) scoreSeqs(ctx context.Context, seqs []local.ScoreSeq, progress func(done, total int)) ([]local.SeqScore, error) {
	out := make([]local.SeqScore, len(seqs))
	for i := range out {
		out[i].Greedy = true
	}
	if len(seqs) == 0 {
		return out, nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	cx, err := m.context()
	if err != nil {
		return nil, err
	}
	done := 0
	for _, w := range plan(seqs, cx.Sequences(), cx.Size(), min(cx.BatchSize(), cx.Size())) {
		if err := m.scoreWave(ctx, cx, w, out); err != nil {
			return nil, err
		}
		if progress != nil {
			done += len(w.members)
			progress(done, len(seqs))
		}
	}
	return out, nil
}

// scoreWave decodes a wave's prefix tree from an empty cache and adds
// the log-probability of each scored token to its sequence's result, a
// row of logits normalised once for all the tokens it predicts.
func (m *Model) scoreWave(ctx context.Context, cx *llamalib.Context, w wave, out []local.SeqScore) error {
	if err := cx.Clear(); err != nil {
		return err
	}
	f := &feeder{ctx: ctx, cx: cx, read: func(owner int, logits []float32) error {
		norm := logsoftmax.Of(logits)
		for _, t := range w.nodes[owner].reads {
			lp, greedy := norm.LogProb(logits, t.tok)
			o := &out[t.seq]
			o.LogProb += lp
			o.Greedy = o.Greedy && greedy
		}
		return nil
	}}
	for i, n := range w.nodes {
		owner := -1
		if len(n.reads) > 0 {
			owner = i
		}
		if err := f.add(n.token, n.pos, owner, n.seqs...); err != nil {
			return err
		}
	}
	return f.flush()
}
