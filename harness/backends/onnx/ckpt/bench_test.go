package ckpt_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/feather-eval/feather/harness/backends/checkpoint"
	"github.com/feather-eval/feather/harness/backends/onnx"
	"github.com/feather-eval/feather/harness/backends/onnx/ckpt/ckpttest"
	"github.com/feather-eval/feather/harness/backends/onnx/ortlib/orttest"
	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/internal/testenv"
)

// Benchmarks on a checkpoint of SmolLM2-135M's shape (30 layers, width
// 576, 9 heads over 3 key/value heads, a 49152 vocabulary, tied), saved
// in bfloat16 as the Hub ships it, beside an ONNX export of the same
// (bf16-rounded) weights in float32.

// smol is the SmolLM2-135M-shaped checkpoint.
var smol = ckpttest.Fixture{Arch: checkpoint.Llama, Seed: 135, DType: "BF16", Shape: checkpoint.Shape{
	Vocab: 49152, Hidden: 576, Layers: 30, Heads: 9, KVHeads: 3, Intermediate: 1536,
	MaxPositions: 8192, TiedEmbeddings: true, RopeTheta: 100000}}

var (
	smolOnce          sync.Once
	smolCk, smolEx    string
	smolParams        int64
	smolErr           error
	benchRoot, rootMu = "", sync.Mutex{}
)

// smolFolders writes the checkpoint and the export once per test binary.
func smolFolders(b *testing.B) (ck, ex string, params int64) {
	b.Helper()
	orttest.Require(b)
	smolOnce.Do(func() {
		dir, err := os.MkdirTemp("", "feather-ckpt-bench-")
		if err != nil {
			smolErr = err
			return
		}
		rootMu.Lock()
		benchRoot = dir
		rootMu.Unlock()
		smolCk, smolEx = filepath.Join(dir, "checkpoint"), filepath.Join(dir, "export")
		c, err := smol.Write(smolCk)
		if err != nil {
			smolErr = err
			return
		}
		for _, t := range c.Tensors {
			smolParams += int64(len(t.Data))
		}
		smolErr = ckpttest.WriteExport(smolEx, c, false)
	})
	if smolErr != nil {
		b.Fatal(smolErr)
	}
	return smolCk, smolEx, smolParams
}

func TestMain(m *testing.M) {
	if dir := os.Getenv(childEnv); dir != "" {
		os.Exit(openChild(dir))
	}
	code := m.Run()
	rootMu.Lock()
	if benchRoot != "" {
		os.RemoveAll(benchRoot)
	}
	rootMu.Unlock()
	os.Exit(code)
}

// openFirstToken opens dir and generates one token, as a run starts, then
// calls done (when not nil) before closing the model: closing waits for
// the open's huge-page collapse, which is no part of the wait for a
// first token.
func openFirstToken(dir string, done func()) error {
	ctx := context.Background()
	m, err := onnx.Open(ctx, dir, onnx.Options{Chat: "no"})
	if err != nil {
		return err
	}
	defer m.Close()
	res, err := m.Generate(ctx, []lm.GenerateRequest{{Prompt: "The capital of France is", MaxNewTokens: 1, Sampling: lm.Greedy()}})
	if done != nil {
		done()
	}
	if err != nil {
		return err
	}
	return res[0].Err
}

