package smoke

import (
	"fmt"

	"github.com/feather-eval/feather/harness/backends/onnx/corpustok"
	"github.com/feather-eval/feather/harness/backends/onnx/decoder"
)

// The model's shape and seed: a Llama (harness/backends/onnx/decoder).
// testmodel.SmokeConfig describes the same model for the reference
// forward pass, and a test there holds its build byte-identical to this
// package's.
const (
	Vocab        = 2048 // every merge learned from corpustok's corpus
	Hidden       = 128
	Layers       = 4
	Heads        = 4
	KVHeads      = 2 // grouped-query attention
	HeadDim      = Hidden / Heads
	Intermediate = 384
	MaxPositions = 2048
	Seed         = 0xfea7e5
	ropeTheta    = 10000
	normEps      = 1e-5
)

// EOSIDs are generation_config.json's eos_token_id: <|im_end|> ends a
// chat turn too.
func EOSIDs() []int { return []int{corpustok.EOSID, corpustok.IMEndID} }

// onnxFile is where transformers.js exports put the graph.
const onnxFile = "onnx/model.onnx"

// config is the constants above as a decoder.Config.
var config = decoder.Config{
	Vocab: Vocab, Hidden: Hidden, Layers: Layers, Heads: Heads, KVHeads: KVHeads, HeadDim: HeadDim,
	Intermediate: Intermediate, MaxPositions: MaxPositions, TiedEmbeddings: true,
	RopeTheta: ropeTheta, NormEps: normEps, Seed: Seed,
}

// folderFiles renders the model folder: the JSON files, the tokenizer
// files and the ONNX graph (with a cache and position_ids), identical on
// every machine.
func folderFiles() ([]corpustok.File, error) {
	folder := decoder.Folder{Name: Name, EOSIDs: EOSIDs(), Cache: true}
	out, err := folder.Files(folder.ConfigJSON(decoder.Llama, config))
	if err != nil {
		return nil, err
	}
	tok, err := corpustok.New(Vocab)
	if err != nil {
		return nil, err
	}
	tfiles, err := tok.Files(MaxPositions, corpustok.ChatML)
	if err != nil {
		return nil, err
	}
	out = append(out, tfiles...)
	model := decoder.Graph(decoder.Llama, config, decoder.Weights(decoder.Llama, config), decoder.Export{Past: true, PositionIDs: true})
	data, err := model.Marshal()
	if err != nil {
		return nil, fmt.Errorf("smoke: encoding %s: %w", onnxFile, err)
	}
	return append(out, corpustok.File{Name: onnxFile, Data: data}), nil
}
