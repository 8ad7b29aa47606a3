package onnx

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	ort "github.com/yalue/onnxruntime_go"

	"github.com/feather-eval/feather/harness/backends/local"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
}

func TestReadConfig(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  modelConfig
	}{
		{
			name: "gpt2 names",
			files: map[string]string{"config.json": `{"model_type": "gpt2", "n_layer": 12, "n_head": 12, "n_embd": 768,
				"n_positions": 1024, "n_ctx": 1024, "vocab_size": 50257, "bos_token_id": 50256, "eos_token_id": 50256}`},
			want: modelConfig{ModelType: "gpt2", Layers: 12, Heads: 12, KVHeads: 12, HeadDim: 64, Hidden: 768, Vocab: 50257,
				MaxPositions: 1024, BOS: []int{50256}, EOS: []int{50256}},
		},
		{
			name: "llama with gqa, eos list merged with generation_config",
			files: map[string]string{
				"config.json": `{"model_type": "llama", "num_hidden_layers": 30, "num_attention_heads": 9, "num_key_value_heads": 3,
					"hidden_size": 576, "max_position_embeddings": 2048, "vocab_size": 49152, "bos_token_id": 1, "eos_token_id": [2, 7], "pad_token_id": null}`,
				"generation_config.json": `{"eos_token_id": [7, 9], "pad_token_id": 4}`,
			},
			want: modelConfig{ModelType: "llama", Layers: 30, Heads: 9, KVHeads: 3, HeadDim: 64, Hidden: 576, Vocab: 49152,
				MaxPositions: 2048, BOS: []int{1}, EOS: []int{2, 7, 9}, PAD: []int{4}},
		},
		{
			name: "explicit head_dim and nested text_config",
			files: map[string]string{"config.json": `{"model_type": "gemma3", "eos_token_id": 1, "bos_token_id": 2,
				"text_config": {"num_hidden_layers": 4, "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256,
				"hidden_size": 640, "max_position_embeddings": 32768, "vocab_size": 262144}}`},
			want: modelConfig{ModelType: "gemma3", Layers: 4, Heads: 8, KVHeads: 4, HeadDim: 256, Hidden: 640, Vocab: 262144,
				MaxPositions: 32768, BOS: []int{2}, EOS: []int{1}},
		},
		{
			name:  "multi-query",
			files: map[string]string{"config.json": `{"n_layer": 2, "n_head": 4, "n_embd": 64, "multi_query": true, "n_positions": 128}`},
			want:  modelConfig{Layers: 2, Heads: 4, KVHeads: 1, HeadDim: 16, Hidden: 64, MaxPositions: 128},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, tt.files)
			got, err := readConfig(dir)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// Which configs have sliding-window layers, whose rows the engine then
// never pads.
func TestReadConfigSliding(t *testing.T) {
	base := `"model_type": "m", "num_hidden_layers": 2, "num_attention_heads": 4, "hidden_size": 64, "vocab_size": 100, "max_position_embeddings": 4096`
	tests := []struct {
		name, fields string
		want         bool
	}{
		{"no window", ``, false},
		{"null window", `, "sliding_window": null`, false},
		{"Gemma 3 before layer_types", `, "sliding_window": 512`, true},
		{"a window as long as the context", `, "sliding_window": 4096`, false},
		{"Qwen2 with the window off", `, "sliding_window": 1024, "use_sliding_window": false`, false},
		{"Qwen2 with it on", `, "sliding_window": 1024, "use_sliding_window": true`, true},
		{"layer_types with a sliding layer", `, "sliding_window": 512, "layer_types": ["sliding_attention", "full_attention"]`, true},
		{"layer_types all full", `, "sliding_window": 512, "layer_types": ["full_attention", "full_attention"]`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"config.json": "{" + base + tt.fields + "}"})
			got, err := readConfig(dir)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got.Sliding)
		})
	}
}

