package ckpt_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/checkpoint"
	"github.com/feather-eval/feather/harness/backends/onnx"
	"github.com/feather-eval/feather/harness/backends/onnx/ckpt/ckpttest"
	"github.com/feather-eval/feather/harness/backends/onnx/decoder"
	"github.com/feather-eval/feather/harness/backends/safetensors"
)

// small is a two-layer llama checkpoint in one file; sharded is the same
// cut into shards of at most 100 kB.
var (
	small = ckpttest.Fixture{Arch: checkpoint.Llama, Seed: 7,
		Shape: checkpoint.Shape{Vocab: 320, Hidden: 64, Layers: 2, Heads: 4, KVHeads: 2, MaxPositions: 256}}
	sharded = func() ckpttest.Fixture { f := small; f.MaxShardBytes = 100 << 10; return f }()
)

// editConfig rewrites dir's config.json through edit.
func editConfig(t *testing.T, dir string, edit func(map[string]any)) {
	t.Helper()
	path := filepath.Join(dir, "config.json")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var cfg map[string]any
	require.NoError(t, json.Unmarshal(data, &cfg))
	edit(cfg)
	data, err = json.Marshal(cfg)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, data, 0o644))
}

// shardOf is the file holding tensor in dir's checkpoint.
func shardOf(t *testing.T, dir, tensor string) string {
	t.Helper()
	c, err := safetensors.OpenDir(dir)
	require.NoError(t, err)
	return c.Tensor(tensor).File
}

// rewrite writes file again with edit's tensors.
func rewrite(t *testing.T, file string, edit func([]safetensors.WriteTensor) []safetensors.WriteTensor) {
	t.Helper()
	f, err := safetensors.Open(file)
	require.NoError(t, err)
	r, err := os.Open(file)
	require.NoError(t, err)
	defer r.Close()
	var ts []safetensors.WriteTensor
	for _, tt := range f.Tensors {
		data, err := tt.Float32s(r)
		require.NoError(t, err)
		ts = append(ts, safetensors.WriteTensor{Name: tt.Name, DType: tt.DType, Shape: tt.Shape, Data: data})
	}
	require.NoError(t, safetensors.WriteFile(file, edit(ts), safetensors.PyTorchMetadata))
}

// patch replaces old by new (of the same length) in file's bytes.
func patch(t *testing.T, file, old, new string) {
	t.Helper()
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	require.Equal(t, len(old), len(new))
	i := bytes.Index(data, []byte(old))
	require.GreaterOrEqual(t, i, 0, "%s has no %q", file, old)
	copy(data[i:], new)
	require.NoError(t, os.WriteFile(file, data, 0o644))
}

// supported is the list of model types the decoder's messages give.
func supported() string {
	var names []string
	for _, a := range decoder.Archs {
		names = append(names, a.ModelType())
	}
	return strings.Join(names, ", ")
}

const q = "model.layers.1.self_attn.q_proj.weight"

