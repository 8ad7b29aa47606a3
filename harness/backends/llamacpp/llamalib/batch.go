package llamalib

// Batch is the input of one Context.Decode: tokens, each with its position,
// the sequences it belongs to, and whether its logits are wanted. It is
// plain Go memory; Decode checks it and copies it into llama.cpp's batch.
type Batch struct {
	tokens []int32
	pos    []int
	seqs   [][]int
	logits []bool
}

// Add appends a token at position pos of the given sequences (usually one;
// several share the token's KV entry). logits asks for its row of logits,
// readable after Decode at the index Add gave it (the batch's length
// before the call).
func (b *Batch) Add(token int32, pos int, logits bool, seqs ...int) {
	b.tokens = append(b.tokens, token)
	b.pos = append(b.pos, pos)
	b.seqs = append(b.seqs, append([]int(nil), seqs...))
	b.logits = append(b.logits, logits)
}

// Len is the number of tokens added.
func (b *Batch) Len() int { return len(b.tokens) }

// Reset empties the batch for reuse.
func (b *Batch) Reset() {
	b.tokens, b.pos, b.seqs, b.logits = b.tokens[:0], b.pos[:0], b.seqs[:0], b.logits[:0]
}