func TestReadConfigErrors(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  string // with DIR for the folder
	}{
		{"missing", map[string]string{}, "DIR/config.json is missing: a model folder needs the config.json that comes with the Hugging Face export"},
		{"syntax", map[string]string{"config.json": "{\n\"n_layer\": 2,\n}"}, "DIR/config.json:3:1: invalid JSON: invalid character '}' looking for beginning of object key string"},
		{"type", map[string]string{"config.json": "{\n\"n_layer\": \"two\"}"}, `DIR/config.json:2: field "n_layer" must be a number, not a JSON string`},
		{"token id type", map[string]string{"config.json": `{"eos_token_id": "</s>"}`}, `DIR/config.json: field "eos_token_id" must be a token id or a list of token ids, not a JSON string`},
		{"heads", map[string]string{"config.json": `{"num_attention_heads": 9, "num_key_value_heads": 4}`}, "DIR/config.json: num_attention_heads (9) is not a multiple of num_key_value_heads (4)"},
		{"generation config", map[string]string{"config.json": `{}`, "generation_config.json": `{"eos_token_id": [1, "x"]}`},
			`DIR/generation_config.json: field "eos_token_id" must be a token id or a list of token ids, not a JSON list with a non-integer in it`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, tt.files)
			_, err := readConfig(dir)
			require.Error(t, err)
			assert.Equal(t, strings.ReplaceAll(tt.want, "DIR", dir), err.Error())
		})
	}
}

func TestLocateONNX(t *testing.T) {
	tests := []struct {
		name    string
		files   []string
		variant string
		want    string // relative path, or the error with DIR for the folder
		wantErr bool
		genai   string // genai_config.json's content, when set
	}{
		{name: "transformers.js", files: []string{"onnx/model.onnx", "onnx/model_quantized.onnx"}, want: "onnx/model.onnx"},
		{name: "variant", files: []string{"onnx/model.onnx", "onnx/model_quantized.onnx"}, variant: "quantized", want: "onnx/model_quantized.onnx"},
		{name: "fp32 names the plain file", files: []string{"onnx/model.onnx"}, variant: "fp32", want: "onnx/model.onnx"},
		{name: "root first", files: []string{"model.onnx", "onnx/model.onnx"}, want: "model.onnx"},
		{name: "optimum merged", files: []string{"decoder_model_merged.onnx", "decoder_model.onnx"}, want: "decoder_model_merged.onnx"},
		{name: "merged under onnx", files: []string{"onnx/decoder_model_merged_fp16.onnx"}, variant: "fp16", want: "onnx/decoder_model_merged_fp16.onnx"},
		{
			name: "missing variant", files: []string{"onnx/model.onnx", "onnx/model_q4.onnx", "onnx/model_fp16.onnx", "onnx/model.onnx_data"}, variant: "int8", wantErr: true,
			want: "DIR has no int8 variant (looked for model_int8.onnx, onnx/model_int8.onnx, decoder_model_merged_int8.onnx, onnx/decoder_model_merged_int8.onnx); " +
				"it has onnx/model.onnx (fp32), onnx/model_fp16.onnx (fp16), onnx/model_q4.onnx (q4). Set the model's \"variant\" to one of: fp32, fp16, q4",
		},
		{
			name: "only quantized", files: []string{"onnx/model_quantized.onnx"}, wantErr: true,
			want: "DIR has no fp32 variant (looked for model.onnx, onnx/model.onnx, decoder_model_merged.onnx, onnx/decoder_model_merged.onnx); " +
				"it has onnx/model_quantized.onnx (quantized). Set the model's \"variant\" to one of: quantized",
		},
		{name: "genai builder's folder", files: []string{"phi3-mini-cpu-int4.onnx", "phi3-mini-cpu-int4.onnx.data"},
			genai: `{"model": {"decoder": {"filename": "phi3-mini-cpu-int4.onnx", "session_options": {}}, "type": "phi3"}}`, want: "phi3-mini-cpu-int4.onnx"},
		{name: "standard names first", files: []string{"onnx/model.onnx", "other.onnx"},
			genai: `{"model": {"decoder": {"filename": "other.onnx"}}}`, want: "onnx/model.onnx"},
		{name: "genai file missing", files: []string{"config.json"}, genai: `{"model": {"decoder": {"filename": "phi3.onnx"}}}`, wantErr: true,
			want: "DIR/genai_config.json names the decoder phi3.onnx, which is not in DIR; download it (and its .onnx.data) into the folder"},
		{name: "genai without a decoder", files: []string{"x.onnx"}, genai: `{"model": {"type": "phi3"}}`, wantErr: true,
			want: "DIR/genai_config.json: model.decoder.filename is missing"},
		{name: "genai naming a file outside", files: []string{"x.onnx"}, genai: `{"model": {"decoder": {"filename": "../x.onnx"}}}`, wantErr: true,
			want: "DIR/genai_config.json: model.decoder.filename \"../x.onnx\" is not a .onnx file inside the folder"},
		{
			name: "no onnx", files: []string{"config.json", "tokenizer.json"}, wantErr: true,
			want: "DIR has no ONNX decoder file (looked for model.onnx, onnx/model.onnx, decoder_model_merged.onnx, onnx/decoder_model_merged.onnx) and no Hugging Face checkpoint (model.safetensors or model.safetensors.index.json); " +
				"download the model's repository, which has one or the other, or export one with `optimum-cli export onnx --task text-generation-with-past`",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{}
			for _, f := range tt.files {
				files[f] = "x"
			}
			if tt.genai != "" {
				files["genai_config.json"] = tt.genai
			}
			writeFiles(t, dir, files)
			got, err := locateONNX(dir, tt.variant)
			if tt.wantErr {
				require.Error(t, err)
				assert.Equal(t, strings.ReplaceAll(tt.want, "DIR", dir), err.Error())
				return
			}
			require.NoError(t, err)
			assert.Equal(t, filepath.Join(dir, tt.want), got)
		})
	}
}

