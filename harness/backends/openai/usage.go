package openai

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
)

// wireUsage is the usage object of an answer, read leniently: providers
// write counts as floats (12.0) or strings ("12"), and a usage that
// garbles its counts must cost those counts, never the answer, which
// arrived whole. A count or cost that is not a number a provider could
// mean (null, negative, fractional, not numeric) reads as unreported: 0
// tokens, no cost. A usage that is not an object is no usage.
type wireUsage struct {
	PromptTokens     int
	CompletionTokens int
	Cost             *float64
}

// UnmarshalJSON never fails: see wireUsage.
func (u *wireUsage) UnmarshalJSON(b []byte) error {
	*u = wireUsage{}
	var raw struct {
		PromptTokens     json.RawMessage `json:"prompt_tokens"`
		CompletionTokens json.RawMessage `json:"completion_tokens"`
		Cost             json.RawMessage `json:"cost"`
	}
	if json.Unmarshal(b, &raw) != nil {
		return nil
	}
	u.PromptTokens, u.CompletionTokens = tokenCount(raw.PromptTokens), tokenCount(raw.CompletionTokens)
	if c, ok := usageNumber(raw.Cost); ok {
		u.Cost = &c
	}
	return nil
}

// tokenCount is a whole, non-negative count, else 0 (unreported).
func tokenCount(b json.RawMessage) int {
	v, ok := usageNumber(b)
	if !ok || v != math.Trunc(v) || v > math.MaxInt32 {
		return 0
	}
	return int(v)
}

// usageNumber reads a finite, non-negative JSON number or a string
// holding one.
func usageNumber(b json.RawMessage) (float64, bool) {
	b = bytes.TrimSpace(b)
	if len(b) >= 2 && b[0] == '"' {
		var s string
		if json.Unmarshal(b, &s) != nil {
			return 0, false
		}
		b = []byte(s)
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0, false
	}
	return v, true
}
