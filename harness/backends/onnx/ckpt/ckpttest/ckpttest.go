// Package ckpttest writes random-weight Hugging Face checkpoint folders,
// each beside an ONNX export of the same weights, for tests and
// benchmarks of the checkpoint path: the weights are checkpoint.Random's
// (Hugging Face's names, shapes and layout) or, for a family it does not
// draw (gemma3_text), the decoder's laid out the same way
// (checkpoint.FromWeights), saved as transformers' save_pretrained saves
// them (a dtype, shards with an index); the export is decoder.Graph over
// the very values the checkpoint holds (rounded to its dtype), so the two
// must compute the same. Both folders get the same config.json,
// generation_config.json and a corpustok tokenizer of the model's
// vocabulary. Only tests import this package.
package ckpttest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/feather-eval/feather/harness/backends/checkpoint"
	"github.com/feather-eval/feather/harness/backends/onnx/corpustok"
	"github.com/feather-eval/feather/harness/backends/onnx/decoder"
)

// Fixture is a random checkpoint: its family, shape and seed, and how it
// is saved.
type Fixture struct {
	// Arch is config.json's model_type: one of decoder.Archs.
	Arch  string
	Shape checkpoint.Shape
	Seed  uint64
	// DType is F32 (default), F16 or BF16.
	DType string
	// MaxShardBytes shards the weights with an index (0: one file).
	MaxShardBytes int64
}

// Checkpoint is the fixture's checkpoint as saved: config.json with the
// tokenizer's special tokens, every weight rounded to DType.
func (f Fixture) Checkpoint() (*checkpoint.Checkpoint, error) {
	var ck *checkpoint.Checkpoint
	var err error
	if slices.Contains(checkpoint.Archs, f.Arch) {
		ck, err = checkpoint.Random(f.Arch, f.Shape, f.Seed)
	} else {
		ck, err = f.fromDecoder()
	}
	if err != nil {
		return nil, err
	}
	dtype := f.DType
	if dtype == "" {
		dtype = "F32"
	}
	if ck, err = ck.Rounded(dtype); err != nil {
		return nil, err
	}
	ck.Config["bos_token_id"] = corpustok.BOSID
	ck.Config["eos_token_id"] = corpustok.EOSID
	ck.Config["pad_token_id"] = corpustok.EOSID
	ck.Config["_name_or_path"] = fmt.Sprintf("feather/random-%s", f.Arch)
	// As json.Unmarshal gives it to a loader: numbers float64, lists []any.
	data, err := corpustok.JSON(ck.Config)
	if err != nil {
		return nil, err
	}
	ck.Config = nil
	return ck, json.Unmarshal(data, &ck.Config)
}

// archOf is the decoder family of model type mt.
func archOf(mt string) (decoder.Arch, error) {
	for _, a := range decoder.Archs {
		if a.ModelType() == mt {
			return a, nil
		}
	}
	return nil, fmt.Errorf("ckpttest: the decoder builds no %q", mt)
}

// fromDecoder is a checkpoint of a family checkpoint.Random does not
// draw: the decoder's own weights for the shape, as Hugging Face lays
// them out (checkpoint.FromWeights: its torch Linear weights transposed),
// with the config.json the decoder writes. A gemma3_text alternates sliding-window and global
// layers, with a window short enough for the tests' texts to pass it.
func (f Fixture) fromDecoder() (*checkpoint.Checkpoint, error) {
	arch, err := archOf(f.Arch)
	if err != nil {
		return nil, err
	}
	s := f.Shape.Defaults(checkpoint.Llama)
	c := decoder.Config{Vocab: s.Vocab, Hidden: s.Hidden, Layers: s.Layers, Heads: s.Heads, KVHeads: s.KVHeads, HeadDim: s.HeadDim,
		Intermediate: s.Intermediate, MaxPositions: s.MaxPositions, TiedEmbeddings: s.TiedEmbeddings, RopeTheta: s.RopeTheta,
		NormEps: 1e-6, Seed: f.Seed}
	if arch == decoder.Gemma3 {
		c.RopeTheta, c.LocalRopeTheta, c.SlidingWindow, c.QueryPreAttnScalar = 1e6, 1e4, 6, float64(c.HeadDim)
		for i := range c.Layers {
			c.SlidingLayers = append(c.SlidingLayers, i%2 == 0)
		}
	}
	return checkpoint.FromWeights(arch, decoder.Folder{EOSIDs: []int{corpustok.EOSID}}.ConfigJSON(arch, c), decoder.Weights(arch, c)), nil
}

// Write writes the checkpoint folder into dir (created if absent) and
// returns the checkpoint it holds.
func (f Fixture) Write(dir string) (*checkpoint.Checkpoint, error) {
	ck, err := f.Checkpoint()
	if err != nil {
		return nil, err
	}
	if _, err := ck.Save(dir, checkpoint.SaveOptions{DType: f.DType, MaxShardBytes: f.MaxShardBytes}); err != nil {
		return nil, err
	}
	return ck, writeSideFiles(dir, ck)
}

// WriteExport writes into dir an ONNX export (model.onnx, optimum's
// inputs: position_ids and the cache; float16 weights, cache and logits
// with half) of ck's weights, with the same JSON and tokenizer files as
// its checkpoint folder.
func WriteExport(dir string, ck *checkpoint.Checkpoint, half bool) error {
	arch, c, err := decoder.FromConfig(ck.Config)
	if err != nil {
		return err
	}
	m := decoder.Graph(arch, c, ck.WeightsIn(arch), decoder.Export{Past: true, PositionIDs: true, Half: half})
	data := m.SplitExternal("model.onnx_data", 1024)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "model.onnx_data"), data, 0o644); err != nil {
		return err
	}
	model, err := m.Marshal()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "model.onnx"), model, 0o644); err != nil {
		return err
	}
	cfg, err := corpustok.JSON(ck.Config)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), cfg, 0o644); err != nil {
		return err
	}
	return writeSideFiles(dir, ck)
}

// writeSideFiles writes generation_config.json and the tokenizer.
func writeSideFiles(dir string, ck *checkpoint.Checkpoint) error {
	_, c, err := decoder.FromConfig(ck.Config)
	if err != nil {
		return err
	}
	tok, err := corpustok.New(c.Vocab)
	if err != nil {
		return err
	}
	files, err := tok.Files(c.MaxPositions, "")
	if err != nil {
		return err
	}
	gen, err := corpustok.JSON(decoder.Folder{EOSIDs: []int{corpustok.EOSID}}.GenerationConfigJSON())
	if err != nil {
		return err
	}
	files = append(files, corpustok.File{Name: "generation_config.json", Data: gen})
	return corpustok.WriteFiles(dir, files)
}
