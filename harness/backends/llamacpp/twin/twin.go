// Package twin writes one set of random weights twice: for the onnx
// backend (an ONNX export built by harness/backends/onnx/testmodel, or a
// Hugging Face checkpoint folder whose graph the backend builds) and as
// GGUF files llama.cpp runs (package gguf), both with a real tokenizer's
// vocabulary, so the two engines can be compared token for token through
// the same lm interfaces. Only tests and benchmarks import it, as they
// do testmodel.
package twin

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/feather-eval/feather/harness/backends/checkpoint"
	"github.com/feather-eval/feather/harness/backends/llamacpp/gguf"
	"github.com/feather-eval/feather/harness/backends/onnx/decoder"
	"github.com/feather-eval/feather/harness/backends/onnx/testmodel"
	"github.com/feather-eval/feather/harness/backends/onnx/tokenizer"
)

// Twin is a model built both ways.
type Twin struct {
	// ONNX is the folder the onnx backend opens: an ONNX export, or a
	// Hugging Face checkpoint whose graph it builds.
	ONNX string
	// Model is the ONNX model as testmodel built it (its weights, its
	// reference forward pass); nil for a checkpoint folder.
	Model *testmodel.Model
	// Checkpoint is the same weights in Hugging Face's layout.
	Checkpoint *checkpoint.Checkpoint
	// Vocab is the tokenizer as GGUF stores it.
	Vocab *gguf.Vocab
}

