package layout

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestValidVariant(t *testing.T) {
	tests := []struct {
		v    string
		want bool
	}{
		{"", true},
		{"fp32", true},
		{"fp16", true},
		{"q4f16", true},
		{"quantized", true},
		{"int8", true},
		{"Q4", false},
		{"q4-f16", false},
		{"q4_f16", false},
		{"fp16.onnx", false},
		{"../x", false},
		{" q4", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, ValidVariant(tt.v), "%q", tt.v)
	}
}

func TestCandidates(t *testing.T) {
	tests := []struct {
		variant string
		want    []string
	}{
		{"", []string{"model.onnx", "onnx/model.onnx", "decoder_model_merged.onnx", "onnx/decoder_model_merged.onnx"}},
		{"fp32", []string{"model.onnx", "onnx/model.onnx", "decoder_model_merged.onnx", "onnx/decoder_model_merged.onnx"}},
		{"q4", []string{"model_q4.onnx", "onnx/model_q4.onnx", "decoder_model_merged_q4.onnx", "onnx/decoder_model_merged_q4.onnx"}},
		{"quantized", []string{"model_quantized.onnx", "onnx/model_quantized.onnx", "decoder_model_merged_quantized.onnx", "onnx/decoder_model_merged_quantized.onnx"}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Candidates(tt.variant), "%q", tt.variant)
	}
}

func TestVariant(t *testing.T) {
	tests := []struct {
		rel     string
		variant string
		ok      bool
	}{
		{"model.onnx", "fp32", true},
		{"onnx/model.onnx", "fp32", true},
		{"onnx/model_fp16.onnx", "fp16", true},
		{"decoder_model_merged.onnx", "fp32", true},
		{"onnx/decoder_model_merged_quantized.onnx", "quantized", true},
		{"model_q4f16.onnx", "q4f16", true},
		{"decoder_model.onnx", "", false},
		{"decoder_with_past_model.onnx", "", false},
		{"onnx/encoder_model.onnx", "", false},
		{"model.onnx_data", "", false},
		{"model_Q4.onnx", "", false},
		{"sub/model.onnx", "", false},
		{"onnx/onnx/model.onnx", "", false},
	}
	for _, tt := range tests {
		v, ok := Variant(tt.rel)
		assert.Equal(t, tt.ok, ok, "%q", tt.rel)
		assert.Equal(t, tt.variant, v, "%q", tt.rel)
	}
}

// Every candidate is a file Variant recognises, as the variant asked for.
func TestCandidatesAreVariants(t *testing.T) {
	for _, v := range []string{"fp32", "fp16", "q4", "int8"} {
		for _, c := range Candidates(v) {
			got, ok := Variant(c)
			assert.True(t, ok, c)
			assert.Equal(t, v, got, c)
		}
	}
}