func TestLocateONNXBadFolder(t *testing.T) {
	dir := t.TempDir()
	_, err := locateONNX(filepath.Join(dir, "nope"), "")
	require.Error(t, err)
	assert.Equal(t, "model folder "+filepath.Join(dir, "nope")+" does not exist; download a Hugging Face ONNX export there (see the README's \"Running your own models\")", err.Error())

	f := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(f, nil, 0o644))
	_, err = locateONNX(f, "")
	require.Error(t, err)
	assert.Equal(t, "model path "+f+" is a file; it must be the export's folder (holding config.json and the .onnx file)", err.Error())
}

func TestHalfToFloat(t *testing.T) {
	tests := []struct {
		bits uint16
		want float32
	}{
		{0x0000, 0}, {0x3c00, 1}, {0xc000, -2}, {0x3555, 0.333251953125}, {0x7bff, 65504},
		{0x0400, 6.103515625e-05},       // smallest normal
		{0x0001, 5.960464477539063e-08}, // smallest subnormal
		{0x03ff, 6.097555160522461e-05}, // largest subnormal
		{0x7c00, float32(math.Inf(1))}, {0xfc00, float32(math.Inf(-1))},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, halfToFloat(tt.bits), "%#04x", tt.bits)
	}
	assert.True(t, math.IsNaN(float64(halfToFloat(0x7e00))))
	assert.Equal(t, uint32(0x80000000), math.Float32bits(halfToFloat(0x8000)), "negative zero keeps its sign")
}

func TestPlanRows(t *testing.T) {
	seqs := []local.ScoreSeq{
		{Tokens: []int{9, 1, 2, 3}, N: 1},       // 0: item A, one-token choice
		{Tokens: []int{9, 1, 2, 4, 5, 6}, N: 3}, // 1: item A, three-token choice
		{Tokens: []int{9, 7, 8}, N: 1},          // 2: alone
		{Tokens: []int{9, 1, 2, 5}, N: 1},       // 3: item A again
		{Tokens: []int{9, 5, 5}, N: 1},          // 4: item B
		{Tokens: []int{9, 5, 6}, N: 1},          // 5: item B, one-token choices only
	}
	want := []stageRow{
		{tokens: []int{9, 1, 2}, keepKV: true, members: []int{1}, targets: []target{
			{pos: 2, tok: 3, seq: 0}, {pos: 2, tok: 4, seq: 1}, {pos: 2, tok: 5, seq: 3}}},
		{tokens: []int{9, 7}, targets: []target{{pos: 1, tok: 8, seq: 2}}},
		{tokens: []int{9, 5}, members: []int{}, targets: []target{{pos: 1, tok: 5, seq: 4}, {pos: 1, tok: 6, seq: 5}}},
	}
	assert.Equal(t, want, planRows(seqs, true))

	// Without a cache every sequence is a row of its own.
	rows := planRows(seqs, false)
	require.Len(t, rows, 6)
	assert.Equal(t, stageRow{tokens: []int{9, 1, 2, 4, 5}, targets: []target{
		{pos: 2, tok: 4, seq: 1}, {pos: 3, tok: 5, seq: 1}, {pos: 4, tok: 6, seq: 1}}}, rows[1])
}