// tokenizerFiles are the files a tokenizer folder may hold that the onnx
// backend reads, copied over the ones testmodel writes.
var tokenizerFiles = []string{"tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "added_tokens.json", "vocab.json", "merges.txt"}

// Checkpoint writes a random checkpoint of arch (checkpoint.Random:
// llama, qwen2, qwen3, gpt2, gpt_neox) with the vocabulary of tokenizer
// folder tokDir as a Hugging Face checkpoint folder dir (config.json,
// model.safetensors in float32, the tokenizer files), which the onnx
// backend runs by building the architecture's graph at load time.
func Checkpoint(dir, arch string, s checkpoint.Shape, seed uint64, tokDir string) (*Twin, error) {
	tok, v, bos, eos, err := loadTokenizer(tokDir)
	if err != nil {
		return nil, err
	}
	s.Vocab = tok.VocabSize()
	ck, err := checkpoint.Random(arch, s, seed)
	if err != nil {
		return nil, err
	}
	return save(dir, ck, v, bos, eos, tokDir)
}

// FromConfig is Checkpoint for a family checkpoint.Random does not draw
// (Gemma 3): config is its config.json, whose vocab_size is set to the
// tokenizer's, and the weights are the decoder's draw from seed.
func FromConfig(dir string, config map[string]any, seed uint64, tokDir string) (*Twin, error) {
	tok, v, bos, eos, err := loadTokenizer(tokDir)
	if err != nil {
		return nil, err
	}
	config["vocab_size"] = tok.VocabSize()
	a, c, err := decoder.FromConfig(config)
	if err != nil {
		return nil, err
	}
	c.Seed = seed
	return save(dir, checkpoint.FromWeights(a, config, decoder.Weights(a, c)), v, bos, eos, tokDir)
}

// save writes ck, with the tokenizer's special ids, and the tokenizer
// files of tokDir into dir.
func save(dir string, ck *checkpoint.Checkpoint, v *gguf.Vocab, bos, eos int, tokDir string) (*Twin, error) {
	ck.Config["bos_token_id"], ck.Config["eos_token_id"], ck.Config["pad_token_id"] = bos, eos, eos
	if _, err := ck.Save(dir, checkpoint.SaveOptions{}); err != nil {
		return nil, err
	}
	if err := copyTokenizer(tokDir, dir); err != nil {
		return nil, err
	}
	return &Twin{ONNX: dir, Checkpoint: ck, Vocab: v}, nil
}

// loadTokenizer reads the tokenizer of folder tokDir, as the onnx
// backend and as GGUF store it, with its BOS (its EOS when it has none)
// and EOS.
func loadTokenizer(tokDir string) (tok *tokenizer.Tokenizer, v *gguf.Vocab, bos, eos int, err error) {
	if tok, err = tokenizer.Load(tokDir); err != nil {
		return nil, nil, 0, 0, err
	}
	if v, err = gguf.LoadVocab(tokDir, ""); err != nil {
		return nil, nil, 0, 0, err
	}
	e, ok := tok.EOS()
	if !ok {
		return nil, nil, 0, 0, fmt.Errorf("twin: the tokenizer in %s has no EOS token", tokDir)
	}
	b, ok := tok.BOS()
	if !ok {
		b = e
	}
	return tok, v, b.ID, e.ID, nil
}

// SaveCheckpoint writes an export's weights as a Hugging Face checkpoint
// folder dir (model.safetensors in float32) beside the export's
// config.json, generation_config.json and tokenizer, so the onnx backend
// runs the same model from both folders: the export's graph as written,
// the checkpoint's as the backend builds it.
func (t *Twin) SaveCheckpoint(dir string) error {
	if _, err := t.Checkpoint.Save(dir, checkpoint.SaveOptions{}); err != nil {
		return err
	}
	return copyFiles(t.ONNX, dir, append([]string{"config.json", "generation_config.json"}, tokenizerFiles...))
}

// copyTokenizer copies the tokenizer files of folder from into to,
// replacing any there.
func copyTokenizer(from, to string) error { return copyFiles(from, to, tokenizerFiles) }

// copyFiles copies the named files of folder from that exist into to,
// replacing any there.
func copyFiles(from, to string, names []string) error {
	for _, name := range names {
		os.Remove(filepath.Join(to, name))
		data, err := os.ReadFile(filepath.Join(from, name))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(to, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Build writes cfg (Arch llama or gpt2; its Vocab is set to the
// tokenizer's size) as an ONNX export folder dir with the tokenizer of
// folder tokDir, whose BOS and EOS config.json names.
func Build(dir string, cfg testmodel.Config, tokDir string) (*Twin, error) {
	tok, v, bos, eos, err := loadTokenizer(tokDir)
	if err != nil {
		return nil, err
	}
	cfg.Vocab = tok.VocabSize()
	cfg.EOSIDs = []int{eos}
	cfg.ChatTemplate = ""
	m, err := testmodel.Build(dir, cfg)
	if err != nil {
		return nil, err
	}
	if err := copyTokenizer(tokDir, dir); err != nil {
		return nil, err
	}
	ids := map[string]int{"bos_token_id": bos, "eos_token_id": eos, "pad_token_id": eos}
	for _, name := range []string{"config.json", "generation_config.json"} {
		if err := setIDs(filepath.Join(dir, name), ids); err != nil {
			return nil, err
		}
	}
	c := m.Config
	arch := checkpoint.Llama
	if c.Arch == testmodel.GPT2 {
		arch = checkpoint.GPT2
	}
	ck, err := checkpoint.FromDecoder(arch, decoder.Config{
		Vocab: c.Vocab, Hidden: c.Hidden, Layers: c.Layers, Heads: c.Heads, KVHeads: c.KVHeads, HeadDim: c.HeadDim,
		Intermediate: c.Intermediate, MaxPositions: c.MaxPositions, TiedEmbeddings: c.TiedEmbeddings,
		RopeTheta: c.RopeTheta, NormEps: c.NormEps, Seed: c.Seed,
	}, m.Weights())
	if err != nil {
		return nil, err
	}
	return &Twin{ONNX: dir, Model: m, Checkpoint: ck, Vocab: v}, nil
}

// setIDs rewrites the special token ids of a JSON file testmodel wrote
// (its own tokenizer's) to the real tokenizer's.
func setIDs(path string, ids map[string]int) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	for k, id := range ids {
		m[k] = id
	}
	out, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(out, '\n'), 0o644)
}

// GGUF writes the weights as a GGUF file at path, most of them stored as
// ft, and returns path.
func (t *Twin) GGUF(path string, ft gguf.FileType) (string, error) {
	b, err := gguf.FromCheckpoint(t.Checkpoint, t.Vocab, ft)
	if err != nil {
		return "", err
	}
	if err := b.WriteFile(path); err != nil {
		return "", err
	}
	return path, nil
}
