package local_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/feather-eval/feather/harness/backends/local"
	"github.com/feather-eval/feather/harness/lm"
)

// pieces is a toy vocabulary: a text encodes to its longest known pieces,
// left to right, so "Th" + "e cat" cannot split where "The cat" does.
// "<bos>" is token 0, text that names it included.
var pieces = []string{"<bos>", "The", "Th", "e", " cat", " sat", " on", " the", " mat", " hat", " rug"}

// rug is the token the toy engine scores as NaN.
const rug = 10

type toy struct{}

func (toy) Encode(text string) ([]int, error) {
	var ids []int
	for text != "" {
		best := -1
		for id, p := range pieces {
			if strings.HasPrefix(text, p) && (best < 0 || len(p) > len(pieces[best])) {
				best = id
			}
		}
		if best < 0 {
			return nil, fmt.Errorf("toy: no piece starts %q", text)
		}
		ids = append(ids, best)
		text = text[len(pieces[best]):]
	}
	return ids, nil
}

// EncodePrompt adds BOS, as a Llama tokenizer does.
func (t toy) EncodePrompt(text string) ([]int, error) {
	ids, err := t.Encode(text)
	if err != nil {
		return nil, err
	}
	return append([]int{0}, ids...), nil
}

func (toy) Decode(ids []int) (string, error) {
	var b strings.Builder
	for _, id := range ids {
		if id < 0 || id >= len(pieces) {
			return "", fmt.Errorf("toy: no token %d", id)
		}
		b.WriteString(pieces[id])
	}
	return b.String(), nil
}

// engine records what it is asked. A scored token costs its id in
// log-probability (rug: NaN), and a sequence is greedy when it scores one
// token. Decoding generates " mat" and " hat", stopping at EOS after
// them unless MaxNew stops it first; after " rug" it generates token 99,
// which the toy cannot decode.
type engine struct {
	scored  []local.ScoreSeq
	decoded []local.GenSeq
	err     error
}

func (e *engine) scoreSeqs(_ context.Context, seqs []local.ScoreSeq, progress func(done, total int)) ([]local.SeqScore, error) {
	if e.err != nil {
		return nil, e.err
	}
	e.scored = append(e.scored, seqs...)
	out := make([]local.SeqScore, len(seqs))
	for i, s := range seqs {
		for _, tok := range s.Tokens[len(s.Tokens)-s.N:] {
			if tok == rug {
				out[i].LogProb = math.NaN()
			}
			out[i].LogProb -= float64(tok)
		}
		out[i].Greedy = s.N == 1
	}
	if progress != nil {
		progress(len(seqs), len(seqs))
	}
	return out, nil
}

func (e *engine) decodeSeqs(_ context.Context, seqs []local.GenSeq) ([]local.GenOut, error) {
	if e.err != nil {
		return nil, e.err
	}
	e.decoded = append(e.decoded, seqs...)
	out := make([]local.GenOut, len(seqs))
	for i, s := range seqs {
		o := local.GenOut{Tokens: []int{8, 9}, Stop: lm.StopEOS, TTFT: time.Millisecond, Wall: 2 * time.Millisecond}
		switch {
		case s.Prompt[len(s.Prompt)-1] == rug:
			o.Tokens = []int{99}
		case s.MaxNew < 2:
			o.Tokens, o.Stop = o.Tokens[:s.MaxNew], lm.StopLength
		}
		out[i] = o
	}
	return out, nil
}

// model is a toy model of ctx tokens on e, without a chat template.
func model(e *engine, ctx int) local.Model {
	return local.Model{Backend: "toy", Name: "tiny", Tokenizer: toy{}, Prefix: 0, Context: ctx,
		NoTemplate: "it has none", ScoreSeqs: e.scoreSeqs, DecodeSeqs: e.decodeSeqs}
}
