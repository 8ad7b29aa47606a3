package testmodel

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/feather-eval/feather/harness/backends/onnx/corpustok"
	"github.com/feather-eval/feather/harness/backends/onnx/decoder"
)

// Model is a built model: its configuration (defaults applied), where its
// files are, and its weights for the reference forward pass.
type Model struct {
	Config Config
	// Dir is the model folder; File the main ONNX file's path in it.
	Dir, File string
	w         map[string]*tensor
	tok       *corpustok.BPE
	// dynamic: the reference quantizes activations as the int8/uint8
	// variants' DynamicQuantizeLinear does, per call (see linear).
	dynamic bool
	// half: a quantized weight's product takes its input and gives its
	// output in float16, as q4f16's MatMulNBits does (see linear).
	half  bool
	calls []int // the forward pass's call lengths (LogitsInCalls)
}

// externalMin is the size from which a tensor goes to the external data
// file, the threshold onnx's own saver uses.
const externalMin = 1024

// Build writes a model folder to dir (which must be absent or empty) and
// returns the model. On error nothing is left behind in dir.
func Build(dir string, cfg Config) (*Model, error) {
	c := cfg.Defaults()
	if err := c.Validate(); err != nil {
		return nil, err
	}
	m, err := newModel(c)
	if err != nil {
		return nil, err
	}
	if err := m.writeFolder(dir); err != nil {
		return nil, err
	}
	return m, nil
}

func newModel(c Config) (*Model, error) {
	tok, err := corpustok.New(c.Vocab)
	if err != nil {
		return nil, err
	}
	return &Model{Config: c, w: decoder.Weights(c.arch(), c.decoder()), tok: tok}, nil
}

// ParamCount is the number of parameters (a tied head counted once).
func (m *Model) ParamCount() int64 {
	var n int64
	for _, t := range m.w {
		n += int64(len(t.Data))
	}
	return n
}

// Path is the path of a variant's file ("" for the main file), e.g.
// onnx/model_fp16.onnx.
func (m *Model) Path(variant string) string {
	if variant == "" {
		return filepath.Join(m.Dir, filepath.FromSlash(m.Config.Layout))
	}
	return filepath.Join(m.Dir, filepath.FromSlash(variantLayout(m.Config.Layout, variant)))
}

func variantLayout(layout, variant string) string {
	return strings.TrimSuffix(layout, ".onnx") + "_" + variant + ".onnx"
}

// Variant returns the model whose weights are what the variant's file
// stores (float16-rounded, or dequantized 4- or 8-bit), so its Logits are
// the reference for that file; for the dynamically quantized 8-bit
// variants they also quantize activations as the file does, one tensor
// per call (Logits is one call over the whole sequence, LogitsInCalls
// says how a cache splits it), and for q4f16 they round each 4-bit
// product's input and output to float16. "" is the main file.
func (m *Model) Variant(variant string) (*Model, error) {
	e := exportFor(m.Config, variant)
	if variant != "" && !slices.Contains(variants, variant) {
		return nil, fmt.Errorf("testmodel: unknown variant %q; known variants are %s", variant, strings.Join(variants, ", "))
	}
	out := *m
	out.w = map[string]*tensor{}
	out.dynamic = e.quant != "" && !e.qdq
	out.half = e.q4f16()
	for name, t := range m.w {
		data := t.Data
		switch {
		case e.q4 && quantizable(name, t):
			data = quantizeQ4(t, e.q4f16()).values
		case e.bnb4 && quantizable(name, t):
			data = quantizeBnb4(t).values
		case e.quant != "" && quantizable(name, t):
			data = quantize(t, e.quant).values
		case e.Half:
			data = make([]float32, len(t.Data))
			for i, v := range t.Data {
				data[i] = roundHalf(v)
			}
		}
		out.w[name] = &tensor{Shape: t.Shape, Data: data}
	}
	return &out, nil
}

// writeFolder writes every file of the model folder.
func (m *Model) writeFolder(dir string) (err error) {
	if ents, rerr := os.ReadDir(dir); rerr == nil && len(ents) > 0 {
		return fmt.Errorf("testmodel: %s is not empty; build into a new folder so no existing file is overwritten", dir)
	} else if rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
		return fmt.Errorf("testmodel: %w", rerr)
	}
	created := false
	if _, serr := os.Stat(dir); errors.Is(serr, fs.ErrNotExist) {
		created = true
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("testmodel: %w", err)
	}
	defer func() {
		if err == nil {
			return
		}
		// Leave dir as we found it: gone if we made it, else empty.
		if created {
			os.RemoveAll(dir)
			return
		}
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}()
	m.Dir = dir
	m.File = m.Path("")
	files, err := m.files()
	if err != nil {
		return err
	}
	if err := corpustok.WriteFiles(dir, files); err != nil {
		return fmt.Errorf("testmodel: %w", err)
	}
	return nil
}

// files renders the folder: JSON files, tokenizer, main ONNX file and
// variants (each with its external data file when asked).
func (m *Model) files() ([]corpustok.File, error) {
	var out []corpustok.File
	jsons, err := m.jsonFiles()
	if err != nil {
		return nil, err
	}
	out = append(out, jsons...)
	variants := append([]string{""}, m.Config.Variants...)
	for _, v := range variants {
		layout := m.Config.Layout
		if v != "" {
			layout = variantLayout(layout, v)
		}
		model := m.onnxModel(exportFor(m.Config, v))
		if m.Config.ExternalData {
			dataName := path.Base(layout) + "_data"
			blob := model.SplitExternal(dataName, externalMin)
			out = append(out, corpustok.File{Name: path.Join(path.Dir(layout), dataName), Data: blob})
		}
		data, err := model.Marshal()
		if err != nil {
			return nil, fmt.Errorf("testmodel: encoding %s: %w", layout, err)
		}
		out = append(out, corpustok.File{Name: layout, Data: data})
	}
	return out, nil
}
