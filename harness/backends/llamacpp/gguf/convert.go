package gguf

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/feather-eval/feather/harness/backends/checkpoint"
)

// quantizationVersion is general.quantization_version (GGML_QNT_VERSION).
const quantizationVersion = 2

// arch is how one Hugging Face family converts: llama.cpp's architecture
// name, the checkpoint's expected tensors, their GGUF names and layout,
// and the hyperparameter keys.
type arch struct {
	name string
	// head is the LM head's Hugging Face name; headRequired: llama.cpp
	// needs the tensor even when tied (it has no fallback to the token
	// embedding), so a tied model gets a copy.
	head         string
	headRequired bool
	// expected lists every tensor the checkpoint must hold, by Hugging
	// Face name, with its shape.
	expected func(h checkpoint.Hparams) map[string][]int
	// top and layer rename tensors: a name's stem (without .weight or
	// .bias) at the top level, or after layerPrefix and the layer number.
	top         map[string]string
	layerPrefix string
	layer       map[string]string
	// skip lists name suffixes of buffers that checkpoints may carry and
	// the converter drops.
	skip []string
	// reorder returns a Hugging Face tensor in GGUF's layout (a new tensor
	// when it differs); nil leaves every tensor as it is.
	reorder func(h checkpoint.Hparams, name string, t *checkpoint.Tensor) *checkpoint.Tensor
	// check rejects a shape llama.cpp cannot load; nil accepts all.
	check func(h checkpoint.Hparams) error
	// hparams sets the <arch>.* keys.
	hparams func(h checkpoint.Hparams, b *Builder, key func(string) string)
	// extra returns tensors the converter computes from the configuration
	// (llama3's RoPE factors); nil for none.
	extra func(h checkpoint.Hparams) []*checkpoint.Tensor
}

var archs = map[string]*arch{}

// FromCheckpoint converts c as llama.cpp's convert_hf_to_gguf.py does for
// its family (llama, qwen2, qwen3, gpt2, gpt_neox, gemma3_text), with vocabulary v
// (padded to the model's vocabulary size with unused tokens), storing the
// weights as ft asks: 1-D tensors, norms, biases and GPT-2's position
// embeddings stay F32, and a Q8_0 matrix whose rows are not whole blocks
// falls back to F16, as in the converter. The result is ready to write.
func FromCheckpoint(c *checkpoint.Checkpoint, v *Vocab, ft FileType) (*Builder, error) {
	if v == nil {
		return nil, fmt.Errorf("a GGUF model carries its tokenizer: give FromCheckpoint a vocabulary (LoadVocab)")
	}
	h, err := c.Hparams()
	if err != nil {
		return nil, err
	}
	a := archs[h.ModelType]
	if a.check != nil {
		if err := a.check(h); err != nil {
			return nil, fmt.Errorf("checkpoint (%s): %v", h.ModelType, err)
		}
	}
	want, ok := ft.tensorType()
	if !ok {
		return nil, fmt.Errorf("file type %d: write F32 (0), F16 (1) or Q8_0 (7)", uint32(ft))
	}
	tensors, err := a.convert(c, h)
	if err != nil {
		return nil, err
	}
	if a.extra != nil {
		tensors = append(tensors, a.extra(h)...)
	}
	b := NewBuilder()
	b.Set("general.architecture", a.name)
	b.Set("general.type", "model")
	b.Set("general.name", modelName(c, h))
	a.hparams(h, b, func(k string) string { return a.name + "." + k })
	b.Set("general.file_type", uint32(ft))
	b.Set("general.quantization_version", uint32(quantizationVersion))
	if err := v.set(b, h.Vocab); err != nil {
		return nil, err
	}
	for _, t := range tensors {
		if err := b.Add(t.Name, t.Shape, storage(t, want), t.Data); err != nil {
			return nil, err
		}
	}
	return b, nil
}

func modelName(c *checkpoint.Checkpoint, h checkpoint.Hparams) string {
	if s, ok := c.Config["_name_or_path"].(string); ok && s != "" {
		return s
	}
	return h.ModelType
}