// BenchmarkOpenFirstToken: from a folder to the first generated token,
// for the bf16 checkpoint and for the float32 export of its weights.
func BenchmarkOpenFirstToken(b *testing.B) {
	ck, ex, _ := smolFolders(b)
	for _, side := range []struct{ name, dir string }{{"checkpoint", ck}, {"export", ex}} {
		b.Run(side.name, func(b *testing.B) {
			cpu0, ok := testenv.CPUTime()
			for b.Loop() {
				if err := openFirstToken(side.dir, b.StopTimer); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/first-token")
			if cpu1, ok1 := testenv.CPUTime(); ok && ok1 {
				b.ReportMetric((cpu1-cpu0).Seconds()/float64(b.N), "cpu-s/first-token")
			}
		})
	}
}

// childEnv makes the test binary open the folder it names, generate one
// token and print its peak RSS: a fresh process, whose high-water mark
// is the open's alone.
const childEnv = "FEATHER_CKPT_BENCH_OPEN"

func openChild(dir string) int {
	if err := openFirstToken(dir, nil); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	rss, ok := peakRSS()
	if !ok {
		fmt.Fprintln(os.Stderr, "no peak RSS on this system")
		return 1
	}
	fmt.Printf("peak-rss %d\n", rss)
	return 0
}

// BenchmarkPeakRSS: a fresh process's peak resident memory while it opens
// the model and generates a token, against the model's float32 weight
// bytes, for the bf16 checkpoint and the float32 export.
func BenchmarkPeakRSS(b *testing.B) {
	ck, ex, params := smolFolders(b)
	if _, ok := peakRSS(); !ok {
		b.Skip("peak RSS is read with getrusage on Linux")
	}
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	for _, side := range []struct{ name, dir string }{{"checkpoint", ck}, {"export", ex}} {
		b.Run(side.name, func(b *testing.B) {
			var rss int64
			for b.Loop() {
				cmd := execCommand(exe, "-test.run=^$")
				cmd.Env = append(os.Environ(), childEnv+"="+side.dir)
				out, err := cmd.Output()
				if err != nil {
					b.Fatalf("%v: %s", err, out)
				}
				if _, err := fmt.Sscanf(strings.TrimSpace(string(out)), "peak-rss %d", &rss); err != nil {
					b.Fatalf("child said %q: %v", out, err)
				}
			}
			b.ReportMetric(float64(rss)/1e6, "peak-MB")
			b.ReportMetric(float64(rss)/float64(4*params), "x-fp32-weights")
		})
	}
}

// microbenchRequests are μBench's shape: items of four choices sharing a
// context of a few dozen tokens, continuations of one to a dozen.
func microbenchRequests(items int) []lm.LLRequest {
	words := strings.Fields("the a kite river north small bright cold market seven paper window quiet stone")
	var out []lm.LLRequest
	for i := 0; i < items; i++ {
		var ctx []string
		for j := 0; j < 30+i%11; j++ {
			ctx = append(ctx, words[(i*7+j*3)%len(words)])
		}
		for c := 0; c < 4; c++ {
			var cont []string
			for j := 0; j <= (i+c)%6; j++ {
				cont = append(cont, words[(i+c*5+j)%len(words)])
			}
			out = append(out, lm.LLRequest{Context: "Question: " + strings.Join(ctx, " ") + "\nAnswer:", Continuation: " " + strings.Join(cont, " ")})
		}
	}
	return out
}

// BenchmarkMicrobenchThroughput scores μBench-shaped requests on the
// checkpoint and on the export in turn, each iteration, and reports each
// side's requests per second and their ratio (checkpoint / export).
func BenchmarkMicrobenchThroughput(b *testing.B) {
	ck, ex, _ := smolFolders(b)
	reqs := microbenchRequests(16)
	took, cpu := scoreInTurn(b, reqs, [2]side{{ck, onnx.Options{Chat: "no"}}, {ex, onnx.Options{Chat: "no"}}})
	n := float64(len(reqs) * b.N)
	b.ReportMetric(n/took[0].Seconds(), "checkpoint-req/s")
	b.ReportMetric(n/took[1].Seconds(), "export-req/s")
	b.ReportMetric(took[1].Seconds()/took[0].Seconds(), "checkpoint/export")
	if cpu[0] > 0 && cpu[1] > 0 {
		b.ReportMetric(cpu[1].Seconds()/cpu[0].Seconds(), "checkpoint/export-cpu")
	}
}

// BenchmarkFloat16Throughput scores μBench-shaped requests on the
// checkpoint computed in float32 and with "dtype": "float16" in turn, and
// reports their ratio (float16 / float32).
func BenchmarkFloat16Throughput(b *testing.B) {
	ck, _, _ := smolFolders(b)
	took, cpu := scoreInTurn(b, microbenchRequests(16), [2]side{
		{ck, onnx.Options{Chat: "no", DType: onnx.DTypeFloat32}},
		{ck, onnx.Options{Chat: "no", DType: onnx.DTypeFloat16}},
	})
	b.ReportMetric(took[0].Seconds()/took[1].Seconds(), "float16/float32")
	if cpu[0] > 0 && cpu[1] > 0 {
		b.ReportMetric(cpu[0].Seconds()/cpu[1].Seconds(), "float16/float32-cpu")
	}
}

// side is a model a throughput benchmark opens: a folder and how.
type side struct {
	dir string
	opt onnx.Options
}

// scoreInTurn opens both sides' models, settled, and scores reqs on each
// in turn every iteration: the wall and CPU time each side took.
func scoreInTurn(b *testing.B, reqs []lm.LLRequest, sides [2]side) (took, cpu [2]time.Duration) {
	ctx := context.Background()
	var models [2]*onnx.Model
	for i, s := range sides {
		m, err := onnx.Open(ctx, s.dir, s.opt)
		if err != nil {
			b.Fatal(err)
		}
		defer m.Close()
		m.Settle()
		models[i] = m
	}
	for b.Loop() {
		for i, m := range models {
			start := time.Now()
			c0, _ := testenv.CPUTime()
			res, err := m.LogLikelihood(ctx, reqs, lm.ScoreOptions{})
			if err != nil {
				b.Fatal(err)
			}
			if res[0].Err != nil {
				b.Fatal(res[0].Err)
			}
			c1, _ := testenv.CPUTime()
			took[i] += time.Since(start)
			cpu[i] += c1 - c0
		}
	}
	return took, cpu
}