// A broken checkpoint folder is refused with what is wrong and where:
// the folder, the file, the tensor, and what to do. Nothing crashes.
func TestBrokenCheckpoints(t *testing.T) {
	const prefix = "model folder DIR (a Hugging Face checkpoint): "
	for _, tt := range []struct {
		name    string
		fixture ckpttest.Fixture
		// break_ breaks the folder dir and returns the file it names.
		break_ func(t *testing.T, dir string) string
		// want is the error with DIR for the folder, FILE for break_'s
		// file and SIZE for its size.
		want string
	}{
		{"unknown model type", small, func(t *testing.T, dir string) string {
			editConfig(t, dir, func(c map[string]any) { c["model_type"] = "mamba"; c["architectures"] = []string{"MambaForCausalLM"} })
			return ""
		}, prefix + `DIR: config.json: model_type "mamba" is not an architecture feather builds; it builds ` + supported() +
			". Export the model to ONNX instead: optimum-cli export onnx --model <id> --task text-generation-with-past <dir>"},
		{"missing tensor", small, func(t *testing.T, dir string) string {
			file := filepath.Join(dir, safetensors.SingleFile)
			rewrite(t, file, func(ts []safetensors.WriteTensor) []safetensors.WriteTensor {
				var out []safetensors.WriteTensor
				for _, x := range ts {
					if x.Name != q {
						out = append(out, x)
					}
				}
				return out
			})
			return file
		}, prefix + "FILE has no tensor " + q + ", which a llama model with this config.json has; the weights do not belong to the config, or the checkpoint is incomplete"},
		{"untied head missing", small, func(t *testing.T, dir string) string {
			file := filepath.Join(dir, safetensors.SingleFile)
			rewrite(t, file, func(ts []safetensors.WriteTensor) []safetensors.WriteTensor {
				var out []safetensors.WriteTensor
				for _, x := range ts {
					if x.Name != "lm_head.weight" {
						out = append(out, x)
					}
				}
				return out
			})
			return file
		}, prefix + "FILE has no tensor lm_head.weight, which a llama model with this config.json has; the weights do not belong to the config, or the checkpoint is incomplete"},
		{"wrong shape", small, func(t *testing.T, dir string) string {
			file := filepath.Join(dir, safetensors.SingleFile)
			rewrite(t, file, func(ts []safetensors.WriteTensor) []safetensors.WriteTensor {
				for i := range ts {
					if ts[i].Name == q {
						ts[i].Shape = []int64{32, 128}
					}
				}
				return ts
			})
			return file
		}, prefix + "FILE: tensor " + q + " has shape [32 128], but config.json makes it [64 64]; the weights do not belong to the config"},
		{"vocabulary of another model", small, func(t *testing.T, dir string) string {
			editConfig(t, dir, func(c map[string]any) { c["vocab_size"] = 640 })
			return filepath.Join(dir, safetensors.SingleFile)
		}, prefix + "FILE: tensor model.embed_tokens.weight has shape [320 64], but config.json makes it [640 64]; the weights do not belong to the config"},
		{"integer weight", small, func(t *testing.T, dir string) string {
			file := filepath.Join(dir, safetensors.SingleFile)
			patch(t, file, `"`+q+`":{"dtype":"F32"`, `"`+q+`":{"dtype":"I32"`)
			return file
		}, prefix + "FILE: tensor " + q + " is I32; weights must be F32, F16 or BF16"},
		{"truncated file", small, func(t *testing.T, dir string) string {
			file := filepath.Join(dir, safetensors.SingleFile)
			st, err := os.Stat(file)
			require.NoError(t, err)
			require.NoError(t, os.Truncate(file, st.Size()-100))
			return file
		}, prefix + "FILE: truncated: tensor model.norm.weight ends at data byte 533760, but the file holds 533660 bytes of data; the file is incomplete: download or save it again"},
		{"header length past the end", small, func(t *testing.T, dir string) string {
			file := filepath.Join(dir, safetensors.SingleFile)
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			binary.LittleEndian.PutUint64(data, uint64(len(data)))
			require.NoError(t, os.WriteFile(file, data, 0o644))
			return file
		}, prefix + "FILE: truncated: the header length is SIZE bytes, past the end of the SIZE-byte file; the file is incomplete: download or save it again"},
		{"unknown dtype", small, func(t *testing.T, dir string) string {
			file := filepath.Join(dir, safetensors.SingleFile)
			patch(t, file, `"`+q+`":{"dtype":"F32"`, `"`+q+`":{"dtype":"F31"`)
			return file
		}, prefix + "FILE: tensor " + q + `: unknown dtype "F31" (the format's are BF16, BOOL, F16, F32, F64, F8_E4M3, F8_E5M2, F8_E8M0, I16, I32, I64, I8, U16, U32, U64, U8)`},
		{"shard missing", sharded, func(t *testing.T, dir string) string {
			file := shardOf(t, dir, q)
			require.NoError(t, os.Remove(file))
			return filepath.Base(file)
		}, prefix + "DIR/model.safetensors.index.json names the shard FILE (tensor model.layers.1.mlp.up_proj.weight is in it), which is not in DIR; download it too"},
		{"tensor not in its shard", sharded, func(t *testing.T, dir string) string {
			file := shardOf(t, dir, q)
			rewrite(t, file, func(ts []safetensors.WriteTensor) []safetensors.WriteTensor {
				var out []safetensors.WriteTensor
				for _, x := range ts {
					if x.Name != q {
						out = append(out, x)
					}
				}
				return out
			})
			return file
		}, prefix + "FILE: tensor " + q + " is not in " + "BASE, where model.safetensors.index.json says it is; download the checkpoint again"},
		{"config not JSON", small, func(t *testing.T, dir string) string {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "config.json"), []byte("{"), 0o644))
			return ""
		}, prefix + "DIR/config.json is not a JSON object (unexpected end of JSON input); download it again"},
		{"pickles only", small, func(t *testing.T, dir string) string {
			require.NoError(t, os.Remove(filepath.Join(dir, safetensors.SingleFile)))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "pytorch_model.bin"), []byte("PK\x03\x04"), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "training_args.bin"), []byte("PK\x03\x04"), 0o644))
			return ""
		}, "DIR holds its weights only as PyTorch pickles (pytorch_model.bin) and no model.safetensors; feather never loads pickles, since unpickling an untrusted file can run any code. " +
			"Use a revision of the repository that has model.safetensors (the Hub's safetensors conversion bot opens one as a pull request, refs/pr/N: name it as ORG/NAME@refs/pr/N), " +
			`or, if you trust the files, convert them with transformers: AutoModelForCausalLM.from_pretrained("DIR").save_pretrained("DIR-safetensors", safe_serialization=True)`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "model")
			_, err := tt.fixture.Write(dir)
			require.NoError(t, err)
			file := tt.break_(t, dir)
			_, err = onnx.Open(context.Background(), dir, onnx.Options{})
			require.Error(t, err)
			want := strings.ReplaceAll(tt.want, "BASE", filepath.Base(file))
			want = strings.ReplaceAll(want, "FILE", file)
			if st, err := os.Stat(file); err == nil {
				want = strings.ReplaceAll(want, "SIZE", strconv.FormatInt(st.Size(), 10))
			}
			assert.Equal(t, strings.ReplaceAll(want, "DIR", dir), err.Error())
		})
	}
}