func TestBatchRows(t *testing.T) {
	mk := func(lens ...int) []stageRow {
		var rows []stageRow
		for _, n := range lens {
			rows = append(rows, stageRow{tokens: make([]int, n)})
		}
		return rows
	}
	lens := func(batches [][]stageRow) [][]int {
		var out [][]int
		for _, b := range batches {
			var l []int
			for _, r := range b {
				l = append(l, len(r.tokens))
			}
			out = append(out, l)
		}
		return out
	}
	tests := []struct {
		name            string
		rows            []int
		budget, maxRows int
		leftPad         bool
		want            [][]int
	}{
		// Costs (callCost + rows × longest): 26 + 36 beats {10, 5} {5, 3, 2}'s 36 + 31.
		{"budget", []int{3, 10, 5, 5, 2}, 20, 64, true, [][]int{{10}, {5, 5, 3, 2}}},
		// 54 padded positions cost more than a second call (96 against 36 + 22)...
		{"padding dearer than a call", []int{2, 20, 2, 2}, 100, 64, true, [][]int{{20}, {2, 2, 2}}},
		// ...4 cost less (46 against 26 + 32).
		{"a call dearer than padding", []int{8, 10, 8}, 100, 64, true, [][]int{{10, 8, 8}}},
		{"max rows", []int{1, 1, 1, 1, 1}, 100, 2, true, [][]int{{1, 1}, {1, 1}, {1}}},
		{"a row over budget still runs", []int{50, 4}, 20, 64, true, [][]int{{50}, {4}}},
		{"no left padding", []int{3, 5, 5, 3, 2}, 100, 64, false, [][]int{{5, 5}, {3, 3}, {2}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, lens(batchRows(mk(tt.rows...), tt.budget, tt.maxRows, tt.leftPad)))
		})
	}
}

