package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/feather-eval/feather/harness/lm"
)

func init() {
	register("score", "log-likelihoods of JSON-lines {context, continuation} with a local model (ONNX folder or GGUF file)", runScore)
}

// scoreLine is one output line of feather score.
type scoreLine struct {
	LogProb            float64 `json:"logprob"`
	IsGreedy           bool    `json:"is_greedy"`
	ContextTokens      int     `json:"context_tokens"`
	ContinuationTokens int     `json:"continuation_tokens"`
	Truncated          bool    `json:"truncated"`
	Error              string  `json:"error,omitempty"`
}

func runScore(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("feather score", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var mf modelFlags
	mf.add(fs)
	maxLen := fs.Int("max-length", 0, "left-truncate each sequence (BOS included) to this many tokens (0: the model's context)")
	setUsage(fs, "score", "--model DIR|FILE.gguf [--max-length N] < requests.jsonl", `
Reads one {"context": ..., "continuation": ...} object per line and writes one
{"logprob", "is_greedy", "context_tokens", "continuation_tokens", "truncated"}
line per request, in order (with "error" for a request that cannot be scored).`)
	if err := fs.Parse(args); err != nil {
		return parseFailed(err)
	}
	fail := failer(stderr, "score")
	switch {
	case mf.dir == "":
		return fail(2, "--model DIR|FILE.gguf is required")
	case fs.NArg() != 0:
		return fail(2, "unexpected argument %q; requests are read from stdin", fs.Arg(0))
	case *maxLen < 0:
		return fail(2, "--max-length is %d; use 0 (the model's context) or more", *maxLen)
	}
	reqs, err := readLLRequests(stdin)
	if err != nil {
		return fail(2, "%v", err)
	}
	m, err := mf.open("no")
	if err != nil {
		return fail(1, "%v", err)
	}
	defer m.Close()
	res, err := m.LogLikelihood(context.Background(), reqs, lm.ScoreOptions{MaxLength: *maxLen})
	if err != nil {
		return fail(1, "%v", err)
	}
	w := bufio.NewWriter(stdout)
	enc := json.NewEncoder(w)
	code := 0
	for i, r := range res {
		line := scoreLine{LogProb: r.LogProb, IsGreedy: r.IsGreedy, ContextTokens: r.ContextTokens,
			ContinuationTokens: r.ContinuationTokens, Truncated: r.Truncated}
		if r.Err != nil {
			line = scoreLine{Error: r.Err.Error(), ContinuationTokens: r.ContinuationTokens}
			fmt.Fprintf(stderr, "feather score: request %d: %v\n", i+1, r.Err)
			code = 1
		}
		if err := enc.Encode(line); err != nil {
			return fail(1, "%v", err)
		}
	}
	if err := w.Flush(); err != nil {
		return fail(1, "%v", err)
	}
	return code
}

// readLLRequests reads every line before any scoring, so a bad line stops
// the run before it costs model time.
func readLLRequests(r io.Reader) ([]lm.LLRequest, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var out []lm.LLRequest
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var req struct {
			Context      *string `json:"context"`
			Continuation *string `json:"continuation"`
		}
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&req); err != nil {
			return nil, fmt.Errorf(`stdin:%d: %v; each line must be {"context": "...", "continuation": "..."}`, n, err)
		}
		if req.Context == nil || req.Continuation == nil {
			return nil, fmt.Errorf(`stdin:%d: "context" and "continuation" are both required (strings)`, n)
		}
		out = append(out, lm.LLRequest{Context: *req.Context, Continuation: *req.Continuation})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading stdin: %v", err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf(`stdin has no requests; write one {"context": "...", "continuation": "..."} object per line`)
	}
	return out, nil
}
