package microbench

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"unicode"
)

// handSpecs are the tasks that may have a hand-written <task>.jsonl.
func handSpecs() []taskSpec {
	var out []taskSpec
	for _, s := range specs {
		if !s.IsBPB() {
			out = append(out, s)
		}
	}
	return out
}

// FuzzParseJSONL feeds arbitrary bytes to the hand-written item reader as
// the file of one task (chosen by the first argument), seeded with the
// shipped files whole and line by line. Reading must never panic; each
// problem names the file and a line of it; every item read comes from the
// line its Source names; validation of what was read never panics, names
// the task, and passes only items that keep the loader's rules.
func FuzzParseJSONL(f *testing.F) {
	hand := handSpecs()
	index := map[string]uint8{}
	for i, s := range hand {
		index[s.ID] = uint8(i)
	}
	names, err := fs.Glob(dataDir(f), "*.jsonl")
	if err != nil || len(names) == 0 {
		f.Fatalf("no hand-written files in testdata/microbench: %v", err)
	}
	for _, name := range names {
		data, err := fs.ReadFile(dataDir(f), name)
		if err != nil {
			f.Fatal(err)
		}
		task := index[strings.TrimSuffix(name, ".jsonl")]
		f.Add(task, data)
		for _, line := range bytes.Split(data, []byte("\n")) {
			f.Add(task, line)
		}
	}
	f.Add(index["story"], []byte(`{"id":"story-h01","level":1,"group":"p","context":"c","choices":["a","b"],"gold":0}`+"\n"+
		`{"id":"story-h02","level":1,"group":"p","context":"d","choices":["a","b"],"gold":1}`))
	f.Add(index["science"], []byte(`{"id":"x","level":1,"context":"c","choices":["a",1],"gold":0}`+"\n"+`{"gold":1.5} {}`+"\n\n"+`{"id":"Y","choices":" a"}`))

	f.Fuzz(func(t *testing.T, task uint8, data []byte) {
		s := hand[int(task)%len(hand)]
		name := s.ID + ".jsonl"
		items, err := parseJSONL(fstest.MapFS{name: &fstest.MapFile{Data: data}}, name)
		lines := bytes.Split(data, []byte("\n"))
		if err != nil {
			checkLineErrors(t, name, len(lines), err, "the file has no items", "bufio.Scanner")
		}
		prev := 0
		for _, it := range items {
			n, ok := strings.CutPrefix(it.Source, name+":")
			line, aerr := strconv.Atoi(n)
			if !ok || aerr != nil || line <= prev || line > len(lines) {
				t.Fatalf("item %q has source %q, after line %d of a %d-line file", it.ID, it.Source, prev, len(lines))
			}
			prev = line
			var h handItem
			if json.Unmarshal(lines[line-1], &h) != nil || h.ID != it.ID || h.Gold == nil || *h.Gold != it.Gold {
				t.Fatalf("item %+v is not what line %d holds: %q", it, line, lines[line-1])
			}
		}

		tk := s.Task
		tk.Items = items
		if err := tk.Validate(); err != nil {
			for _, msg := range strings.Split(err.Error(), "\n") {
				if !strings.HasPrefix(msg, "task "+s.ID) {
					t.Fatalf("validation problem %q does not name task %s", msg, s.ID)
				}
			}
			return
		}
		for _, it := range items {
			checkChoiceItem(t, &tk, it)
		}
	})
}

