package featherbench

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/feather-eval/feather/internal/testenv"
)

// hashRE is TaskHash's shape: 12 lower-case hex digits.
var hashRE = regexp.MustCompile(`^[0-9a-f]{12}$`)

// FuzzParse feeds arbitrary bytes and file names to Parse, seeded with
// every shipped task file. Parse must never panic; its errors name the
// file; a task it accepts satisfies the loader's rules, parses the same
// again, and keeps its fields and Hash when the file is reformatted
// (json.Compact), since the hash covers content, not layout.
func FuzzParse(f *testing.F) {
	root := testenv.RepoRoot()
	var files []string
	for _, dir := range []string{"tasks", filepath.Join("testdata", "featherbench", "tasks")} {
		m, err := filepath.Glob(filepath.Join(root, dir, "*.json"))
		if err != nil {
			f.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) == 0 {
		f.Fatalf("no task files under %s/tasks or testdata/featherbench/tasks", root)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(filepath.Base(file), data)
	}
	f.Add("tasks/t.json", []byte(`{"prompt": "x", "tools": [{"name": "a"}], "rubric": {"criteria": ["c"]}, "refusal": "pass", "x": 1}`))
	f.Add("my task.json", []byte(`{"prompt": "x"}`))
	f.Add("t.json", []byte(`{"prompt": "x", "checker": {"type": "all", "checks": [{"type": "regex", "pattern": "a+"}]}}`))

	f.Fuzz(func(t *testing.T, name string, data []byte) {
		if riskySQL(data) {
			t.Skip("setup_sql that could run long or touch the disk")
		}
		task, err := Parse(name, data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), name) {
				t.Fatalf("Parse(%q) error does not name the file: %v", name, err)
			}
			return
		}
		checkTask(t, name, data, task)

		// The same bytes again, and under another directory (the default id
		// comes from the base name only): the same task and hash.
		for _, n := range []string{name, filepath.Join("elsewhere", filepath.Base(name))} {
			again, err := Parse(n, data)
			if err != nil {
				t.Fatalf("Parse(%q) ok but Parse(%q) of the same bytes failed: %v", name, n, err)
			}
			if !sameTask(task, again) {
				t.Fatalf("Parse(%q) and Parse(%q) of the same bytes differ:\n%+v\n%+v", name, n, task, again)
			}
		}

		var compact bytes.Buffer
		if err := json.Compact(&compact, data); err != nil {
			t.Fatalf("Parse accepted bytes json.Compact rejects: %v", err)
		}
		ct, err := Parse(name, compact.Bytes())
		if err != nil {
			t.Fatalf("Parse accepted the file but not its compact form %q: %v", compact.Bytes(), err)
		}
		if !sameTask(task, ct) {
			t.Fatalf("compacting the file changed the task:\n%+v\n%+v", task, ct)
		}
	})
}

// checkTask asserts what Parse promises of a task it accepts.
func checkTask(t *testing.T, name string, data []byte, task Task) {
	t.Helper()
	if task.File != name {
		t.Fatalf("File = %q, want %q", task.File, name)
	}
	if !idRE.MatchString(task.ID) {
		t.Fatalf("accepted id %q does not match %s", task.ID, idRE)
	}
	if strings.TrimSpace(task.Prompt) == "" {
		t.Fatalf("accepted an empty prompt")
	}
	if !slices.Contains([]string{RefusalNeutral, RefusalPass, RefusalFail}, task.Refusal) {
		t.Fatalf("accepted refusal policy %q", task.Refusal)
	}
	if !hashRE.MatchString(task.Hash) {
		t.Fatalf("Hash %q is not 12 hex digits", task.Hash)
	}
	if task.Scored() != (task.Checker != nil) {
		t.Fatalf("Scored() = %v with checker %s", task.Scored(), task.Checker)
	}
	seen := map[string]bool{}
	for i, tool := range task.Tools {
		if !toolNameRE.MatchString(tool.Name) || seen[tool.Name] {
			t.Fatalf("tools[%d].name %q accepted (invalid or repeated)", i, tool.Name)
		}
		seen[tool.Name] = true
		if p := tool.Parameters; p != nil && (len(p) == 0 || p[0] != '{') {
			t.Fatalf("tools[%d].parameters %s accepted; must be an object", i, p)
		}
	}
	if task.Rubric != nil {
		if len(task.Rubric.Criteria) == 0 {
			t.Fatalf("accepted a rubric with no criteria")
		}
		for i, c := range task.Rubric.Criteria {
			if strings.TrimSpace(c) == "" {
				t.Fatalf("accepted an empty rubric.criteria[%d]", i)
			}
		}
	}
	for k := range task.Extra {
		if taskFields[k] {
			t.Fatalf("known field %q landed in Extra", k)
		}
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		t.Fatalf("Parse accepted bytes encoding/json cannot read as an object: %v", err)
	}
	if _, ok := top["id"]; !ok && task.ID != strings.TrimSuffix(filepath.Base(name), ".json") {
		t.Fatalf("id %q is not the file name %q", task.ID, filepath.Base(name))
	}
}

// sameTask compares two parses of one file up to layout: raw JSON values
// (checker, tool parameters, extra fields) compare compacted; File and the
// compiled checker are not compared.
func sameTask(a, b Task) bool {
	if a.ID != b.ID || a.Category != b.Category || a.Description != b.Description || a.Prompt != b.Prompt ||
		a.Refusal != b.Refusal || a.Hash != b.Hash || a.Scored() != b.Scored() ||
		!sameRaw(a.Checker, b.Checker) || len(a.Tools) != len(b.Tools) || len(a.Extra) != len(b.Extra) ||
		(a.Rubric == nil) != (b.Rubric == nil) {
		return false
	}
	if a.Rubric != nil && !slices.Equal(a.Rubric.Criteria, b.Rubric.Criteria) {
		return false
	}
	for i := range a.Tools {
		x, y := a.Tools[i], b.Tools[i]
		if x.Name != y.Name || x.Description != y.Description || !sameRaw(x.Parameters, y.Parameters) {
			return false
		}
	}
	for k, v := range a.Extra {
		w, ok := b.Extra[k]
		if !ok || !sameRaw(v, w) {
			return false
		}
	}
	return true
}

func sameRaw(a, b json.RawMessage) bool {
	if (a == nil) != (b == nil) {
		return false
	}
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

// riskySQL reports whether a sql_result checker's setup_sql, which Parse
// runs in an in-memory SQLite database to catch broken fixtures at load
// time, could loop (recursive CTEs), allocate without bound or reach the
// disk (ATTACH, VACUUM INTO). Such inputs test SQLite, not this package,
// and would make the fuzzer slow or write files.
func riskySQL(data []byte) bool {
	var v any
	if json.Unmarshal(data, &v) != nil {
		return false // Parse rejects it before compiling any checker
	}
	risky := false
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if s, ok := x.(string); ok && k == "setup_sql" {
					s = strings.ToLower(s)
					for _, w := range []string{"attach", "vacuum", "with", "blob", "extension", "pragma"} {
						risky = risky || strings.Contains(s, w)
					}
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(v)
	return risky
}
