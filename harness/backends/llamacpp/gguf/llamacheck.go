package gguf

import (
	"fmt"
	"slices"
	"strings"
)

// Limits of llama.cpp's model loader (llama-hparams.h).
const (
	maxLayers  = 512  // LLAMA_MAX_LAYERS
	maxExperts = 1024 // LLAMA_MAX_EXPERTS
)

// ropeScalingTypes are the rope.scaling.type values llama.cpp knows.
var ropeScalingTypes = []string{"none", "linear", "yarn", "longrope"}

// checkLlama rejects metadata on which llama.cpp's loader asserts (ending
// the process) instead of returning an error: a layer or expert count
// out of range, an unknown RoPE scaling type, and a vocabulary with a
// token twice. Keys that are absent are not checked: llama.cpp reports
// those itself.
func checkLlama(f *File) error {
	arch, ok := f.Get("general.architecture")
	if a, isStr := arch.(string); ok && isStr && a != "" {
		if err := checkHparams(f, a); err != nil {
			return err
		}
	}
	return checkTokens(f)
}

func checkHparams(f *File, arch string) error {
	key := func(k string) string { return arch + "." + k }
	layers, hasLayers := uintValue(f, key("block_count"))
	if hasLayers && (layers == 0 || layers > maxLayers) {
		return fmt.Errorf("%s is %d; llama.cpp loads 1 to %d layers", key("block_count"), layers, maxLayers)
	}
	if next, ok := uintValue(f, key("nextn_predict_layers")); ok && hasLayers && next > layers {
		return fmt.Errorf("%s is %d, more than the %d layers (%s)", key("nextn_predict_layers"), next, layers, key("block_count"))
	}
	experts, _ := uintValue(f, key("expert_count"))
	if experts > maxExperts {
		return fmt.Errorf("%s is %d; llama.cpp loads at most %d experts", key("expert_count"), experts, maxExperts)
	}
	used, _ := uintValue(f, key("expert_used_count"))
	switch {
	case used > experts:
		return fmt.Errorf("%s is %d, more than the %d experts (%s)", key("expert_used_count"), used, experts, key("expert_count"))
	case experts > 0 && used == 0:
		return fmt.Errorf("%s is %d but %s is 0 or missing; a mixture of experts uses at least one", key("expert_count"), experts, key("expert_used_count"))
	}
	groups, _ := uintValue(f, key("expert_group_count"))
	groupUsed, _ := uintValue(f, key("expert_group_used_count"))
	switch {
	case groups > 0 && groups >= max(experts, 1):
		return fmt.Errorf("%s is %d; it must be below the expert count (%d)", key("expert_group_count"), groups, experts)
	case groups > 1 && (experts%groups != 0 || groupUsed == 0 || groupUsed >= groups):
		return fmt.Errorf("%s %d must divide the %d experts, and %s (%d) must be 1 to %d", key("expert_group_count"), groups, experts, key("expert_group_used_count"), groupUsed, groups-1)
	}
	if v, ok := f.Get(key("rope.scaling.type")); ok {
		if s, isStr := v.(string); isStr && !slices.Contains(ropeScalingTypes, s) {
			return fmt.Errorf("%s %q is not one llama.cpp knows (%s)", key("rope.scaling.type"), s, strings.Join(ropeScalingTypes, ", "))
		}
	}
	return nil
}

// uintValue reads a count stored as any unsigned or signed integer.
func uintValue(f *File, key string) (uint64, bool) {
	v, ok := f.Get(key)
	if !ok {
		return 0, false
	}
	switch n := v.(type) {
	case uint8:
		return uint64(n), true
	case uint16:
		return uint64(n), true
	case uint32:
		return uint64(n), true
	case uint64:
		return n, true
	case int8:
		return uint64(max(n, 0)), true
	case int16:
		return uint64(max(n, 0)), true
	case int32:
		return uint64(max(n, 0)), true
	case int64:
		return uint64(max(n, 0)), true
	}
	return 0, false
}

// checkTokens rejects a token list with a token twice: llama.cpp asserts
// that every token maps to its own id.
func checkTokens(f *File) error {
	v, ok := f.Get("tokenizer.ggml.tokens")
	if !ok {
		return nil
	}
	tokens, isList := v.([]string)
	if !isList {
		return fmt.Errorf("tokenizer.ggml.tokens must be an array of strings, got %s", typeName(v))
	}
	seen := make(map[string]int, len(tokens))
	for i, t := range tokens {
		if t == "" {
			t = fmt.Sprintf("[EMPTY_%d]", i) // how llama.cpp names an empty token
		}
		if j, dup := seen[t]; dup {
			return fmt.Errorf("tokenizer.ggml.tokens: token %q is both id %d and id %d; llama.cpp needs each token once", t, j, i)
		}
		seen[t] = i
	}
	return nil
}
