package onnx

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/backends/local"
	"github.com/feather-eval/feather/harness/backends/onnx/hub"
	"github.com/feather-eval/feather/harness/backends/onnx/layout"
	"github.com/feather-eval/feather/harness/lm"
)

// Name is the backend's catalog name.
const Name = "onnx"

func init() {
	catalog.Register(Name, catalog.Backend{
		Settings: func() catalog.Settings { return new(Settings) },
		Defaults: []string{"max_tokens"},
		Open:     OpenEntry,
	})
}

// Settings are an onnx entry's fields: a model folder (Path), a Hugging
// Face Hub repository (HF) or a built-in model (Builtin), and how to run it.
type Settings struct {
	Path string `json:"path,omitempty"`
	// HF is ORG/NAME[@REVISION], as `feather pull` takes it: the
	// repository's snapshot in the Hugging Face cache, pulled on first use.
	HF string `json:"hf,omitempty"`
	// Revision is refused with a hint: the revision goes inside HF.
	Revision string `json:"revision,omitempty"`
	Builtin  string `json:"builtin,omitempty"`
	Variant  string `json:"variant,omitempty"`
	// DType is what a Hugging Face checkpoint's weights are computed in:
	// float32 (the default), float16, or int8 (8-bit linear weights).
	DType    string `json:"dtype,omitempty"`
	Threads  int    `json:"threads,omitempty"`
	Sessions int    `json:"sessions,omitempty"` // batches run in parallel
	Chat     string `json:"chat,omitempty"`     // yes, no or auto (default)
	Provider string `json:"provider,omitempty"`
	DeviceID int    `json:"device_id,omitempty"`

	dir string // the catalog's folder, which a relative Path is in
}

// Validate checks the settings and keeps the catalog's folder.
func (s *Settings) Validate(e catalog.Entry) error {
	s.dir = e.Dir
	if err := s.validateModel(); err != nil {
		return err
	}
	switch {
	case s.Threads < 0:
		return fmt.Errorf(`"threads" must be 0 (all cores) or more, not %d`, s.Threads)
	case s.DeviceID < 0:
		return fmt.Errorf(`"device_id" must be 0 or more, not %d`, s.DeviceID)
	case s.Sessions < 0:
		return fmt.Errorf(`"sessions" must be 0 (one) or more, not %d`, s.Sessions)
	}
	if err := catalog.CheckMaxTokens(e); err != nil {
		return err
	}
	if err := catalog.OneOf("chat", s.Chat, "", "yes", "no", "auto"); err != nil {
		return err
	}
	if err := catalog.OneOf("provider", s.Provider, "", "cpu", "cuda"); err != nil {
		return err
	}
	if err := catalog.OneOf("dtype", s.DType, "", DTypeFloat32, DTypeFloat16, DTypeInt8); err != nil {
		return err
	}
	if !layout.ValidVariant(s.Variant) {
		return fmt.Errorf(`"variant" %q is not a file-name suffix such as quantized, fp16, int8, q4 or q4f16`, s.Variant)
	}
	return nil
}

// validateModel checks that exactly one of path, hf and builtin names the
// model, and parses hf as `feather pull` parses its argument.
func (s *Settings) validateModel() error {
	var set []string
	for _, f := range []struct{ name, value string }{{"path", s.Path}, {"hf", s.HF}, {"builtin", s.Builtin}} {
		if f.value != "" {
			set = append(set, fmt.Sprintf("%q", f.name))
		}
	}
	switch {
	case len(set) == 0:
		return errors.New(`an onnx model needs "path" (a Hugging Face ONNX export folder), "hf" (a Hub repository, ORG/NAME[@REVISION]) or "builtin" (e.g. "smoke")`)
	case len(set) > 1:
		return fmt.Errorf(`set one of "path", "hf" and "builtin", not %s`, strings.Join(set, " and "))
	case s.Revision != "":
		return fmt.Errorf(`"revision" is not a field of its own: write it into "hf" as ORG/NAME@REVISION (a branch, tag or commit), e.g. "hf": "%s@%s"`, orExample(s.HF), s.Revision)
	case s.HF == "":
		return nil
	}
	if _, err := hub.ParseRef(s.HF); err != nil {
		return fmt.Errorf(`"hf": %w`, err)
	}
	return nil
}

