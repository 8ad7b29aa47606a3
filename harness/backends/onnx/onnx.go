// Package onnx runs language models locally with ONNX Runtime. It loads
// the folders Hugging Face exports (optimum and transformers.js: config.json,
// generation_config.json, the tokenizer and an ONNX decoder with or
// without a key/value cache) and implements lm.Generator (greedy decoding,
// raw prompts or chat templates) and lm.Scorer (log-likelihoods and rolling
// log-likelihoods, batched, with a shared context computed once).
//
// CPU is the default provider; building with -tags cuda adds CUDA.
package onnx

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"

	"github.com/feather-eval/feather/harness/backends/onnx/chat"
	"github.com/feather-eval/feather/harness/backends/onnx/ckpt"
	"github.com/feather-eval/feather/harness/backends/onnx/ortlib"
	"github.com/feather-eval/feather/harness/backends/onnx/tokenizer"
	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/internal/hugepage"
)

// Options choose how a folder is loaded. The zero value loads the fp32
// file on the CPU with ONNX Runtime's default threading and decides chat
// use from the tokenizer config.
type Options struct {
	// Key and Name label the model in results (Name defaults to the
	// folder's name).
	Key, Name string
	// Variant picks model_<variant>.onnx (quantized, fp16, int8, q4, …);
	// empty or "fp32" is the unsuffixed file.
	Variant string
	// Threads is ONNX Runtime's intra-op thread count per session; 0 lets
	// it use every core (divided among Sessions).
	Threads int
	// Sessions is how many batches run in parallel, each on its own
	// session (memory grows with it); 0 means 1.
	Sessions int
	// Provider is "cpu" (default) or "cuda" (needs -tags cuda), on DeviceID.
	Provider string
	DeviceID int
	// Chat is "yes", "no" or "auto" (default: yes when the tokenizer config
	// has a chat template).
	Chat string
	// DType is what a Hugging Face checkpoint's weights are computed in:
	// "" or "float32", "float16" (weights, cache and logits), or "int8"
	// (the layers' linear weights, as the 8-bit exports compute them).
	DType string
	// BatchTokens caps the tokens (rows × longest row) of one model call;
	// 0 sizes it so a call's logits take about 64 MiB, and lets generation
	// go to maxBatchTokens when logits are computed only where read.
	BatchTokens int
}

// Model is a loaded folder. It implements lm.Model, lm.Generator and
// lm.Scorer and is safe for concurrent use.
type Model struct {
	info lm.Info
	file string
	cfg  modelConfig
	spec *ioSpec
	tok  *tokenizer.Tokenizer
	tmpl *chat.Template // nil unless chat is on

	// prefix starts every scored sequence: BOS, or EOS without a BOS.
	prefix int
	eos    []int
	pad    int
	ctxLen int

	runners []*runner
	// collapsing is closed once Open's huge-page collapse is done.
	collapsing chan struct{}
	// pool hands runners to jobs, one job per runner at a time.
	pool        chan *runner
	batchTokens int
	// genTokens is generation's batchTokens (maxBatchTokens).
	genTokens int
	// contBytes bounds the cache a stage-2 call carries (contCacheBytes).
	contBytes int
	// noCache recomputes the whole sequence at every step even when the
	// export has a cache (the baseline of the generation benchmark).
	noCache bool
}

var (
	_ lm.Model     = (*Model)(nil)
	_ lm.Generator = (*Model)(nil)
	_ lm.Scorer    = (*Model)(nil)
)

// logitsBudget is the default size of one call's logits, sized for a model
// that runs whole and so computes logits at every position: on the CPU
// writing them costs more than larger batches save (on the perf fixture,
// μBench's requests took less CPU time with 512-token calls than with
// 2048-token ones). Scoring keeps it with a split head or a logits-to-keep
// input too: 2048-token calls were no faster on the perf fixture, and on
// the SmolLM2-135M shape 4096-token calls scored 1.4 times slower (more
// left padding, wider caches in stage 2).
const logitsBudget = 64 << 20

// maxBatchTokens caps a call's rows × tokens. Generation batches up to it
// when logits are computed only where read (a split head, a logits-to-keep
// input): its calls then write one row of logits per prompt, and a batch
// reads every weight once a step for all its rows. On the SmolLM2-135M
// shape, whose 49k vocabulary gives a 341-token logits budget, the budget
// cut 8 Featherweight prompts into batches of 5 and 3; one batch of 8 took
// 1.4 times less CPU.
const maxBatchTokens = 8192