// TestWaves: stage-1 batches that keep caches share a wave while the
// caches fit waveCaches × contTokens and an even share per runner; a
// batch that keeps none is a wave of its own, and so is every batch of an
// export that cannot mask its past slot by slot.
func TestWaves(t *testing.T) {
	prefix := &sharedPrefix{tokens: make([]int, 10)}
	// batch is rows rows of width tokens (after a 10-token shared prefix
	// with prefixed), keeping their cache when keep.
	type batch struct {
		rows, width    int
		keep, prefixed bool
	}
	tests := []struct {
		name     string
		batches  []batch
		runners  int
		unpadded bool
		want     [][]int // batch indexes per wave
	}{
		// 100 + 80 fit the 200 cached tokens; 60 more would not.
		{"within the budget", []batch{{2, 50, true, false}, {2, 40, true, false}, {2, 30, true, false}}, 1, false, [][]int{{0, 1}, {2}}},
		{"no cache kept: alone", []batch{{2, 50, true, false}, {4, 20, false, false}, {2, 40, true, false}}, 1, false, [][]int{{0, 2}, {1}}},
		// 240 over two runners: 120 each.
		{"a share per runner", []batch{{2, 30, true, false}, {2, 30, true, false}, {2, 30, true, false}, {2, 30, true, false}}, 2, false, [][]int{{0, 1}, {2, 3}}},
		{"over the budget alone", []batch{{3, 100, true, false}, {1, 10, true, false}}, 1, false, [][]int{{0}, {1}}},
		// 2 × (10 + 45) = 110, then 2 × 45 = 90: 200 in all.
		{"shared prefixes count", []batch{{2, 45, true, true}, {2, 45, true, false}, {1, 1, true, false}}, 1, false, [][]int{{0, 1}, {2}}},
		{"unpadded", []batch{{2, 10, true, false}, {2, 10, true, false}}, 1, true, [][]int{{0}, {1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// One cached token is 8 bytes: contTokens is 100.
			spec := &ioSpec{hasMask: true, hasPos: true, unpadded: tt.unpadded, layers: 1, kvHeads: 1, headDim: 1, kvType: ort.TensorElementDataTypeFloat}
			m := &Model{spec: spec, runners: make([]*runner, tt.runners), contBytes: 800}
			require.Equal(t, 100, m.contTokens())
			var batches [][]stageRow
			index := map[*stageRow]int{}
			for i, b := range tt.batches {
				rows := make([]stageRow, b.rows)
				for r := range rows {
					rows[r] = stageRow{tokens: make([]int, b.width), keepKV: b.keep && r == 0}
					if b.prefixed {
						rows[r].shared = prefix
					}
				}
				index[&rows[0]] = i
				batches = append(batches, rows)
			}
			var got [][]int
			for _, w := range m.waves(batches) {
				var ids []int
				for _, b := range w {
					ids = append(ids, index[&b[0]])
				}
				got = append(got, ids)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestLongestPast: the longest context cache of a range, asked as
// cheapestCuts asks (one start, end growing) and in any other order.
func TestLongestPast(t *testing.T) {
	var rows []contRow
	for _, n := range []int{3, 9, 2, 5, 7} {
		rows = append(rows, contRow{kv: &kvCache{length: n}})
	}
	longest := longestPast(rows)
	for _, q := range []struct{ start, end, want int }{
		{3, 4, 5}, {3, 5, 7}, // one start, growing
		{0, 1, 3}, {0, 2, 9}, {0, 5, 9},
		{2, 4, 5}, {2, 3, 2}, // a shorter range from the same start
		{4, 5, 7},
	} {
		assert.Equal(t, q.want, longest(q.start, q.end), "rows [%d, %d)", q.start, q.end)
	}
}

// TestGenBatches: a decoding batch costs a prefill call and a call per
// new token after the first, so prompts' padding is weighed against
// callCost × the new tokens; the budget counts prompt and new tokens.
func TestGenBatches(t *testing.T) {
	tests := []struct {
		name    string
		prompts []int
		maxNew  int
		budget  int
		leftPad bool
		want    [][]int // prompt lengths per batch
	}{
		// 8 Featherweight-like prompts: 40 padded positions cost less than
		// 20 more calls (320).
		{"padding cheaper than calls", []int{50, 52, 55, 48, 59, 51, 45, 45}, 20, 8192, true, [][]int{{59, 55, 52, 51, 50, 48, 45, 45}}},
		// One long prompt pads 4 short ones by 4 × 190 = 760, over 320.
		{"padding dearer than calls", []int{10, 200, 10, 10, 10}, 20, 8192, true, [][]int{{200}, {10, 10, 10, 10}}},
		// One new token: one call's worth (16) decides, as for scoring.
		{"one new token", []int{20, 10, 10}, 1, 8192, true, [][]int{{20}, {10, 10}}}, // 36 + 36 against 76
		{"budget", []int{30, 30, 30}, 10, 90, true, [][]int{{30, 30}, {30}}},
		{"no left padding", []int{30, 31, 30}, 20, 8192, false, [][]int{{31}, {30, 30}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var seqs []local.GenSeq
			for _, n := range tt.prompts {
				seqs = append(seqs, local.GenSeq{Prompt: make([]int, n), MaxNew: tt.maxNew})
			}
			var got [][]int
			for _, b := range genBatches(seqs, tt.budget, tt.leftPad) {
				var l []int
				for _, i := range b {
					l = append(l, len(seqs[i].Prompt))
				}
				got = append(got, l)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestKVCacheGather(t *testing.T) {
	c := &kvCache{heads: 1, dim: 1, elem: 4, bufs: make([][]byte, 2)}
	c.resize(3, 2) // 3 rows × 2 positions × 4 bytes
	for i := range c.bufs {
		for r := 0; r < 3; r++ {
			f := asFloat32(c.bufs[i])
			f[2*r], f[2*r+1] = float32(10*i+r), float32(10*i+r)+0.5
		}
	}
	dst := &kvCache{}
	c.gather(dst, []int{2, 0, 2})
	assert.Equal(t, 3, dst.rows)
	assert.Equal(t, 2, dst.length)
	assert.Equal(t, []float32{2, 2.5, 0, 0.5, 2, 2.5}, asFloat32(dst.bufs[0]))
	assert.Equal(t, []float32{12, 12.5, 10, 10.5, 12, 12.5}, asFloat32(dst.bufs[1]))
}

func TestContCacheBytes(t *testing.T) {
	for _, tt := range []struct {
		weights int64
		want    int
	}{
		{52 << 20, 8 << 20},   // the perf fixture: the floor
		{536 << 20, 67 << 20}, // SmolLM2-135M in float32: an eighth
		{2 << 30, 128 << 20},  // Qwen2.5-0.5B in float32: the cap
		{0, 8 << 20},          // an empty file still gets the floor
	} {
		assert.Equal(t, tt.want, contCacheBytes(tt.weights), "%d bytes of weights", tt.weights)
	}
}
