package onnx

import (
	"fmt"
	"github.com/feather-eval/feather/harness/backends/onnx/decoder"
	"regexp"
	"sort"
	"strconv"
	"strings"

	ort "github.com/yalue/onnxruntime_go"
)

// Input and output names of Hugging Face decoder exports.
const (
	inInputIDs       = "input_ids"
	inAttentionMask  = "attention_mask"
	inPositionIDs    = "position_ids"
	inUseCacheBranch = "use_cache_branch"
	outLogits        = "logits"
	// The logits-to-keep input (an int64 scalar k; the model computes
	// logits for the last k positions only, all of them when k is 0) under
	// its name before and since transformers 4.49.
	inNumLogitsToKeep = "num_logits_to_keep"
	inLogitsToKeep    = "logits_to_keep"
)

var (
	pastRE    = regexp.MustCompile(`^past_key_values\.(\d+)\.(key|value)$`)
	presentRE = regexp.MustCompile(`^present\.(\d+)\.(key|value)$`)
)

// ioSpec is how a model file is fed: which inputs it takes, in the order
// the session binds them, and the shapes of its cache and logits.
type ioSpec struct {
	inputs  []string
	outputs []string

	hasMask, hasPos, hasCacheBranch bool
	// hasTree: the graph takes decoder.TreeMaskInput (graphs built for a
	// checkpoint), so scoring can put a prefix tree in a row (tree.go);
	// hasTreeSliding: decoder.TreeSlidingMaskInput too, which applies the
	// sliding window of window positions.
	hasTree, hasTreeSliding bool
	window                  int
	// unpadded says rows may hold no padding anywhere, the cache included:
	// onnxruntime's fused GroupQueryAttention (genai and onnx-community
	// exports) reads the mask only as each row's length and takes a row's
	// tokens to come first, so a left pad, or a short row padded on the
	// right on top of a cache, is attended as if it were text. So do
	// models with sliding-window layers: their window counts a row's
	// slots, padding included (as transformers counts them), so padding
	// between a cache and the tokens after it would move the window's edge.
	unpadded bool
	// keepInput names the logits-to-keep input; "" when the export has none.
	keepInput string
	// layers is the number of past/present pairs; 0 for exports without a
	// cache, which recompute the whole sequence each step.
	layers           int
	kvHeads, headDim int
	kvType           ort.TensorElementDataType
	logitsType       ort.TensorElementDataType
	vocab            int
}

// leftPadOK says whether rows of different lengths may share a batch:
// left padding needs the mask to hide the pads, explicit positions so
// the pads do not shift the real tokens' positions, and attention that
// honours the mask position by position.
func (s *ioSpec) leftPadOK() bool { return s.hasMask && s.hasPos && !s.unpadded }

// kvElem is the byte size of one cache element.
func (s *ioSpec) kvElem() int { return elemSize(s.kvType) }

func elemSize(t ort.TensorElementDataType) int {
	if t == ort.TensorElementDataTypeFloat16 {
		return 2
	}
	return 4
}

