package tokenizer_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/onnx/tokenizer"
	"github.com/feather-eval/feather/internal/testenv"
)

func corpusBytes(corpus []string) int64 {
	n := 0
	for _, s := range corpus {
		n += len(s)
	}
	return int64(n)
}

// BenchmarkEncode encodes the whole golden corpus per iteration; MB/s is
// over its UTF-8 bytes. The word cache is warm after the first pass, as it
// is in any real run (and in transformers.js's figure from
// `node scripts/goldens/tokenizer.mjs --bench`).
func BenchmarkEncode(b *testing.B) {
	corpus := readCorpus(b)
	for _, g := range goldenTokenizers {
		b.Run(g.name, func(b *testing.B) {
			tok := load(b, g.name, g.dir(b))
			b.SetBytes(corpusBytes(corpus))
			for b.Loop() {
				for _, s := range corpus {
					tok.Encode(s, true)
				}
			}
		})
	}
}

// BenchmarkEncodeParallel is BenchmarkEncode from every CPU at once on one
// shared Tokenizer.
func BenchmarkEncodeParallel(b *testing.B) {
	corpus := readCorpus(b)
	tok := load(b, "gpt2", testenv.Tokenizer("gpt2"))
	b.SetBytes(corpusBytes(corpus))
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			for _, s := range corpus {
				tok.Encode(s, true)
			}
		}
	})
}

// TestConcurrentEncode shares one fresh Tokenizer (empty cache) between
// goroutines; run with -race it also checks for data races.
func TestConcurrentEncode(t *testing.T) {
	dir := testenv.Tokenizer("smollm-135m")
	corpus := readCorpus(t)
	ref, err := tokenizer.Load(dir)
	require.NoError(t, err)
	want := make([][]int, len(corpus))
	for i, s := range corpus {
		want[i] = ref.Encode(s, true)
	}

	tok, err := tokenizer.Load(dir)
	require.NoError(t, err)
	const workers = 8
	got := make([][][]int, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[w] = make([][]int, len(corpus))
			for k := range corpus {
				i := (k + w*37) % len(corpus) // each worker in its own order
				got[w][i] = tok.Encode(corpus[i], true)
			}
		}()
	}
	wg.Wait()
	for w := range workers {
		assert.Equal(t, want, got[w], "worker %d", w)
	}
}
