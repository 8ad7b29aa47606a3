package onnx

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"

	"github.com/feather-eval/feather/internal/jsonpos"
)

// modelConfig is what the backend needs from config.json and
// generation_config.json. Zero means "not stated"; the ONNX file's declared
// shapes fill or check the gaps.
type modelConfig struct {
	ModelType    string
	Layers       int
	Heads        int
	KVHeads      int
	HeadDim      int
	Hidden       int
	Vocab        int
	MaxPositions int
	BOS          []int
	// EOS is the union of config.json's and generation_config.json's
	// eos_token_id, in that order: generation stops on any of them.
	EOS []int
	PAD []int
	// Sliding says some layer attends to a sliding window of recent
	// positions (Gemma 3, Mistral), shorter than the context, of Window
	// positions (the query's own included).
	Sliding bool
	Window  int
}

// slides reports whether a config's layers attend to a sliding window:
// a window (sliding_window) shorter than the context, not switched off
// (Qwen2's use_sliding_window false), and, where layer_types lists each
// layer's attention, some layer of type sliding_attention.
func (r rawConfig) slides(maxPositions int) bool {
	switch {
	case r.SlidingWindow <= 0 || r.UseSlidingWindow != nil && !*r.UseSlidingWindow:
		return false
	case r.LayerTypes != nil:
		return slices.Contains(r.LayerTypes, "sliding_attention")
	}
	return maxPositions == 0 || r.SlidingWindow < maxPositions
}

// tokenIDs is a token id field that Hugging Face writes as null, a number or
// a list of numbers.
type tokenIDs []int

func (t *tokenIDs) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	bad := &json.UnmarshalTypeError{Value: jsonKind(b), Type: reflect.TypeFor[tokenIDs]()}
	switch {
	case bytes.Equal(b, []byte("null")):
		*t = nil
		return nil
	case len(b) > 0 && b[0] == '[':
		var ids []*int
		if err := json.Unmarshal(b, &ids); err != nil {
			bad.Value = "list with a non-integer in it"
			return bad
		}
		*t = (*t)[:0]
		for _, id := range ids {
			if id != nil {
				*t = append(*t, *id)
			}
		}
		return nil
	}
	var id int
	if err := json.Unmarshal(b, &id); err != nil {
		return bad
	}
	*t = tokenIDs{id}
	return nil
}

func jsonKind(b []byte) string {
	switch {
	case len(b) == 0:
		return "value"
	case b[0] == '"':
		return "string"
	case b[0] == '{':
		return "object"
	case b[0] == '[':
		return "list"
	case b[0] == 't' || b[0] == 'f':
		return "bool"
	}
	return "number"
}

// rawConfig lists the names architectures use for the same quantity; the
// first non-zero one wins (see pick).
type rawConfig struct {
	ModelType string `json:"model_type"`

	NumHiddenLayers int `json:"num_hidden_layers"`
	NLayer          int `json:"n_layer"`
	NumLayers       int `json:"num_layers"`

	NumAttentionHeads int `json:"num_attention_heads"`
	NHead             int `json:"n_head"`
	NumHeads          int `json:"num_heads"`

	NumKeyValueHeads int  `json:"num_key_value_heads"`
	NumKVHeads       int  `json:"num_kv_heads"`
	NHeadKV          int  `json:"n_head_kv"`
	MultiQuery       bool `json:"multi_query"`

	HeadDim    int      `json:"head_dim"`
	HiddenSize int      `json:"hidden_size"`
	NEmbd      int      `json:"n_embd"`
	DModel     int      `json:"d_model"`
	VocabSize  int      `json:"vocab_size"`
	MaxPosEmb  int      `json:"max_position_embeddings"`
	NPositions int      `json:"n_positions"`
	NCtx       int      `json:"n_ctx"`
	MaxSeqLen  int      `json:"max_sequence_length"`
	SeqLength  int      `json:"seq_length"`
	BOSTokenID tokenIDs `json:"bos_token_id"`
	EOSTokenID tokenIDs `json:"eos_token_id"`
	PADTokenID tokenIDs `json:"pad_token_id"`

	SlidingWindow    int      `json:"sliding_window"`
	UseSlidingWindow *bool    `json:"use_sliding_window"`
	LayerTypes       []string `json:"layer_types"`

	// Multimodal and some newer configs nest the decoder's settings.
	TextConfig *rawConfig `json:"text_config"`
}

func pick(vs ...int) int {
	for _, v := range vs {
		if v != 0 {
			return v
		}
	}
	return 0
}

