// Package malformed is what the tests of a binary format's reader
// (safetensors, GGUF) share: cases of broken files, each with the error
// the reader gives, which the tests hold the reader to, seed its fuzz
// target with, and write into the malformed-input corpus
// (testdata/malformed/<kind>/<name><ext>). This package's own test feeds
// every corpus file through the harness's real loaders.
package malformed

import (
	"bytes"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/feather-eval/feather/internal/testenv"
)

// Case is one broken file: its name in the corpus, its bytes, and the
// error the reader gives after "<file>: ".
type Case struct {
	Name string
	Data []byte
	Want string
}

// CheckErrors reads each case with read (safetensors.Read, gguf.Read:
// a whole file of size bytes from r, named name in its errors), in a
// subtest of the case's name, as the file "x"+ext, and holds the error to
// "x<ext>: " and the case's Want. Two cases may not share a name: each
// names a corpus file.
func CheckErrors[F any](t *testing.T, ext string, cases []Case, read func(r io.ReaderAt, size int64, name string) (F, error)) {
	t.Helper()
	seen := map[string]bool{}
	file := "x" + ext
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			if seen[c.Name] {
				t.Fatalf("two cases named %s", c.Name)
			}
			seen[c.Name] = true
			_, err := read(bytes.NewReader(c.Data), int64(len(c.Data)), file)
			if want := file + ": " + c.Want; err == nil || err.Error() != want {
				t.Errorf("error\n got: %v\nwant: %s", err, want)
			}
		})
	}
}

// CheckFiles holds testdata/malformed/<kind>/ to the cases: its files
// named *ext are the cases' bytes, one <Name><ext> for each. With update
// it writes them first. A file that differs from its case, one no case
// has, and a case without its file fail the test, naming the fix.
func CheckFiles(t *testing.T, kind, ext string, cases []Case, update bool) {
	t.Helper()
	dir := filepath.Join(testenv.RepoRoot(), "testdata", "malformed", kind)
	rerun := "run go test -run " + t.Name() + " -update"
	want := map[string][]byte{}
	for _, c := range cases {
		want[c.Name+ext] = c.Data
	}
	if update {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, data := range want {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	files, err := filepath.Glob(filepath.Join(dir, "*"+ext))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		w, ok := want[filepath.Base(f)]
		switch {
		case !ok:
			t.Errorf("%s is no case; delete it or add the case", f)
		case !bytes.Equal(w, data):
			t.Errorf("%s differs from its case; %s", f, rerun)
		}
		delete(want, filepath.Base(f))
	}
	if len(want) > 0 {
		t.Errorf("%s lacks %s; %s", dir, strings.Join(slices.Sorted(maps.Keys(want)), ", "), rerun)
	}
}

// Fuzz feeds read (as CheckErrors) arbitrary bytes, seeded with valid,
// its first n bytes for each n in cuts, and every case, as the file
// "fuzz"+ext: nothing may panic, an error must start with the file's
// name, and check fails t unless a file read accepts holds together.
func Fuzz[F any](f *testing.F, ext string, valid []byte, cuts []int, cases []Case,
	read func(r io.ReaderAt, size int64, name string) (F, error), check func(t *testing.T, data []byte, file F)) {
	f.Add(valid)
	for _, n := range cuts {
		f.Add(valid[:n])
	}
	for _, c := range cases {
		f.Add(c.Data)
	}
	name := "fuzz" + ext
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := read(bytes.NewReader(data), int64(len(data)), name)
		switch {
		case err == nil:
			check(t, data, file)
		case !strings.HasPrefix(err.Error(), name+": "):
			t.Fatalf("error without the file name: %v", err)
		}
	})
}

// Sparse reads as Data followed by zero bytes up to Size, without holding
// them: a file too large to make, for tests of a reader's bounds.
type Sparse struct {
	Data []byte
	Size int64
}

// ReadAt reads len(p) bytes at off, fewer and io.EOF past Size.
func (s Sparse) ReadAt(p []byte, off int64) (int, error) {
	if off >= s.Size {
		return 0, io.EOF
	}
	n := len(p)
	if rest := s.Size - off; int64(n) > rest {
		n = int(rest)
	}
	clear(p[:n])
	if off < int64(len(s.Data)) {
		copy(p[:n], s.Data[off:])
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}
