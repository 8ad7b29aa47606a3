package local

import (
	"os"

	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/backends/onnx/hub"
)

// SourceIdentity is the identity fields both local backends' settings
// begin with, in this order: the chat mode, the model's file or folder
// (path, resolved), the Hub repository (hf, ORG/NAME@REVISION as `feather
// pull` writes it; as written should the settings not have been
// validated) and the commit the Hugging Face cache resolved it to (the
// revision itself when it is a commit, "" before the first pull).
func SourceIdentity(chat, path, hf string) []catalog.Field {
	commit := ""
	if hf != "" {
		if ref, err := hub.ParseRef(hf); err == nil {
			env, _ := hub.FromEnv(os.Getenv) // a broken environment fails the open, with its message
			hf, commit = ref.String(), hub.CachedCommit(env.CacheDir, ref)
		}
	}
	return []catalog.Field{
		{Name: "chat", Value: chat},
		{Name: "path", Value: path},
		{Name: "hf", Value: hf},
		{Name: "commit", Value: commit},
	}
}
