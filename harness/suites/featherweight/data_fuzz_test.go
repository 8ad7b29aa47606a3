package featherweight

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/feather-eval/feather/internal/testenv"
)

// lineErrRE is one reported problem: the file, the line, the message.
var lineErrRE = regexp.MustCompile(`^f\.jsonl:([0-9]+): `)

// FuzzParse feeds arbitrary bytes to the Featherweight JSONL reader,
// seeded with the shipped question file and a few broken lines. Parse
// must never panic; each reported problem names the file and a line of it
// (only "no questions" is about the whole file); a dataset it accepts
// holds valid, uniquely named questions on the lines it says, and reads
// back the same from its own JSONL encoding.
func FuzzParse(f *testing.F) {
	shipped, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "testdata", "featherweight", "featherweight.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	// The file's head and each line alone, not the whole 19 kB file: a run
	// on it takes milliseconds, and minimizing an input grown from it
	// stalls the fuzzer for a minute.
	lines := bytes.Split(shipped, []byte("\n"))
	f.Add(bytes.Join(lines[:min(3, len(lines))], []byte("\n")))
	for _, l := range lines {
		f.Add(l)
	}
	ok := `{"id":"q","category":"c","question":"?","choices":["w","x","y","z"],"answer":"B"}`
	for _, s := range []string{
		ok,
		`{"_meta": true, "name": "n", "version": "1"}` + "\n" + ok + "\n\n",
		ok + "\n" + `{"_meta": true}`,
		ok + "\n" + ok,
		`{"id":"q","category":"c","question":"?","choices":["w","W ","y","z"],"answer":3}`,
		`{"id":"q","category":"c","question":"?","choices":["w","x","y"],"answer":1.5}`,
		`{"id":null,"choices":null,"answer":null}`,
		ok + ` {}`,
		"[1]\nnull\n\"x\"\n{",
		"",
	} {
		f.Add([]byte(s))
	}

	f.Fuzz(func(t *testing.T, data []byte) {
		const name = "f.jsonl"
		ds, err := Parse(name, data)
		nLines := bytes.Count(data, []byte("\n")) + 1
		if err != nil {
			if ds != nil {
				t.Fatalf("Parse returned a dataset with an error")
			}
			for _, msg := range strings.Split(err.Error(), "\n") {
				m := lineErrRE.FindStringSubmatch(msg)
				if m == nil {
					if !strings.HasPrefix(msg, name+": no questions") {
						t.Fatalf("problem %q names no line of %s (whole error: %q)", msg, name, err)
					}
					continue
				}
				if n, _ := strconv.Atoi(m[1]); n < 1 || n > nLines {
					t.Fatalf("problem %q names line %d of a %d-line file", msg, n, nLines)
				}
			}
			return
		}

		sum := sha256.Sum256(data)
		if ds.Info.File != name || ds.Info.SHA256 != hex.EncodeToString(sum[:]) || ds.Info.Items != len(ds.Items) || len(ds.Items) == 0 {
			t.Fatalf("Info %+v does not describe the %d items of %s", ds.Info, len(ds.Items), name)
		}
		fileLines := bytes.Split(data, []byte("\n"))
		ids, prev := map[string]bool{}, 0
		for _, it := range ds.Items {
			checkItem(t, it)
			if ids[it.ID] {
				t.Fatalf("id %q accepted twice", it.ID)
			}
			ids[it.ID] = true
			if it.Line <= prev || it.Line > len(fileLines) {
				t.Fatalf("item %q on line %d after line %d of a %d-line file", it.ID, it.Line, prev, len(fileLines))
			}
			prev = it.Line
			var onLine map[string]json.RawMessage
			var id string
			if json.Unmarshal(fileLines[it.Line-1], &onLine) != nil || json.Unmarshal(onLine["id"], &id) != nil || id != it.ID {
				t.Fatalf("item %q is not on line %d: %q", it.ID, it.Line, fileLines[it.Line-1])
			}
		}

		// Written back as JSONL (answers as indexes, the header first), the
		// dataset reads back the same.
		var out bytes.Buffer
		enc := json.NewEncoder(&out)
		if ds.Meta != nil {
			if err := enc.Encode(ds.Meta); err != nil {
				t.Fatal(err)
			}
		}
		for _, it := range ds.Items {
			if err := enc.Encode(it); err != nil {
				t.Fatal(err)
			}
		}
		back, err := Parse(name, out.Bytes())
		if err != nil {
			t.Fatalf("the dataset's own encoding does not parse: %v\n%s", err, out.Bytes())
		}
		first := 1
		if ds.Meta != nil {
			first = 2
		}
		want := make([]Item, len(ds.Items))
		for i, it := range ds.Items {
			it.Line = first + i
			want[i] = it
		}
		if !reflect.DeepEqual(want, back.Items) || !reflect.DeepEqual(ds.Meta, back.Meta) {
			t.Fatalf("round trip changed the dataset:\n%+v %v\n%+v %v", want, ds.Meta, back.Items, back.Meta)
		}
	})
}

// checkItem asserts the loader's rules for one accepted question.
func checkItem(t *testing.T, it Item) {
	t.Helper()
	for field, v := range map[string]string{"id": it.ID, "category": it.Category, "question": it.Question} {
		if strings.TrimSpace(v) == "" {
			t.Fatalf("item on line %d: empty %s accepted", it.Line, field)
		}
	}
	if it.Answer < 0 || it.Answer > 3 {
		t.Fatalf("item %q: answer index %d accepted", it.ID, it.Answer)
	}
	if l := it.AnswerLetter(); l != Letters[it.Answer] {
		t.Fatalf("item %q: AnswerLetter %q for index %d", it.ID, l, it.Answer)
	}
	for i, c := range it.Choices {
		if strings.TrimSpace(c) == "" {
			t.Fatalf("item %q: empty choice %s accepted", it.ID, Letters[i])
		}
		for j := i + 1; j < len(it.Choices); j++ {
			if strings.EqualFold(strings.TrimSpace(c), strings.TrimSpace(it.Choices[j])) {
				t.Fatalf("item %q: choices %s and %s are the same text %q", it.ID, Letters[i], Letters[j], c)
			}
		}
	}
}
