// Package ckpt builds, at load, the ONNX graph of a Hugging Face
// checkpoint folder (config.json and model.safetensors, or shards with
// model.safetensors.index.json): the decoder package writes the
// architecture config.json names, and the checkpoint's weights, read
// through mmap, are converted once into the layout and type the graph
// computes with (float32, or float16 on request; a torch Linear weight
// transposed to MatMul's [in, out]) in a scratch file, which the graph's
// initializers name as external data at page-aligned offsets. ONNX
// Runtime then maps them as it maps an export's, so the engine runs the
// graph exactly as it runs an export of the same weights, at the same
// speed and memory. Pickled weights (.bin, .pth) are never loaded.
package ckpt

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/feather-eval/feather/harness/backends/onnx/decoder"
	pb "github.com/feather-eval/feather/harness/backends/onnx/onnxpb"
	"github.com/feather-eval/feather/harness/backends/onnx/seeded"
	"github.com/feather-eval/feather/harness/backends/safetensors"
)

// Options choose how the graph computes.
type Options struct {
	// Half keeps the weights, the key/value cache and the logits in
	// float16 (bf16 and fp32 weights rounded to it once, at load); the
	// arithmetic stays float32, as in an fp16 export.
	Half bool
	// Int8 stores the layers' linear weights as int8, one scale per output
	// column, and multiplies them as ONNX Runtime's dynamic quantization
	// does (activations quantized to uint8 per call, MatMulInteger): the
	// 8-bit exports' arithmetic. Embeddings, norms, the LM head and
	// GPT-2's Conv1D weights stay float32.
	Int8 bool
}

// Graph is a checkpoint's decoder, ready for the onnx backend. Close it
// once its sessions exist.
type Graph struct {
	// Model is the graph; its weights are external data in Anchor.
	Model *pb.Model
	// Anchor is the converted weights' file.
	Anchor string
	// Params counts the weights (a tied head once); WeightBytes is what
	// they take as the graph computes with them.
	Params, WeightBytes int64
	scratch             string // the folder holding Anchor
}

// Close removes the converted weights' file. Sessions created from the
// graph keep what they mapped of it.
func (g *Graph) Close() error { return os.RemoveAll(g.scratch) }

// convertedFile is the converted weights' name in the scratch folder.
const convertedFile = "weights.bin"

// Load reads dir's config.json and checkpoint headers, checks every
// weight the architecture needs against them, converts the weights and
// builds the graph.
func Load(dir string, opt Options) (*Graph, error) {
	cfgPath := filepath.Join(dir, "config.json")
	data, err := os.ReadFile(cfgPath)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s is missing: a Hugging Face checkpoint folder needs the config.json that comes with its weights", cfgPath)
	} else if err != nil {
		return nil, err
	}
	var cfg map[string]any
	if err := json.Unmarshal(data, &cfg); err != nil || cfg == nil {
		return nil, fmt.Errorf("%s is not a JSON object (%v); download it again", cfgPath, err)
	}
	arch, c, err := decoder.FromConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	st, err := safetensors.OpenDir(dir)
	if err != nil {
		return nil, err
	}
	params, err := declared(arch, c)
	if err != nil {
		return nil, err
	}
	g := &Graph{}
	var ws []*placed
	byName := map[string]*placed{}
	w := map[string]*seeded.Tensor{}
	for _, p := range params {
		t, err := find(st, arch, p)
		if err != nil {
			return nil, err
		}
		pl := &placed{p: p, t: t, linear: arch.TorchLinear(p.name) && len(p.shape) == 2}
		pl.q = opt.Int8 && pl.linear && p.name != arch.HeadName()
		ws = append(ws, pl)
		byName[p.name] = pl
		w[p.name] = &seeded.Tensor{Shape: p.shape} // the data is written to the scratch file
		g.Params += t.Elements()
	}
	elem := int64(4)
	if opt.Half {
		elem = 2
	}
	size := layout(ws, elem)
	for _, pl := range ws {
		g.WeightBytes += pl.length
	}
	if g.scratch, err = makeScratch(); err != nil {
		return nil, fmt.Errorf("making a folder for the converted weights: %w", err)
	}
	g.Anchor = filepath.Join(g.scratch, convertedFile)
	if err := convert(g.Anchor, st.Files, ws, size, opt.Half); err != nil {
		g.Close()
		return nil, fmt.Errorf("converting %s's weights into %s (%d MB; set TMPDIR to a folder with room for them): %w", dir, g.Anchor, size>>20, err)
	}
	emit := func(b *pb.Builder, name string, _ *seeded.Tensor, dims []int64) (string, bool) {
		return weight(b, byName[name], dims, opt.Half), true
	}
	linear := func(b *pb.Builder, x, name string, _ *seeded.Tensor) (string, bool) {
		if pl := byName[name]; pl != nil && pl.q {
			return int8Linear(b, x, pl), true
		}
		return "", false
	}
	// A tree mask lets the engine score many sequences' prefix tree in one
	// row.
	g.Model = decoder.Graph(arch, c, w, decoder.Export{Past: true, PositionIDs: true, Half: opt.Half, Emit: emit, Linear: linear, TreeMask: true})
	return g, nil
}