// discoverIO maps a model's declared inputs and outputs to their roles and
// checks them against config.json.
func discoverIO(path string, ins, outs []ort.InputOutputInfo, cfg modelConfig) (*ioSpec, error) {
	s := &ioSpec{}
	type kvPair struct{ key, value *ort.InputOutputInfo }
	past := map[int]*kvPair{}
	var unknown []string
	hasIDs := false
	for i := range ins {
		in := &ins[i]
		switch name := in.Name; {
		case name == inInputIDs:
			hasIDs = true
			if in.DataType != ort.TensorElementDataTypeInt64 {
				return nil, fmt.Errorf("%s: input_ids is %s; feather feeds int64 token ids as Hugging Face exports declare them", path, typeName(in.DataType))
			}
		case name == inAttentionMask:
			s.hasMask = true
			if in.DataType != ort.TensorElementDataTypeInt64 {
				return nil, fmt.Errorf("%s: attention_mask is %s; feather feeds an int64 mask as Hugging Face exports declare it", path, typeName(in.DataType))
			}
		case name == inPositionIDs:
			s.hasPos = true
			if in.DataType != ort.TensorElementDataTypeInt64 {
				return nil, fmt.Errorf("%s: position_ids is %s; feather feeds int64 positions as Hugging Face exports declare them", path, typeName(in.DataType))
			}
		case name == inUseCacheBranch:
			s.hasCacheBranch = true
		case name == decoder.TreeMaskInput || name == decoder.TreeSlidingMaskInput:
			if name == decoder.TreeMaskInput {
				s.hasTree = true
			} else {
				s.hasTreeSliding = true
			}
			if in.DataType != ort.TensorElementDataTypeBool {
				return nil, fmt.Errorf("%s: %s is %s; feather feeds a bool tree mask", path, name, typeName(in.DataType))
			}
		case name == inNumLogitsToKeep || name == inLogitsToKeep:
			if err := s.setKeepInput(path, in); err != nil {
				return nil, err
			}
		case pastRE.MatchString(name):
			m := pastRE.FindStringSubmatch(name)
			l, _ := strconv.Atoi(m[1])
			p := past[l]
			if p == nil {
				p = &kvPair{}
				past[l] = p
			}
			if m[2] == "key" {
				p.key = in
			} else {
				p.value = in
			}
		default:
			unknown = append(unknown, name)
		}
	}
	if !hasIDs {
		return nil, fmt.Errorf("%s has no input_ids input (inputs: %s); it is not a Hugging Face causal-LM export", path, strings.Join(infoNames(ins), ", "))
	}
	if len(unknown) > 0 {
		return nil, fmt.Errorf("%s has inputs feather does not know how to feed: %s (it feeds input_ids, attention_mask, position_ids, past_key_values.N.key/value, use_cache_branch and num_logits_to_keep or logits_to_keep); export with `optimum-cli export onnx --task text-generation-with-past`", path, strings.Join(unknown, ", "))
	}

	s.layers = len(past)
	for l := 0; l < s.layers; l++ {
		p := past[l]
		switch {
		case p == nil:
			return nil, fmt.Errorf("%s: past_key_values.%d.* is missing although the model has %d cache layers", path, l, s.layers)
		case p.key == nil:
			return nil, fmt.Errorf("%s: past_key_values.%d.key is missing (the model has past_key_values.%d.value)", path, l, l)
		case p.value == nil:
			return nil, fmt.Errorf("%s: past_key_values.%d.value is missing (the model has past_key_values.%d.key)", path, l, l)
		}
	}
	if s.layers > 0 {
		k := past[0].key
		if len(k.Dimensions) != 4 {
			return nil, fmt.Errorf("%s: past_key_values.0.key has shape %v; feather expects [batch, kv_heads, past_sequence, head_dim]", path, k.Dimensions)
		}
		if k.DataType != ort.TensorElementDataTypeFloat && k.DataType != ort.TensorElementDataTypeFloat16 {
			return nil, fmt.Errorf("%s: past_key_values.0.key is %s; feather supports float32 and float16 caches", path, typeName(k.DataType))
		}
		s.kvType = k.DataType
		var err error
		if s.kvHeads, err = agree(path, "the number of key/value heads", "past_key_values.0.key dimension 1", int(k.Dimensions[1]), "num_key_value_heads", cfg.KVHeads); err != nil {
			return nil, err
		}
		if s.headDim, err = agree(path, "the head size", "past_key_values.0.key dimension 3", int(k.Dimensions[3]), "head_dim (or hidden_size / num_attention_heads)", cfg.HeadDim); err != nil {
			return nil, err
		}
		if cfg.Layers > 0 && cfg.Layers != s.layers {
			return nil, fmt.Errorf("%s has %d past_key_values layers but config.json says num_hidden_layers is %d; the config does not belong to this model", path, s.layers, cfg.Layers)
		}
		for l := 0; l < s.layers; l++ {
			for _, in := range []*ort.InputOutputInfo{past[l].key, past[l].value} {
				if in.DataType != s.kvType {
					return nil, fmt.Errorf("%s: %s is %s but past_key_values.0.key is %s", path, in.Name, typeName(in.DataType), typeName(s.kvType))
				}
			}
		}
	}

	var logits *ort.InputOutputInfo
	present := map[string]bool{}
	for i := range outs {
		switch o := &outs[i]; {
		case o.Name == outLogits:
			logits = o
		case presentRE.MatchString(o.Name):
			present[o.Name] = true
		}
	}
	if logits == nil {
		return nil, fmt.Errorf("%s has no %q output (outputs: %s); feather needs a causal-LM export with logits (optimum-cli export onnx --task text-generation-with-past)", path, outLogits, strings.Join(infoNames(outs), ", "))
	}
	if logits.DataType != ort.TensorElementDataTypeFloat && logits.DataType != ort.TensorElementDataTypeFloat16 {
		return nil, fmt.Errorf("%s: logits are %s; feather supports float32 and float16 logits", path, typeName(logits.DataType))
	}
	if len(logits.Dimensions) != 3 {
		return nil, fmt.Errorf("%s: logits have shape %v; feather expects [batch, sequence, vocab]", path, logits.Dimensions)
	}
	s.logitsType = logits.DataType
	var err error
	if s.vocab, err = agree(path, "the vocabulary size", "logits dimension 2", int(logits.Dimensions[2]), "vocab_size", cfg.Vocab); err != nil {
		return nil, err
	}

	s.inputs = append(s.inputs, inInputIDs)
	if s.hasMask {
		s.inputs = append(s.inputs, inAttentionMask)
	}
	if s.hasPos {
		s.inputs = append(s.inputs, inPositionIDs)
	}
	s.outputs = []string{outLogits}
	for l := 0; l < s.layers; l++ {
		for _, kv := range []string{"key", "value"} {
			s.inputs = append(s.inputs, fmt.Sprintf("past_key_values.%d.%s", l, kv))
			name := fmt.Sprintf("present.%d.%s", l, kv)
			if !present[name] {
				return nil, fmt.Errorf("%s takes past_key_values.%d.%s but has no %s output to carry the cache forward", path, l, kv, name)
			}
			s.outputs = append(s.outputs, name)
		}
	}
	if s.hasCacheBranch {
		if s.layers == 0 {
			return nil, fmt.Errorf("%s has use_cache_branch but no past_key_values inputs", path)
		}
		s.inputs = append(s.inputs, inUseCacheBranch)
	}
	if s.keepInput != "" {
		s.inputs = append(s.inputs, s.keepInput)
	}
	if s.hasTree {
		if !s.hasMask || !s.hasPos || s.layers == 0 {
			return nil, fmt.Errorf("%s has a %s input but not attention_mask, position_ids and a cache, which it goes with", path, decoder.TreeMaskInput)
		}
		s.inputs = append(s.inputs, decoder.TreeMaskInput)
	}
	if s.hasTreeSliding {
		if !s.hasTree || cfg.Window <= 0 {
			return nil, fmt.Errorf("%s has a %s input but no %s, or config.json no sliding_window", path, decoder.TreeSlidingMaskInput, decoder.TreeMaskInput)
		}
		s.window = cfg.Window
		s.inputs = append(s.inputs, decoder.TreeSlidingMaskInput)
	}
	return s, nil
}

