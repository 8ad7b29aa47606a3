package onnx

import (
	"context"
	"errors"
	"fmt"

	"github.com/feather-eval/feather/harness/backends/catalog"
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

// Settings are an onnx entry's fields: a model folder (Path) or a
// built-in model (Builtin), and how to run it.
type Settings struct {
	Path     string `json:"path,omitempty"`
	Builtin  string `json:"builtin,omitempty"`
	Variant  string `json:"variant,omitempty"`
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
	switch {
	case s.Path == "" && s.Builtin == "":
		return errors.New(`an onnx model needs "path" (a Hugging Face ONNX export folder) or "builtin" (e.g. "smoke")`)
	case s.Path != "" && s.Builtin != "":
		return errors.New(`set "path" or "builtin", not both`)
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
	if !layout.ValidVariant(s.Variant) {
		return fmt.Errorf(`"variant" %q is not a file-name suffix such as quantized, fp16, int8, q4 or q4f16`, s.Variant)
	}
	return nil
}

// ResolvedPath is Path with ~ expanded and a relative path joined to the
// catalog's folder.
func (s *Settings) ResolvedPath() string { return catalog.ResolvePath(s.dir, s.Path) }

// Identity: the chat mode, the model (resolved folder or built-in), the
// file variant and the execution provider (CPU and CUDA kernels may round
// differently and flip a greedy token). Threads, sessions and device_id
// only change speed and placement.
func (s *Settings) Identity() []catalog.Field {
	path := ""
	if s.Path != "" {
		path = s.ResolvedPath()
	}
	return []catalog.Field{
		{Name: "chat", Value: s.Chat},
		{Name: "path", Value: path},
		{Name: "builtin", Value: s.Builtin},
		{Name: "variant", Value: s.Variant},
		{Name: "provider", Value: s.Provider},
	}
}

// Target is the folder as written, or the built-in model.
func (s *Settings) Target() string {
	if s.Builtin != "" {
		return "builtin:" + s.Builtin
	}
	return s.Path
}

// OpenEntry opens a catalog entry: a folder (path) or the built-in smoke
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
		Threads:  s.Threads,
		Sessions: s.Sessions,
		Provider: s.Provider,
		DeviceID: s.DeviceID,
		Chat:     s.Chat,
	}
	var m *Model
	var err error
	if s.Builtin != "" {
		m, err = openBuiltin(ctx, s.Builtin, opt)
	} else {
		m, err = Open(ctx, s.ResolvedPath(), opt)
	}
	if err != nil {
		return nil, err // not a typed nil inside lm.Model
	}
	return m, nil
}

// BuiltIn reports whether the settings name a built-in model.
func (s *Settings) BuiltIn() bool { return s.Builtin != "" }
