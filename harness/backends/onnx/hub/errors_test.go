package hub

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/onnx/hub/fakehub"
	"github.com/feather-eval/feather/internal/redact"
)

func TestHubErrors(t *testing.T) {
	h, files, commit := tinyHub(t)
	commits := map[string]string{tinyRepo: commit}
	h.Add("org/gated", files, fakehub.Gated("hf_granted"))
	h.Token("hf_other") // valid, but its account has not accepted org/gated's conditions
	noWeights := map[string][]byte{"config.json": files["config.json"], "tokenizer.json": files["tokenizer.json"], "model.gguf": []byte("x")}
	commits["org/gguf-only"] = h.Add("org/gguf-only", noWeights)
	pickles := map[string][]byte{"config.json": files["config.json"], "tokenizer.json": files["tokenizer.json"], "pytorch_model.bin": []byte("PK\x03\x04")}
	commits["org/pickles"] = h.Add("org/pickles", pickles)
	tokenPath := "/home/u/.cache/huggingface/token"

	tests := []struct {
		name, ref, token, source, variant string
		want                              string
	}{
		{name: "gated without a token", ref: "org/gated",
			want: "org/gated is gated: the Hub answered 401 for chat_template.jinja without a token (the Hub says: Access to model org/gated is restricted. You must have access to it and be authenticated to access it. Please log in.). " +
				"Set HF_TOKEN to a token (" + h.URL + "/settings/tokens) of an account that has accepted its conditions at " + h.URL + "/org/gated, or log in with the hf CLI, which writes " + tokenPath},
		{name: "gated, token without access", ref: "org/gated", token: "hf_other", source: "HF_TOKEN",
			want: "org/gated is gated and the token from HF_TOKEN has no access to it: the Hub answered 403 for chat_template.jinja (the Hub says: Access to model org/gated is restricted and you are not in the authorized list. Visit " + h.URL + "/org/gated to ask for access.); " +
				"accept its conditions at " + h.URL + "/org/gated with that token's account, or set HF_TOKEN to another account's token"},
		{name: "invalid token from the token file", ref: tinyRepo, token: "hf_revoked", source: tokenPath,
			want: "the Hub refused the token from " + tokenPath + " with 401 for the model info (the Hub says: Invalid credentials in Authorization header): it is invalid or expired; set HF_TOKEN to a valid token (" + h.URL + "/settings/tokens)"},
		{name: "unknown repository", ref: "org/nope",
			want: "repository org/nope not found at " + h.URL + " (HF_ENDPOINT) (the Hub says: Repository Not Found for url: " + h.URL + "/api/models/org/nope/revision/main.); check ORG/NAME, and if it is private, set HF_TOKEN to a token that can read it"},
		{name: "unknown repository with a token", ref: "org/nope", token: "hf_other", source: "HF_TOKEN",
			want: "repository org/nope not found at " + h.URL + " (HF_ENDPOINT) (the Hub says: Repository Not Found for url: " + h.URL + "/api/models/org/nope/revision/main.); check ORG/NAME, and if it is private, the token from HF_TOKEN cannot read it"},
		{name: "unknown revision", ref: "org/tiny@v9",
			want: `repository org/tiny has no revision "v9" (the Hub says: Invalid rev id: v9); name a branch, tag or commit it has (see ` + h.URL + "/org/tiny/tree/main)"},
		{name: "unknown commit", ref: "org/tiny@0123456789abcdef0123456789abcdef01234567",
			want: `repository org/tiny has no revision "0123456789abcdef0123456789abcdef01234567" (the Hub says: Invalid rev id: 0123456789abcdef0123456789abcdef01234567); name a branch, tag or commit it has (see ` + h.URL + "/org/tiny/tree/main)"},
		{name: "no ONNX file nor checkpoint", ref: "org/gguf-only",
			want: "org/gguf-only@main (commit COMMIT): no ONNX decoder file (looked for model.onnx, onnx/model.onnx, decoder_model_merged.onnx, onnx/decoder_model_merged.onnx) and no safetensors checkpoint (model.safetensors or model.safetensors.index.json); pick a repository that has either, such as one from onnx-community or the model's own"},
		{name: "pickles only", ref: "org/pickles",
			want: "org/pickles@main (commit COMMIT): the repository has its weights only as PyTorch pickles (pytorch_model.bin), and feather never loads pickles: unpickling an untrusted file can run any code. " +
				"Pull a revision that has model.safetensors (the Hub's safetensors conversion bot opens one as a pull request: ORG/NAME@refs/pr/N), or one with an onnx/ folder"},
		{name: "no such variant", ref: tinyRepo, variant: "int8",
			want: "org/tiny@main (commit COMMIT): no int8 variant (looked for model_int8.onnx, onnx/model_int8.onnx, decoder_model_merged_int8.onnx, onnx/decoder_model_merged_int8.onnx); " +
				"it has onnx/model.onnx (fp32), onnx/model_fp16.onnx (fp16), onnx/model_q4.onnx (q4), onnx/model_quantized.onnx (quantized). Choose one (--variant, or a catalog entry's \"variant\") of: fp16, fp32, q4, quantized"},
		{name: "bad variant", ref: tinyRepo, variant: "Q4",
			want: `variant "Q4" is not a file-name suffix such as quantized, fp16, int8, q4 or q4f16 (or fp32 for the unsuffixed file)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := newClient(t, h)
			c.Env.Token, c.Env.TokenSource = tt.token, tt.source
			_, err := pull(t, c, tt.ref, Options{Variant: tt.variant})
			require.Error(t, err)
			r, _ := ParseRef(tt.ref)
			assert.Equal(t, strings.ReplaceAll(tt.want, "COMMIT", commits[r.Repo]), err.Error())
		})
	}
}

func TestGatedWithToken(t *testing.T) {
	h := fakehub.New(t)
	h.Add("org/gated", tinyFiles(t), fakehub.Gated("hf_granted"))
	c, _ := newClient(t, h)
	c.Env.Token, c.Env.TokenSource = "hf_granted", "HF_TOKEN"
	res, err := pull(t, c, "org/gated", Options{})
	require.NoError(t, err)
	assert.Equal(t, tinyWant, paths(res))
}

func TestExplainScrubsTheToken(t *testing.T) {
	c := &Client{Env: Env{Endpoint: "https://hub.example", Token: "hf_secret", TokenSource: "HF_TOKEN"}}
	se := &statusError{Status: http.StatusForbidden, URL: "https://hub.example/api/models/org/x/revision/main", Message: "token hf_secret has no access"}
	err := c.explain(se, Ref{Repo: "org/x", Revision: "main"}, "")
	assert.NotContains(t, err.Error(), "hf_secret")
	assert.Contains(t, err.Error(), "(the Hub says: token "+redact.Mark+" has no access)")
}
