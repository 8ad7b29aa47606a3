package llamacpp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/backends/local"
	"github.com/feather-eval/feather/harness/backends/onnx/hub"
	"github.com/feather-eval/feather/harness/lm"
)

// Name is the backend's catalog name.
const Name = "llamacpp"

func init() {
	catalog.Register(Name, catalog.Backend{
		Settings: func() catalog.Settings { return new(Settings) },
		Defaults: []string{"max_tokens"},
		Open:     OpenEntry,
	})
}

// Settings are a llamacpp entry's fields: a GGUF file (Path) or a file of
// a Hugging Face Hub repository (HF and File), and how to run it.
type Settings struct {
	Path string `json:"path,omitempty"`
	// HF is ORG/NAME[@REVISION], as `feather pull` takes it; File is a
	// glob naming one GGUF file in it, e.g. "*Q8_0.gguf".
	HF   string `json:"hf,omitempty"`
	File string `json:"file,omitempty"`
	// NCtx is the longest sequence in tokens (0: the model's training
	// context, at most DefaultContext).
	NCtx    int    `json:"n_ctx,omitempty"`
	Threads int    `json:"threads,omitempty"`
	Batch   int    `json:"batch,omitempty"`
	Chat    string `json:"chat,omitempty"` // yes, no or auto (default)

	dir string // the catalog's folder, which a relative Path is in
}

// Validate checks the settings and keeps the catalog's folder.
func (s *Settings) Validate(e catalog.Entry) error {
	s.dir = e.Dir
	switch {
	case s.Path == "" && s.HF == "":
		return errors.New(`a llamacpp model needs "path" (a .gguf file) or "hf" (a Hub repository, ORG/NAME[@REVISION]) with "file" (a glob naming its GGUF file, e.g. "*Q8_0.gguf")`)
	case s.Path != "" && s.HF != "":
		return errors.New(`set one of "path" and "hf", not both`)
	case s.Path != "" && s.File != "":
		return fmt.Errorf(`"file" picks a file of the "hf" repository; with "path", name the .gguf file itself (e.g. "path": "models/model-%s")`, strings.TrimPrefix(s.File, "*"))
	case s.HF != "" && s.File == "":
		return fmt.Errorf(`"hf" needs "file", a glob naming one GGUF file of %s, e.g. "*Q8_0.gguf"`, s.HF)
	case s.NCtx < 0:
		return fmt.Errorf(`"n_ctx" must be 0 (the model's training context, at most %d) or more, not %d`, DefaultContext, s.NCtx)
	case s.Threads < 0:
		return fmt.Errorf(`"threads" must be 0 (all cores) or more, not %d`, s.Threads)
	case s.Batch < 0:
		return fmt.Errorf(`"batch" must be 0 (%d tokens) or more, not %d`, DefaultBatch, s.Batch)
	}
	if s.HF != "" {
		if _, err := hub.ParseRef(s.HF); err != nil {
			return fmt.Errorf(`"hf": %w`, err)
		}
		if err := hub.CheckGGUFGlob(s.File); err != nil {
			return fmt.Errorf(`"file": %w`, err)
		}
	}
	if err := catalog.CheckMaxTokens(e); err != nil {
		return err
	}
	return catalog.OneOf("chat", s.Chat, "", "yes", "no", "auto")
}

// ResolvedPath is Path with ~ expanded and a relative path joined to the
// catalog's folder.
func (s *Settings) ResolvedPath() string { return catalog.ResolvePath(s.dir, s.Path) }

// Identity: the chat mode, the file (resolved path, or Hub repository,
// the commit it resolved to when the cache knows it, and the glob) and
// the context length, which decides truncation. Threads and batch only
// change speed.
func (s *Settings) Identity() []catalog.Field {
	return append(local.SourceIdentity(s.Chat, s.ResolvedPath(), s.HF),
		catalog.Field{Name: "file", Value: s.File},
		catalog.Field{Name: "n_ctx", Value: s.NCtx})
}

// Target is the file as written, or the repository and glob.
func (s *Settings) Target() string {
	if s.HF != "" {
		return "hf:" + s.HF + ":" + s.File
	}
	return s.Path
}

// OpenEntry opens a catalog entry: a GGUF file (path), or one file of a
// Hub repository (hf and file), pulled into the Hugging Face cache on
// first use.
func OpenEntry(ctx context.Context, e catalog.Entry) (lm.Model, error) {
	s, ok := e.Settings.(*Settings)
	if !ok {
		return nil, errors.New("the entry has no llamacpp settings")
	}
	opt := Options{Key: e.Key, Name: e.Name, Context: s.NCtx, Threads: s.Threads, Batch: s.Batch, Chat: s.Chat}
	path := s.ResolvedPath()
	if s.HF != "" {
		var err error
		if path, err = pullFile(ctx, s.HF, s.File); err != nil {
			return nil, err
		}
		if opt.Name == "" {
			opt.Name = s.HF + " " + filepath.Base(path)
		}
	}
	m, err := Open(ctx, path, opt)
	if err != nil {
		return nil, err // not a typed nil inside lm.Model
	}
	return m, nil
}

// pullFile returns the path of the GGUF file glob names in repo's
// snapshot in the Hugging Face cache, pulling it first when the cache
// lacks it, with progress on stderr.
func pullFile(ctx context.Context, repo, glob string) (string, error) {
	ref, err := hub.ParseRef(repo)
	if err != nil {
		return "", fmt.Errorf(`"hf": %w`, err)
	}
	c, err := hub.NewClient(os.Getenv, os.Stderr)
	if err != nil {
		return "", err
	}
	res, err := c.Ensure(ctx, ref, hub.Options{File: glob})
	if err != nil {
		return "", fmt.Errorf("getting %s from %s: %w", glob, ref, err)
	}
	return res.Path(), nil
}
