package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/feather-eval/feather/harness/backends/llamacpp"
	"github.com/feather-eval/feather/harness/backends/llamacpp/gguf"
	"github.com/feather-eval/feather/harness/backends/onnx"
	"github.com/feather-eval/feather/harness/lm"
)

func init() {
	register("generate", "continue a prompt greedily with a local model (ONNX folder or GGUF file)", runGenerate)
}

// modelFlags are the loading options generate and score share.
type modelFlags struct {
	dir, variant, provider string
	threads                int
}

func (f *modelFlags) add(fs *flag.FlagSet) {
	fs.StringVar(&f.dir, "model", "", "Hugging Face ONNX export or checkpoint folder, or a .gguf file run by llama.cpp (required)")
	fs.StringVar(&f.variant, "variant", "", "ONNX file variant: quantized, fp16, int8, q4… (default fp32)")
	fs.StringVar(&f.provider, "provider", "", "ONNX execution provider: cpu (default) or cuda (needs -tags cuda)")
	fs.IntVar(&f.threads, "threads", 0, "ONNX Runtime intra-op threads, or llama.cpp's (0: all cores)")
}

// localModel is a model score and generate run: an ONNX folder or a
// GGUF file.
type localModel interface {
	lm.Model
	lm.Generator
	lm.Scorer
}

func (f *modelFlags) open(chat string) (localModel, error) {
	if isGGUF(f.dir) {
		switch {
		case f.variant != "":
			return nil, fmt.Errorf("--variant picks an ONNX file of a folder; %s is a GGUF file, one quantization already (pull another with feather pull --file)", f.dir)
		case f.provider != "" && f.provider != "cpu":
			return nil, fmt.Errorf("--provider %s runs ONNX models; llama.cpp runs GGUF files on the CPU", f.provider)
		}
		return llamacpp.Open(context.Background(), f.dir, llamacpp.Options{Threads: f.threads, Chat: chat})
	}
	return onnx.Open(context.Background(), f.dir, onnx.Options{
		Variant: f.variant, Provider: f.provider, Threads: f.threads, Chat: chat,
	})
}

// isGGUF reports whether path is a file for llama.cpp rather than an
// ONNX export folder: named .gguf, or starting with GGUF's magic.
func isGGUF(path string) bool {
	st, err := os.Stat(path)
	if err != nil || st.IsDir() {
		return strings.HasSuffix(strings.ToLower(path), ".gguf")
	}
	if strings.HasSuffix(strings.ToLower(path), ".gguf") {
		return true
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, len(gguf.Magic))
	_, err = io.ReadFull(f, head)
	return err == nil && string(head) == gguf.Magic
}

func runGenerate(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("feather generate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var mf modelFlags
	mf.add(fs)
	useChat := fs.Bool("chat", false, "send PROMPT as a user message through the model's chat template")
	maxNew := fs.Int("max-new-tokens", 64, "stop after this many new tokens (0: when the context is full)")
	asJSON := fs.Bool("json", false, "print the whole result (exact prompt, token counts, stop reason, timings) as JSON")
	setUsage(fs, "generate", "--model DIR|FILE.gguf [--chat] [--max-new-tokens N] [--json] PROMPT", "PROMPT '-' reads the prompt from standard input.")
	if err := fs.Parse(args); err != nil {
		return parseFailed(err)
	}
	fail := failer(stderr, "generate")
	switch {
	case mf.dir == "":
		return fail(2, "--model DIR|FILE.gguf is required")
	case fs.NArg() == 0:
		return fail(2, "PROMPT is missing; give it as arguments, or - to read it from standard input")
	case *maxNew < 0:
		return fail(2, "--max-new-tokens is %d; use 0 (up to the context) or more", *maxNew)
	}
	prompt := strings.Join(fs.Args(), " ")
	if prompt == "-" {
		b, err := io.ReadAll(stdin)
		if err != nil {
			return fail(1, "reading the prompt: %v", err)
		}
		prompt = string(b)
	}
	chat := "no"
	if *useChat {
		chat = "yes"
	}
	m, err := mf.open(chat)
	if err != nil {
		return fail(1, "%v", err)
	}
	defer m.Close()

	req := lm.GenerateRequest{Prompt: prompt, MaxNewTokens: *maxNew, Sampling: lm.Greedy()}
	if *useChat {
		req = lm.GenerateRequest{Messages: []lm.Message{{Role: "user", Content: prompt}}, MaxNewTokens: *maxNew, Sampling: lm.Greedy()}
	}
	res, err := m.Generate(context.Background(), []lm.GenerateRequest{req})
	if err != nil {
		return fail(1, "%v", err)
	}
	r := res[0]
	if r.Err != nil {
		return fail(1, "%v", r.Err)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(r); err != nil {
			return fail(1, "%v", err)
		}
		return 0
	}
	fmt.Fprintln(stdout, r.Text)
	fmt.Fprintf(stderr, "feather generate: %d prompt tokens, %d new tokens, stop %s, first token %s, total %s\n",
		r.InputTokens, r.OutputTokens, r.StopReason, r.TTFT.Round(100_000), r.Wall.Round(100_000))
	return 0
}
