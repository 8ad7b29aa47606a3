package hub

import (
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// A GGUF file carries its weights, tokenizer and chat template, so a pull
// for the llamacpp backend fetches that one file: Options.File is a glob
// matched against the repository's .gguf files.

// CheckGGUFGlob refuses a glob that is not one (path.Match's syntax).
func CheckGGUFGlob(glob string) error {
	if strings.TrimSpace(glob) == "" {
		return fmt.Errorf("the GGUF file glob is empty; name the file, or a pattern such as \"*Q8_0.gguf\"")
	}
	if _, err := path.Match(glob, ""); err != nil {
		return fmt.Errorf("%q is not a glob (%v); use * and ? as in \"*Q8_0.gguf\"", glob, err)
	}
	return nil
}

// splitPart matches the parts of a GGUF file split by llama.cpp's
// gguf-split, name-00001-of-00003.gguf.
var splitPart = regexp.MustCompile(`-[0-9]{5}-of-[0-9]{5}\.gguf$`)

// isGGUF reports whether a repository path names a GGUF file.
func isGGUF(p string) bool { return strings.HasSuffix(strings.ToLower(p), ".gguf") }

// selectGGUF picks the one .gguf file glob matches, by its path or its
// name, or says which files there are to choose from.
func selectGGUF(files []File, glob string) ([]File, error) {
	if err := CheckGGUFGlob(glob); err != nil {
		return nil, err
	}
	var all []string
	var matched []File
	for _, f := range files {
		if !isGGUF(f.Path) {
			continue
		}
		all = append(all, f.Path)
		full, _ := path.Match(glob, f.Path)
		base, _ := path.Match(glob, path.Base(f.Path))
		if (full || base) && !slices.ContainsFunc(matched, func(m File) bool { return m.Path == f.Path }) {
			matched = append(matched, f)
		}
	}
	slices.Sort(all)
	switch {
	case len(all) == 0:
		return nil, fmt.Errorf("no .gguf file; the llamacpp backend runs GGUF files, so pick a repository that publishes them (often named …-GGUF)")
	case len(matched) == 0:
		return nil, fmt.Errorf("no .gguf file matches %q; it has %s", glob, strings.Join(all, ", "))
	case len(matched) > 1:
		var names []string
		for _, f := range matched {
			names = append(names, f.Path)
		}
		slices.Sort(names)
		return nil, fmt.Errorf("%q matches %d .gguf files (%s); make it match one, e.g. %q", glob, len(names), strings.Join(names, ", "), "*"+path.Base(names[0]))
	case splitPart.MatchString(matched[0].Path):
		return nil, fmt.Errorf("%s is one part of a split GGUF file, which feather does not load; pick a quantization published as a single file", matched[0].Path)
	}
	return matched, nil
}

// pullCommandFor is the `feather pull` command line that fetches what
// opt selects of ref.
func pullCommandFor(ref Ref, opt Options) string {
	if opt.File == "" {
		return PullCommand(ref, opt.Variant)
	}
	return PullCommand(ref, "") + " --file '" + opt.File + "'"
}

// Path is the pulled GGUF file in the snapshot, for a pull with
// Options.File; otherwise the snapshot folder.
func (r *Result) Path() string {
	if len(r.Files) == 1 && isGGUF(r.Files[0].Path) {
		return filepath.Join(r.Snapshot, filepath.FromSlash(r.Files[0].Path))
	}
	return r.Snapshot
}

// selectFor picks the files opt asks for: one GGUF file (Options.File)
// or what the onnx backend opens.
func selectFor(files []File, opt Options) ([]File, error) {
	if opt.File != "" {
		return selectGGUF(files, opt.File)
	}
	return selectFiles(files, opt.Variant)
}

// checkOptions refuses options that contradict each other or the catalog.
func checkOptions(opt Options) error {
	if opt.File != "" && opt.Variant != "" {
		return fmt.Errorf("a variant picks an ONNX file and a file glob a GGUF file; give one of them, not both")
	}
	return CheckVariant(opt.Variant)
}

// backendFor names the backend a pull with opt serves, for messages.
func backendFor(opt Options) string {
	if opt.File != "" {
		return "llamacpp"
	}
	return "onnx"
}