// orExample is repo, or a placeholder when there is none.
func orExample(repo string) string {
	if repo == "" {
		return "ORG/NAME"
	}
	return repo
}

// ResolvedPath is Path with ~ expanded and a relative path joined to the
// catalog's folder.
func (s *Settings) ResolvedPath() string { return catalog.ResolvePath(s.dir, s.Path) }

// engineRevision changes when a fix to the engine changes what a model
// answers, so that answers the old engine gave are not served from a
// response cache. 2: models with sliding-window layers (Gemma 3) are no
// longer batched with padding inside rows, which moved their answers.
const engineRevision = 2

// Identity: the chat mode, the model (resolved folder, Hub repository
// and revision with the commit it resolved to when the cache knows it, or
// built-in), the file variant, a checkpoint's dtype, the execution provider (CPU and CUDA
// kernels may round differently and flip a greedy token) and the engine's
// revision. Threads, sessions and device_id only change speed and placement.
func (s *Settings) Identity() []catalog.Field {
	return append(local.SourceIdentity(s.Chat, s.ResolvedPath(), s.HF),
		catalog.Field{Name: "builtin", Value: s.Builtin},
		catalog.Field{Name: "variant", Value: s.Variant},
		catalog.Field{Name: "dtype", Value: s.DType},
		catalog.Field{Name: "provider", Value: s.Provider},
		catalog.Field{Name: "engine", Value: engineRevision})
}

// openHub opens the snapshot of repo (ORG/NAME[@REVISION]) in the Hugging Face cache, pulling what
// the cache lacks first, with progress on stderr.
func openHub(ctx context.Context, repo string, opt Options) (*Model, error) {
	ref, err := hub.ParseRef(repo)
	if err != nil {
		return nil, fmt.Errorf(`"hf": %w`, err)
	}
	c, err := hub.NewClient(os.Getenv, os.Stderr)
	if err != nil {
		return nil, err
	}
	res, err := c.Ensure(ctx, ref, hub.Options{Variant: opt.Variant})
	if err != nil {
		return nil, fmt.Errorf("getting %s: %w", ref, err)
	}
	if opt.Name == "" {
		opt.Name = ref.Repo // not the snapshot folder's name, a commit hash
	}
	return Open(ctx, res.Snapshot, opt)
}

// Target is the folder as written, the Hub repository, or the built-in
// model.
func (s *Settings) Target() string {
	switch {
	case s.Builtin != "":
		return "builtin:" + s.Builtin
	case s.HF != "":
		return "hf:" + s.HF
	}
	return s.Path
}

// OpenEntry opens a catalog entry: a folder (path), a Hub repository (hf),
// pulled into the Hugging Face cache on first use, or the built-in smoke
// model (builtin "smoke"), which is built into the cache on first use.
func OpenEntry(ctx context.Context, e catalog.Entry) (lm.Model, error) {
	s, ok := e.Settings.(*Settings)
	if !ok {
		return nil, errors.New("the entry has no onnx settings")
	}
	opt := Options{
		Key:      e.Key,
		Name:     e.Name,
		Variant:  s.Variant,
		DType:    s.DType,
		Threads:  s.Threads,
		Sessions: s.Sessions,
		Provider: s.Provider,
		DeviceID: s.DeviceID,
		Chat:     s.Chat,
	}
	var m *Model
	var err error
	switch {
	case s.Builtin != "":
		m, err = openBuiltin(ctx, s.Builtin, opt)
	case s.HF != "":
		m, err = openHub(ctx, s.HF, opt)
	default:
		m, err = Open(ctx, s.ResolvedPath(), opt)
	}
	if err != nil {
		return nil, err // not a typed nil inside lm.Model
	}
	return m, nil
}

// BuiltIn reports whether the settings name a built-in model.
func (s *Settings) BuiltIn() bool { return s.Builtin != "" }