// storage is the type a tensor is written as (the converter's rules).
func storage(t *checkpoint.Tensor, want Type) Type {
	if len(t.Shape) <= 1 || strings.HasSuffix(t.Name, "_norm.weight") || !strings.HasSuffix(t.Name, ".weight") || t.Name == "position_embd.weight" {
		return F32
	}
	if want == Q8_0 && t.Shape[len(t.Shape)-1]%Q8_0Block != 0 {
		return F16
	}
	return want
}

// convert checks c's tensors against the family's and returns them renamed
// and laid out for GGUF: embeddings, each block in turn, then the output
// norm and head.
func (a *arch) convert(c *checkpoint.Checkpoint, h checkpoint.Hparams) ([]*checkpoint.Tensor, error) {
	want := a.expected(h)
	if _, ok := c.Tensors[a.head]; ok && h.Tied {
		want[a.head] = []int{h.Vocab, h.Hidden} // a tied head written out anyway is the head
	}
	var problems []string
	for name, shape := range want {
		t := c.Tensors[name]
		switch {
		case t == nil:
			problems = append(problems, name+" is missing")
		case !slices.Equal(t.Shape, shape) || len(t.Data) != product(shape):
			problems = append(problems, fmt.Sprintf("%s has shape %v (%d values), want %v", name, t.Shape, len(t.Data), shape))
		}
	}
	var out []*checkpoint.Tensor
	for _, name := range c.Names() {
		if slices.ContainsFunc(a.skip, func(s string) bool { return strings.HasSuffix(name, s) }) {
			continue
		}
		if _, ok := want[name]; !ok {
			problems = append(problems, fmt.Sprintf("%s is not a %s tensor this converter knows", name, h.ModelType))
			continue
		}
		if len(problems) > 0 {
			continue
		}
		ggufName, ok := a.rename(name)
		if !ok {
			problems = append(problems, fmt.Sprintf("%s has no GGUF name", name))
			continue
		}
		t := c.Tensors[name]
		if a.reorder != nil {
			t = a.reorder(h, name, t)
		}
		out = append(out, &checkpoint.Tensor{Name: ggufName, Shape: t.Shape, DType: t.DType, Data: t.Data})
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		return nil, fmt.Errorf("checkpoint (%s): %s", h.ModelType, strings.Join(problems, "; "))
	}
	if a.headRequired && !slices.ContainsFunc(out, func(t *checkpoint.Tensor) bool { return t.Name == "output.weight" }) {
		for _, t := range out {
			if t.Name == "token_embd.weight" {
				out = append(out, &checkpoint.Tensor{Name: "output.weight", Shape: t.Shape, DType: t.DType, Data: t.Data})
				break
			}
		}
	}
	slices.SortStableFunc(out, func(x, y *checkpoint.Tensor) int { return order(x.Name) - order(y.Name) })
	return out, nil
}

// rename is a Hugging Face tensor's GGUF name.
func (a *arch) rename(name string) (string, bool) {
	stem, ext, ok := cutExt(name)
	if !ok {
		return "", false
	}
	if g, ok := a.top[stem]; ok {
		return g + ext, true
	}
	rest, ok := strings.CutPrefix(stem, a.layerPrefix)
	if !ok {
		return "", false
	}
	num, rest, ok := strings.Cut(rest, ".")
	i, err := strconv.Atoi(num)
	if !ok || err != nil || i < 0 {
		return "", false
	}
	g, ok := a.layer[rest]
	return fmt.Sprintf("blk.%d.%s%s", i, g, ext), ok
}

func cutExt(name string) (stem, ext string, ok bool) {
	for _, e := range []string{".weight", ".bias"} {
		if s, found := strings.CutSuffix(name, e); found {
			return s, e, true
		}
	}
	return "", "", false
}

// order ranks GGUF tensors: embeddings, the blocks in order, the final
// norm and head.
func order(name string) int {
	switch {
	case strings.HasPrefix(name, "token_embd."):
		return 0
	case strings.HasPrefix(name, "position_embd."):
		return 1
	case strings.HasPrefix(name, "blk."):
		i, _ := strconv.Atoi(strings.SplitN(name, ".", 3)[1])
		return 2 + i
	case strings.HasPrefix(name, "output_norm."):
		return 1 << 20
	}
	return 1<<20 + 1
}

func product(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}