// Open loads the model folder dir.
func Open(ctx context.Context, dir string, opt Options) (*Model, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	file, err := locateONNX(dir, opt.Variant)
	var built *ckpt.Graph // a checkpoint's graph, built here
	if err != nil {
		if built, err = loadCheckpoint(dir, opt, err); err != nil {
			return nil, err
		}
		defer built.Close() // the sessions have mapped the converted weights by then
		file = built.Anchor
	} else if opt.DType != "" {
		return nil, fmt.Errorf("model folder %s has an ONNX file (%s), whose weights keep the type it was exported in; \"dtype\" applies to Hugging Face checkpoints: pick an ONNX file's precision with \"variant\"", dir, file)
	}
	cfg, err := readConfig(dir)
	if err != nil {
		return nil, err
	}
	if cfg.MaxPositions == 0 {
		return nil, fmt.Errorf("%s has no context length (max_position_embeddings, n_positions or n_ctx); add the model's to it", filepath.Join(dir, "config.json"))
	}
	tok, err := tokenizer.Load(dir)
	if err != nil {
		return nil, fmt.Errorf("loading the tokenizer: %w", err)
	}
	summary, parsed, weights, err := graphOf(file, built)
	if err != nil {
		return nil, err
	}
	if err := ortlib.Init(); err != nil {
		return nil, err
	}
	spec, err := discoverIO(file, summary.inputs, summary.outputs, cfg)
	if err != nil {
		return nil, err
	}
	spec.unpadded = summary.hasOp("GroupQueryAttention") || cfg.Sliding
	if n := tok.VocabSize(); n > spec.vocab {
		return nil, fmt.Errorf("model folder %s: the tokenizer has %d tokens but the model scores %d (vocab_size, logits); the tokenizer does not belong to this model", dir, n, spec.vocab)
	}

	m := &Model{file: file, cfg: cfg, spec: spec, tok: tok, ctxLen: cfg.MaxPositions}
	if err := m.setSpecialTokens(dir); err != nil {
		return nil, err
	}
	useChat, err := m.loadChat(dir, opt.Chat)
	if err != nil {
		return nil, err
	}
	m.contBytes = contCacheBytes(weights)
	m.batchTokens = opt.BatchTokens
	if m.batchTokens <= 0 {
		m.batchTokens = max(64, min(maxBatchTokens, logitsBudget/(spec.vocab*elemSize(spec.logitsType))))
	}
	m.genTokens = m.batchTokens

	sessions := max(1, opt.Sessions)
	threads := opt.Threads
	if threads == 0 && sessions > 1 {
		threads = max(1, runtime.NumCPU()/sessions)
	}
	src, err := newSessionSource(file, parsed, spec, kvGroups{cfg.Heads, cfg.KVHeads}, built != nil)
	if err != nil {
		return nil, err
	}
	for i := 0; i < sessions; i++ {
		r, err := src.newRunner(opt.Provider, opt.DeviceID, threads)
		if err != nil {
			m.Close()
			return nil, err
		}
		m.runners = append(m.runners, r)
	}
	// The sessions' packed weights now exist: put them on huge pages,
	// which decoding streams through at every token (package hugepage).
	// The collapse copies them (0.1-1.2 s for a 135M model on this
	// machine), so it runs beside the first calls, which use small pages
	// until it is done, rather than before them: a 135M bf16 checkpoint's
	// first token came 1.84 s after Open began instead of 2.20 s. Close
	// waits for it.
	m.collapsing = make(chan struct{})
	go func() {
		defer close(m.collapsing)
		hugepage.Collapse()
	}()
	m.pool = make(chan *runner, len(m.runners))
	for _, r := range m.runners {
		m.pool <- r
	}
	if opt.BatchTokens <= 0 && m.runners[0].logitsWhereRead() {
		m.genTokens = maxBatchTokens
	}

	name := opt.Name
	if name == "" {
		name = filepath.Base(filepath.Clean(dir))
	}
	m.info = lm.Info{
		Key:           opt.Key,
		Name:          name,
		Backend:       Name,
		Path:          dir,
		Params:        params(summary, built),
		ContextLength: m.ctxLen,
		Chat:          useChat,
	}
	return m, nil
}

// setSpecialTokens picks the scoring prefix, the stop tokens and the
// padding token.
func (m *Model) setSpecialTokens(dir string) error {
	bos, hasBOS := m.tok.BOS()
	eos, hasEOS := m.tok.EOS()
	switch {
	case hasBOS:
		m.prefix = bos.ID
	case hasEOS:
		m.prefix = eos.ID
	case len(m.cfg.BOS) > 0:
		m.prefix = m.cfg.BOS[0]
	case len(m.cfg.EOS) > 0:
		m.prefix = m.cfg.EOS[0]
	default:
		return fmt.Errorf("model folder %s: neither the tokenizer nor config.json names a BOS or EOS token; scoring needs one to start every sequence", dir)
	}
	m.eos = m.cfg.EOS
	if len(m.eos) == 0 && hasEOS {
		m.eos = []int{eos.ID}
	}
	// Padded positions are masked out; any valid id will do.
	switch pad, ok := m.tok.PAD(); {
	case ok && pad.ID < m.spec.vocab:
		m.pad = pad.ID
	default:
		m.pad = m.prefix
	}
	return nil
}

// loadChat applies the chat setting: yes needs a template, auto uses one
// when the tokenizer config has it, no never does.
func (m *Model) loadChat(dir, setting string) (bool, error) {
	switch setting {
	case "no":
		return false, nil
	case "", "auto", "yes":
	default:
		return false, fmt.Errorf("chat setting %q must be yes, no or auto", setting)
	}
	t, err := chat.Load(dir)
	switch {
	case err == nil:
		m.tmpl = t
		return true, nil
	case errors.Is(err, chat.ErrNoTemplate) && setting != "yes":
		return false, nil
	case errors.Is(err, chat.ErrNoTemplate):
		return false, fmt.Errorf("model folder %s: chat is \"yes\" but %v; set chat to \"no\" or \"auto\", or use a chat model's folder", dir, err)
	}
	return false, fmt.Errorf("loading the chat template: %w", err)
}

// Info describes the model for results files.
func (m *Model) Info() lm.Info { return m.info }

// Close releases the sessions. The model must not be in use.
// Settle waits for what Open left running beside the first calls (the
// huge-page collapse), after which calls run at their steady speed:
// measurements of that speed call it first.
func (m *Model) Settle() {
	if m.collapsing != nil {
		<-m.collapsing
	}
}

func (m *Model) Close() error {
	m.Settle()
	var errs []error
	for _, r := range m.runners {
		errs = append(errs, r.close())
	}
	m.runners = nil
	return errors.Join(errs...)
}