// readConfig reads dir/config.json (required) and dir/generation_config.json
// (optional).
func readConfig(dir string) (modelConfig, error) {
	path := filepath.Join(dir, "config.json")
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return modelConfig{}, fmt.Errorf("%s is missing: a model folder needs the config.json that comes with the Hugging Face export", path)
		}
		return modelConfig{}, err
	}
	var raw rawConfig
	if err := decodeJSONFile(path, data, &raw); err != nil {
		return modelConfig{}, err
	}
	src := raw
	if raw.TextConfig != nil && pick(raw.NumHiddenLayers, raw.NLayer, raw.NumLayers) == 0 {
		src = *raw.TextConfig
		if src.ModelType == "" {
			src.ModelType = raw.ModelType
		}
		// Token ids often live at the top level only.
		if src.BOSTokenID == nil {
			src.BOSTokenID = raw.BOSTokenID
		}
		if src.EOSTokenID == nil {
			src.EOSTokenID = raw.EOSTokenID
		}
		if src.PADTokenID == nil {
			src.PADTokenID = raw.PADTokenID
		}
	}
	c := modelConfig{
		ModelType:    src.ModelType,
		Layers:       pick(src.NumHiddenLayers, src.NLayer, src.NumLayers),
		Heads:        pick(src.NumAttentionHeads, src.NHead, src.NumHeads),
		KVHeads:      pick(src.NumKeyValueHeads, src.NumKVHeads, src.NHeadKV),
		HeadDim:      src.HeadDim,
		Hidden:       pick(src.HiddenSize, src.NEmbd, src.DModel),
		Vocab:        src.VocabSize,
		MaxPositions: pick(src.MaxPosEmb, src.NPositions, src.NCtx, src.MaxSeqLen, src.SeqLength),
		BOS:          append([]int(nil), src.BOSTokenID...),
		EOS:          append([]int(nil), src.EOSTokenID...),
		PAD:          append([]int(nil), src.PADTokenID...),
	}
	c.Sliding = src.slides(c.MaxPositions)
	if c.Sliding {
		c.Window = src.SlidingWindow
	}
	if c.KVHeads == 0 && src.MultiQuery {
		c.KVHeads = 1
	}
	if c.KVHeads == 0 {
		c.KVHeads = c.Heads
	}
	if c.HeadDim == 0 && c.Heads > 0 && c.Hidden%c.Heads == 0 {
		c.HeadDim = c.Hidden / c.Heads
	}
	for _, f := range []struct {
		name string
		v    int
	}{
		{"num_hidden_layers", c.Layers}, {"num_attention_heads", c.Heads},
		{"num_key_value_heads", c.KVHeads}, {"head_dim", c.HeadDim},
		{"hidden_size", c.Hidden}, {"vocab_size", c.Vocab},
		{"max_position_embeddings", c.MaxPositions},
	} {
		if f.v < 0 {
			return modelConfig{}, fmt.Errorf("%s: %s is %d; it must be positive", path, f.name, f.v)
		}
	}
	if c.Heads > 0 && c.KVHeads > 0 && c.Heads%c.KVHeads != 0 {
		return modelConfig{}, fmt.Errorf("%s: num_attention_heads (%d) is not a multiple of num_key_value_heads (%d)", path, c.Heads, c.KVHeads)
	}

	gpath := filepath.Join(dir, "generation_config.json")
	if gdata, err := os.ReadFile(gpath); err == nil {
		var g struct {
			BOSTokenID tokenIDs `json:"bos_token_id"`
			EOSTokenID tokenIDs `json:"eos_token_id"`
			PADTokenID tokenIDs `json:"pad_token_id"`
		}
		if err := decodeJSONFile(gpath, gdata, &g); err != nil {
			return modelConfig{}, err
		}
		c.EOS = union(c.EOS, g.EOSTokenID)
		if len(c.BOS) == 0 {
			c.BOS = append(c.BOS, g.BOSTokenID...)
		}
		if len(c.PAD) == 0 {
			c.PAD = append(c.PAD, g.PADTokenID...)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return modelConfig{}, err
	}
	return c, nil
}

// union appends the ids of b missing from a, keeping a's order.
func union(a, b []int) []int {
	out := append([]int(nil), a...)
	for _, id := range b {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// decodeJSONFile decodes data into v, naming the file, the line and the
// field on failure.
func decodeJSONFile(path string, data []byte, v any) error {
	err := json.Unmarshal(data, v)
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &se):
		return jsonpos.SyntaxError(path, data, err)
	case errors.As(err, &te):
		where := path
		if te.Offset > 0 {
			line, _ := jsonpos.Position(data, te.Offset)
			where = fmt.Sprintf("%s:%d", path, line)
		}
		return fmt.Errorf("%s: field %q must be %s, not a JSON %s", where, te.Field, goTypeName(te.Type), te.Value)
	}
	return fmt.Errorf("%s: %v", path, err)
}

func goTypeName(t reflect.Type) string {
	switch t {
	case reflect.TypeFor[tokenIDs]():
		return "a token id or a list of token ids"
	case reflect.TypeFor[string]():
		return "a string"
	case reflect.TypeFor[bool]():
		return "true or false"
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int64, reflect.Float64:
		return "a number"
	case reflect.Struct, reflect.Pointer, reflect.Map:
		return "an object"
	case reflect.Slice:
		return "a list"
	}
	return t.String()
}
