package onnx

import (
	"context"
	"slices"
	"time"

	"github.com/feather-eval/feather/harness/backends/local"
	"github.com/feather-eval/feather/harness/lm"
)

// decodeSeqs decodes greedily, batching prompts by the token budget. When
// observe is set it sees the logits each token was chosen from.
func (m *Model) decodeSeqs(ctx context.Context, seqs []local.GenSeq, observe func(seq int, logits []float32)) ([]local.GenOut, error) {
	out := make([]local.GenOut, len(seqs))
	batches := genBatches(seqs, m.genTokens, m.spec.leftPadOK())
	err := m.parallel(ctx, len(batches), func(r *runner, i int) error {
		return m.decodeBatch(ctx, r, batches[i], seqs, out, observe)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// genBatches groups prompts, longest first, into decoding batches. A
// batch is a prefill call and a call per token after the first, so it is
// cut where the prompts' padding would cost more than those calls
// (cheapestCuts), within budget, which counts each row's prompt and new
// tokens (the cache grows to that length), and with prompts of one length
// only where left padding is not allowed.
func genBatches(seqs []local.GenSeq, budget int, leftPad bool) [][]int {
	order := make([]int, len(seqs))
	maxNew := 1
	for i, s := range seqs {
		order[i] = i
		maxNew = max(maxNew, s.MaxNew)
	}
	return longestFirst(order, func(i int) int { return len(seqs[i].Prompt) },
		batchLimits{budget: budget, maxRows: maxBatchRows, grow: maxNew, overhead: callCost * maxNew, leftPad: leftPad})
}

// liveRow is a prompt still being decoded.
type liveRow struct {
	seq    int
	tokens []int   // prompt and generated tokens
	mask   []int64 // the cache's mask row (cached decoding)
}

func (m *Model) decodeBatch(ctx context.Context, r *runner, idx []int, seqs []local.GenSeq, out []local.GenOut, observe func(int, []float32)) error {
	start := time.Now()
	cached := m.spec.layers > 0 && !m.noCache
	rows := make([]liveRow, len(idx))
	stage := make([]stageRow, len(idx))
	for i, s := range idx {
		rows[i] = liveRow{seq: s, tokens: append([]int(nil), seqs[s].Prompt...)}
		stage[i] = stageRow{tokens: rows[i].tokens, targets: []target{{pos: len(rows[i].tokens) - 1}}}
	}
	if cached {
		// Prompts that share a prefix (a chat template's system prompt)
		// run it once, in stage 0, and prefill only their own tokens.
		for _, batch := range m.prefixBatches(m.sharePrefixes(stage)) {
			if err := m.runPrefixes(r, batch); err != nil {
				return err
			}
		}
	}
	width := 0
	for _, row := range stage {
		width = max(width, len(row.tokens))
	}
	st := m.leftPadded(stage, width)
	underPrefixes(st, stage, r.kvB)
	var present *kvCache
	if cached {
		present = r.kvA
		full := len(st.mask) / len(rows)
		for i := range rows {
			rows[i].mask = append([]int64(nil), st.mask[i*full:(i+1)*full]...)
		}
	}
	first := true
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		st.want = st.lastPositions()
		view, err := r.run(st, present)
		if err != nil {
			return err
		}
		// Choose each row's token; keep the rows that go on.
		var keep []int
		now := time.Since(start)
		for b := range rows {
			row := &rows[b]
			logits := view.row(b, st.seq-1)
			if observe != nil {
				observe(row.seq, logits)
			}
			tok := argmax(logits)
			o := &out[row.seq]
			if first {
				o.TTFT = now
			}
			o.Tokens = append(o.Tokens, tok)
			row.tokens = append(row.tokens, tok)
			switch {
			case slices.Contains(m.eos, tok):
				o.Stop, o.Wall = lm.StopEOS, now
			case len(o.Tokens) >= seqs[row.seq].MaxNew:
				o.Stop, o.Wall = lm.StopLength, now
			default:
				keep = append(keep, b)
			}
		}
		first = false
		if len(keep) == 0 {
			return nil
		}
		if !cached {
			next := make([]liveRow, len(keep))
			stage = stage[:len(keep)]
			for i, b := range keep {
				next[i] = rows[b]
				stage[i] = stageRow{tokens: next[i].tokens}
			}
			rows = next
			st = m.leftPadded(stage, len(rows[0].tokens))
			continue
		}
		// Cached: the cache just written becomes the past; finished rows
		// leave it so they cost nothing more.
		cache := present
		if len(keep) < len(rows) {
			cache.gather(r.other(cache), keep)
			cache = r.other(cache)
			next := make([]liveRow, len(keep))
			for i, b := range keep {
				next[i] = rows[b]
			}
			rows = next
		}
		st = m.nextStep(rows, cache)
		present = r.other(cache)
	}
}

// nextStep feeds each row's newest token on top of the cache.
func (m *Model) nextStep(rows []liveRow, past *kvCache) *step {
	n := past.length + 1
	st := &step{rows: len(rows), seq: 1, past: past}
	st.ids = make([]int64, len(rows))
	st.pos = make([]int64, len(rows))
	st.mask = make([]int64, 0, len(rows)*n)
	for i := range rows {
		row := &rows[i]
		row.mask = append(row.mask, 1)
		st.mask = append(st.mask, row.mask...)
		st.ids[i] = int64(row.tokens[len(row.tokens)-1])
		st.pos[i] = int64(len(row.tokens) - 1)
	}
	return st
}