// param is a weight the architecture declares, in the decoder's layout.
type param struct {
	name  string
	shape []int
}

// declared lists every weight arch's graph reads for c, in declaration
// order, the untied head included.
func declared(arch decoder.Arch, c decoder.Config) (out []param, err error) {
	defer func() {
		// A Config no model has can make a family's Params index out of
		// range; that is bad input, not a crash.
		if r := recover(); r != nil {
			err = fmt.Errorf("config.json describes no %s model the decoder can build: %v", arch.ModelType(), r)
		}
	}()
	arch.Params(c, func(name string, _ seeded.Init, shape ...int) {
		out = append(out, param{name, slices.Clone(shape)})
	})
	if !c.TiedEmbeddings {
		out = append(out, param{arch.HeadName(), []int{c.Hidden, c.Vocab}})
	}
	return out, nil
}

// find is p's tensor in the checkpoint, checked: there, a float, and
// shaped as config.json makes it (a torch Linear weight transposed).
func find(st *safetensors.Checkpoint, arch decoder.Arch, p param) (*safetensors.Tensor, error) {
	t := st.Tensor(p.name)
	if t == nil {
		return nil, fmt.Errorf("%s has no tensor %s, which a %s model with this config.json has; the weights do not belong to the config, or the checkpoint is incomplete", st.Where(), p.name, arch.ModelType())
	}
	if err := t.Float(); err != nil {
		return nil, err
	}
	want := make([]int64, len(p.shape))
	for i, d := range p.shape {
		want[i] = int64(d)
	}
	if arch.TorchLinear(p.name) && len(want) == 2 {
		want[0], want[1] = want[1], want[0]
	}
	if !slices.Equal(t.Shape, want) {
		return nil, fmt.Errorf("%s: tensor %s has shape %v, but config.json makes it %v; the weights do not belong to the config", t.File, p.name, t.Shape, want)
	}
	return t, nil
}

// weight emits w's converted data, [in, out] for a matrix the graph
// multiplies by, and, for a float16 one, the Cast to the float32 the
// decoder computes in (which ONNX Runtime folds, as in an fp16 export).
func weight(b *pb.Builder, w *placed, dims []int64, half bool) string {
	dtype := pb.Float
	if half {
		dtype = pb.Float16
	}
	v := b.Weight(&pb.Tensor{Name: w.p.name, DataType: dtype, Dims: slices.Clone(dims),
		External: &pb.External{Location: convertedFile, Offset: w.off, Length: w.length}})
	if half {
		v = b.OpAttr("Cast", []pb.Attribute{pb.AttrInt("to", int64(pb.Float))}, v)
	}
	return v
}

// int8Linear is x·W for w written as int8 (Options.Int8), as the 8-bit
// exports multiply (decoder.DynamicMatMul), with zero points 0.
func int8Linear(b *pb.Builder, x string, w *placed) string {
	in, out := w.t.Shape[1], w.t.Shape[0]
	q := b.Weight(&pb.Tensor{Name: w.p.name, DataType: pb.Int8, Dims: []int64{in, out},
		External: &pb.External{Location: convertedFile, Offset: w.off, Length: w.length}})
	scale := b.Weight(pb.FloatTensor(w.p.name+"_scale", []int64{out}, w.scale))
	zero := b.Weight(pb.Int8Tensor(w.p.name+"_zero_point", []int64{out}, make([]int8, out)))
	return decoder.DynamicMatMul(b, x, q, scale, zero)
}