// setKeepInput records the logits-to-keep input, which feather feeds as
// transformers.js does: an int64 scalar.
func (s *ioSpec) setKeepInput(path string, in *ort.InputOutputInfo) error {
	switch {
	case s.keepInput != "":
		return fmt.Errorf("%s has both %s and %s inputs; an export has one logits-to-keep input", path, s.keepInput, in.Name)
	case in.DataType != ort.TensorElementDataTypeInt64 || len(in.Dimensions) != 0:
		return fmt.Errorf("%s: %s is %s of shape %v; feather feeds it as transformers.js does, an int64 scalar", path, in.Name, typeName(in.DataType), in.Dimensions)
	}
	s.keepInput = in.Name
	return nil
}

// agree reconciles a size the ONNX file declares (<= 0 when symbolic) with
// the one config.json states (0 when absent).
func agree(path, what, onnxName string, onnxVal int, cfgName string, cfgVal int) (int, error) {
	switch {
	case onnxVal > 0 && cfgVal > 0 && onnxVal != cfgVal:
		return 0, fmt.Errorf("%s: %s disagrees: %s is %d but config.json's %s is %d; the config does not belong to this model", path, what, onnxName, onnxVal, cfgName, cfgVal)
	case onnxVal > 0:
		return onnxVal, nil
	case cfgVal > 0:
		return cfgVal, nil
	}
	return 0, fmt.Errorf("%s: %s is unknown: %s is symbolic and config.json has no %s", path, what, onnxName, cfgName)
}

// typeName spells an element type the way the ONNX docs do.
func typeName(t ort.TensorElementDataType) string {
	switch t {
	case ort.TensorElementDataTypeFloat:
		return "float32"
	case ort.TensorElementDataTypeDouble:
		return "float64"
	}
	return strings.ToLower(strings.TrimPrefix(t.String(), "ONNX_TENSOR_ELEMENT_DATA_TYPE_"))
}

func infoNames(infos []ort.InputOutputInfo) []string {
	out := make([]string, len(infos))
	for i, in := range infos {
		out[i] = in.Name
	}
	sort.Strings(out)
	return out
}