// FuzzParseDocument feeds arbitrary text to the bits-per-byte document
// reader, seeded with the shipped documents. It must never panic; errors
// name the file; a document it reads has an id from the file name and
// text without trailing white space, and validates (declared level,
// non-empty text) without panicking.
func FuzzParseDocument(f *testing.F) {
	names, err := fs.Glob(dataDir(f), "bpb/*.txt")
	if err != nil || len(names) == 0 {
		f.Fatalf("no documents in testdata/microbench/bpb: %v", err)
	}
	for _, name := range names {
		data, err := fs.ReadFile(dataDir(f), name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(data))
	}
	for _, s := range []string{"", "level: 1\n\n", "level: 0\n\nx", "level:-3\n\n x \n", "\n\nx", "level: 1\nlevel: 2\n\nx", "level: 1\r\n\r\nx"} {
		f.Add(s)
	}

	f.Fuzz(func(t *testing.T, data string) {
		const name = "bpb/x.txt"
		it, err := parseDocument(name, data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), name+":") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if it.ID != "bpb-x" || it.Source != name || it.Context != "" || it.Choices != nil {
			t.Fatalf("document read as %+v", it)
		}
		if strings.TrimRight(it.Text, " \t\r\n") != it.Text || !strings.Contains(data, it.Text) {
			t.Fatalf("text %q is not the body of %q without trailing white space", it.Text, data)
		}
		tk := bpbSpec.Task
		tk.Items = []Item{it}
		if err := tk.Validate(); err != nil {
			if !strings.HasPrefix(err.Error(), "task "+tk.ID) {
				t.Fatalf("validation problem does not name the task: %v", err)
			}
			return
		}
		if _, ok := tk.Levels[it.Level]; !ok || strings.TrimSpace(it.Text) == "" {
			t.Fatalf("document %+v validated", it)
		}
	})
}

// checkLineErrors asserts that each line of err is "<name>:<line>: ..."
// with a line of the file, or "<name>: ..." about the whole file for the
// given reasons.
func checkLineErrors(t *testing.T, name string, nLines int, err error, wholeFile ...string) {
	t.Helper()
	re := regexp.MustCompile(`^` + regexp.QuoteMeta(name) + `:([0-9]+): `)
	for _, msg := range strings.Split(err.Error(), "\n") {
		m := re.FindStringSubmatch(msg)
		if m == nil {
			whole := false
			for _, w := range wholeFile {
				whole = whole || strings.HasPrefix(msg, name+": "+w)
			}
			if !whole {
				t.Fatalf("problem %q names no line of %s (whole error: %q)", msg, name, err)
			}
			continue
		}
		if n, _ := strconv.Atoi(m[1]); n < 1 || n > nLines {
			t.Fatalf("problem %q names line %d of a %d-line file", msg, n, nLines)
		}
	}
}

// checkChoiceItem asserts the rules Validate promises for an item it
// passed.
func checkChoiceItem(t *testing.T, tk *Task, it Item) {
	t.Helper()
	if checkID(it.ID) != nil {
		t.Fatalf("id %q validated", it.ID)
	}
	if _, ok := tk.Levels[it.Level]; !ok {
		t.Fatalf("item %s: undeclared level %d validated", it.ID, it.Level)
	}
	if tk.Grouped != (it.Group != "") {
		t.Fatalf("item %s: group %q validated on a task with Grouped=%v", it.ID, it.Group, tk.Grouped)
	}
	ctx := []rune(it.Context)
	if strings.TrimSpace(it.Context) == "" || unicode.IsSpace(ctx[len(ctx)-1]) || it.Text != "" {
		t.Fatalf("item %s: context %q (text %q) validated", it.ID, it.Context, it.Text)
	}
	if len(it.Choices) < 2 || it.Gold < 0 || it.Gold >= len(it.Choices) {
		t.Fatalf("item %s: gold %d of %d choices validated", it.ID, it.Gold, len(it.Choices))
	}
	seen := map[string]bool{}
	for i, c := range it.Choices {
		if c == "" || strings.TrimSpace(c) != c || seen[c] {
			t.Fatalf("item %s: choice %d %q validated (empty, padded or repeated)", it.ID, i, c)
		}
		seen[c] = true
		if it.Continuation(i) != ContinuationPrefix+c {
			t.Fatalf("item %s: continuation %d is %q", it.ID, i, it.Continuation(i))
		}
	}
}
