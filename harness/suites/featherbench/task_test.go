package featherbench

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/suites/featherbench/checkers"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseTask(t *testing.T) {
	task, err := Parse("tasks/tool-use-weather.json", []byte(`{
		"category": "tool-use",
		"description": "right tool, right args",
		"prompt": "What's the weather in Paris? Use the tool.",
		"tools": [{"name": "get_weather", "description": "Get the weather.", "parameters": {"type": "object"}}],
		"checker": {"type": "tool_called", "tool": "get_weather", "args": {"location": "Paris"}},
		"rubric": {"criteria": ["Polite"]},
		"system": "You are terse.",
		"tags": ["weather"]
	}`))
	require.NoError(t, err)
	assert.Equal(t, "tool-use-weather", task.ID, "the id defaults to the file name")
	assert.Equal(t, "tool-use", task.Category)
	assert.Equal(t, "right tool, right args", task.Description)
	assert.Equal(t, RefusalNeutral, task.Refusal)
	assert.Equal(t, []lm.Tool{{Name: "get_weather", Description: "Get the weather.", Parameters: json.RawMessage(`{"type": "object"}`)}}, task.Tools)
	assert.Equal(t, &Rubric{Criteria: []string{"Polite"}}, task.Rubric)
	assert.Equal(t, map[string]json.RawMessage{"system": json.RawMessage(`"You are terse."`), "tags": json.RawMessage(`["weather"]`)}, task.Extra)
	assert.True(t, task.Scored())
	assert.Len(t, task.Hash, 12)

	minimal, err := Parse("x/qualitative.json", []byte(`{"id": "custom-id", "prompt": "Tell me a story.", "checker": null}`))
	require.NoError(t, err)
	assert.Equal(t, "custom-id", minimal.ID)
	assert.False(t, minimal.Scored())
	assert.Empty(t, minimal.Category)
}

func TestParseTaskErrors(t *testing.T) {
	tests := []struct {
		name, file, json, want string
	}{
		{"syntax", "tasks/a.json", "{\n  \"prompt\": \"x\",\n  \"checker\": {\"type\" \"regex\"}\n}", `tasks/a.json:3:22: invalid JSON: invalid character '"' after object key`},
		{"truncated", "tasks/a.json", `{"prompt": "x"`, `tasks/a.json:1:15: invalid JSON: unexpected end of input (a missing closing brace or bracket?)`},
		{"not an object", "tasks/a.json", `["prompt"]`, `tasks/a.json: a task must be a JSON object such as {"prompt": "...", "checker": {...}}`},
		{"duplicate field", "tasks/a.json", "{\"prompt\": \"x\",\n \"prompt\": \"y\"}", `tasks/a.json:2: duplicate field "prompt"; JSON would keep only the last one`},
		{"missing prompt", "tasks/coding-x.json", `{"category": "coding"}`, `tasks/coding-x.json: prompt: missing; every task needs the exact prompt sent to the model`},
		{"empty prompt", "tasks/coding-x.json", `{"prompt": "  "}`, `tasks/coding-x.json: prompt: is empty; write the exact prompt sent to the model`},
		{"prompt type", "tasks/coding-x.json", `{"prompt": ["a"]}`, `tasks/coding-x.json: prompt: must be a string, not a list`},
		{"category type", "tasks/coding-x.json", `{"prompt": "x", "category": 3}`, `tasks/coding-x.json: category: must be a string, not a number`},
		{"bad id", "tasks/coding-x.json", `{"prompt": "x", "id": "my task"}`, `tasks/coding-x.json: id: "my task" is not usable as a task id: use letters, digits, '-', '_' and '.' (ids name subtests); rename the file or set "id"`},
		{"bad file name", "tasks/my task.json", `{"prompt": "x"}`, `tasks/my task.json: id (from the file name): "my task" is not usable as a task id: use letters, digits, '-', '_' and '.' (ids name subtests); rename the file or set "id"`},
		{"refusal policy", "tasks/coding-x.json", `{"prompt": "x", "refusal": "ignore"}`, `tasks/coding-x.json: refusal: must be "neutral" (the default: unscored), "pass" (declining is right) or "fail" (over-refusal), not "ignore"`},
		{"checker regex", "tasks/coding-x.json", `{"prompt": "x", "checker": {"type": "all", "checks": [{"type": "contains", "value": "a"}, {"type": "contains", "value": "b"}, {"type": "regex", "pattern": "(?<=a"}]}}`,
			`tasks/coding-x.json: checker.checks[2].pattern: invalid regex: error parsing regexp: missing closing ) in ` + "`(?<=a`"},
		{"checker type", "tasks/coding-x.json", `{"prompt": "x", "checker": {"type": "equals", "value": "a"}}`,
			`tasks/coding-x.json: checker.type: unknown checker type "equals"; registered types: ` + strings.Join(checkers.Types(), ", ")},
		{"checker field", "tasks/coding-x.json", `{"prompt": "x", "checker": {"type": "python_tests", "test_code": "import solution", "timeout": 5}}`,
			`tasks/coding-x.json: checker (python_tests): unknown field "timeout" (did you mean "timeout_s"?); its fields are label, test_code, timeout_s, type`},
		{"tools type", "tasks/t.json", `{"prompt": "x", "tools": {"name": "a"}}`, `tasks/t.json: tools: must be a list of tool definitions, not an object`},
		{"tool name", "tasks/t.json", `{"prompt": "x", "tools": [{"name": "get weather"}]}`, `tasks/t.json: tools[0].name: "get weather" must be 1 to 64 letters, digits, '_' or '-' (what function-calling APIs accept)`},
		{"tool without name", "tasks/t.json", `{"prompt": "x", "tools": [{"description": "d"}]}`, `tasks/t.json: tools[0].name: must be a string such as "get_weather"`},
		{"duplicate tool", "tasks/t.json", `{"prompt": "x", "tools": [{"name": "a"}, {"name": "a"}]}`, `tasks/t.json: tools[1].name: "a" is already tools[0]; tool names must be unique`},
		{"openai-style tool", "tasks/t.json", `{"prompt": "x", "tools": [{"type": "function", "function": {"name": "a"}}]}`, `tasks/t.json: tools[0]: write the tool provider-neutral as {"name", "description", "parameters"}; the harness adds the API's "function" wrapper`},
		{"tool field", "tasks/t.json", `{"prompt": "x", "tools": [{"name": "a", "params": {}}]}`, `tasks/t.json: tools[0]: unknown field "params"; a tool has name, description and parameters`},
		{"tool parameters", "tasks/t.json", `{"prompt": "x", "tools": [{"name": "a", "parameters": "object"}]}`, `tasks/t.json: tools[0].parameters: must be a JSON Schema object such as {"type": "object", "properties": {...}}, not a string`},
		{"rubric", "tasks/t.json", `{"prompt": "x", "rubric": {"criteria": "tone"}}`, `tasks/t.json: rubric.criteria: must be a list of strings, e.g. ["Costs are realistic for Lisbon"]`},
		{"rubric empty", "tasks/t.json", `{"prompt": "x", "rubric": {"criteria": []}}`, `tasks/t.json: rubric.criteria: is empty; list what the judge should score`},
		{"rubric field", "tasks/t.json", `{"prompt": "x", "rubric": {"criteria": ["a"], "scale": 10}}`, `tasks/t.json: rubric: unknown field "scale"; a rubric has criteria`},
		{"misspelt field", "tasks/t.json", "{\"prompt\": \"x\",\n \"checkr\": {\"type\": \"contains\", \"value\": \"a\"}}",
			`tasks/t.json:2: field "checkr" looks like a misspelling of "checker"; rename it (fields the harness does not read are kept for extensions, so this one would be silently ignored)`},
		{"swapped letters", "tasks/t.json", `{"prmopt": "x"}`,
			`tasks/t.json:1: field "prmopt" looks like a misspelling of "prompt"; rename it (fields the harness does not read are kept for extensions, so this one would be silently ignored)`},
		{"misspelt field in a check", "tasks/t.json", `{"prompt": "x", "checker": {"type": "all", "checks": [{"type": "regex", "pattern": "a"}, {"type": "contains", "value": "b"}, {"type": "contains", "valeu": "c"}]}}`,
			`tasks/t.json: checker.checks[2] (contains): unknown field "valeu" (did you mean "value"?); its fields are label, lines, section, type, value, values, view, whole_word`},
		{"model catalog", "tasks/models.json", `{"_comment": "panel", "fable-5": {"enabled": true, "model": "anthropic/claude-fable-5"}, "local": {"backend": "onnx", "hf": "org/name"}}`,
			`tasks/models.json: this looks like a model catalog, not a task; move it out of the tasks folder (-fb.tasks-dir) and pass it with -fb.catalog`},
		// Only a file with nothing of a task and entries of a catalog is
		// taken for a catalog.
		{"catalog-like field beside a task field", "tasks/t.json", `{"category": "coding", "meta": {"model": "x"}}`, `tasks/t.json: prompt: missing; every task needs the exact prompt sent to the model`},
		{"objects without catalog fields", "tasks/t.json", `{"meta": {"author": "me"}}`, `tasks/t.json: prompt: missing; every task needs the exact prompt sent to the model`},
		{"a field that is no object", "tasks/t.json", `{"a": {"model": "x"}, "b": "text"}`, `tasks/t.json: prompt: missing; every task needs the exact prompt sent to the model`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.file, []byte(tt.json))
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
		})
	}
}

// TestCatalogsAreNotTasks: every model catalog of the repository, dropped
// into a tasks folder, is named as a catalog.
func TestCatalogsAreNotTasks(t *testing.T) {
	files, err := filepath.Glob("../../../models/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		_, err := LoadFile(f)
		assert.EqualError(t, err, f+": this looks like a model catalog, not a task; move it out of the tasks folder (-fb.tasks-dir) and pass it with -fb.catalog")
	}
}

func TestNoTasks(t *testing.T) {
	err := NoTasks("my-tasks", "-tasks")
	assert.ErrorIs(t, err, ErrNoTasks)
	assert.EqualError(t, err, "no task files in my-tasks: add <category>-<name>.json files, or point -tasks at a folder of them")
}

func writeTasks(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
	}
	return dir
}

func TestLoadDir(t *testing.T) {
	dir := writeTasks(t, map[string]string{
		"b-two.json":   `{"category": "b", "prompt": "2"}`,
		"a-one.json":   `{"category": "a", "prompt": "1"}`,
		"notes.txt":    `not a task`,
		"a-three.json": `{"category": "a", "prompt": "3"}`,
	})
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub.json"), 0o755))
	tasks, err := LoadDir(dir)
	require.NoError(t, err)
	var ids []string
	for _, task := range tasks {
		ids = append(ids, task.ID)
	}
	assert.Equal(t, []string{"a-one", "a-three", "b-two"}, ids)
	assert.Equal(t, map[string]string{"a-one": "a", "a-three": "a", "b-two": "b"}, Categories(tasks))
}

func TestLoadDirReportsEveryBadFile(t *testing.T) {
	dir := writeTasks(t, map[string]string{
		"a.json": `{"prompt": "x", "checker": {"type": "regex", "pattern": "("}}`,
		"b.json": `{"category": "b"}`,
		"c.json": `{"id": "d", "prompt": "x"}`,
		"d.json": `{"prompt": "fine"}`,
	})
	_, err := LoadDir(dir)
	require.Error(t, err)
	assert.Equal(t,
		filepath.Join(dir, "a.json")+": checker.pattern: invalid regex: error parsing regexp: missing closing ) in `(`\n"+
			filepath.Join(dir, "b.json")+": prompt: missing; every task needs the exact prompt sent to the model\n"+
			filepath.Join(dir, "d.json")+`: id: "d" is also the id of `+filepath.Join(dir, "c.json")+"; task ids must be unique",
		err.Error())

	_, err = LoadDir(filepath.Join(dir, "missing"))
	assert.EqualError(t, err, "task directory "+filepath.Join(dir, "missing")+" does not exist; create it with task files named <category>-<name>.json, or point the tasks-dir option elsewhere")
}

func TestFilter(t *testing.T) {
	tasks, err := LoadDir(testTasks)
	require.NoError(t, err)
	ids := func(ts []Task) []string {
		var out []string
		for _, t := range ts {
			out = append(out, t.ID)
		}
		return out
	}
	tests := []struct {
		name      string
		ids, cats []string
		want      []string
		wantErr   string
	}{
		{"no filter", nil, nil, []string{"coding-add", "data-notes", "data-total", "realworld-benign", "realworld-veggie", "security-injection", "security-jailbreak", "tool-use-weather"}, ""},
		{"ids", []string{"data-total", "coding-add"}, nil, []string{"coding-add", "data-total"}, ""},
		{"categories", nil, []string{"security", "data"}, []string{"data-notes", "data-total", "security-injection", "security-jailbreak"}, ""},
		{"intersection", []string{"coding-add", "data-total", "security-jailbreak"}, []string{"data", "security"}, []string{"data-total", "security-jailbreak"}, ""},
		{"empty intersection", []string{"coding-add"}, []string{"data"}, nil, "no task is both in tasks coding-add and in categories data"},
		{"unknown id", []string{"coding-ad", "x"}, nil, nil, `unknown task "coding-ad", "x"; valid ids: coding-add, data-notes, data-total, realworld-benign, realworld-veggie, security-injection, security-jailbreak, tool-use-weather`},
		{"unknown category", nil, []string{"tooluse"}, nil, `unknown category "tooluse"; categories: coding, data, realworld, security, tool-use`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Filter(tasks, tt.ids, tt.cats)
			if tt.wantErr != "" {
				assert.EqualError(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, ids(got))
		})
	}
}

func TestTaskHash(t *testing.T) {
	base := `{"description": "d", "prompt": "P", "tools": [{"name": "t", "parameters": {"type": "object", "properties": {"a": {"type": "string"}}}}], "checker": {"type": "contains", "value": "x"}, "rubric": {"criteria": ["c"]}}`
	hash := func(doc string) string {
		task, err := Parse("tasks/h.json", []byte(doc))
		require.NoError(t, err)
		return task.Hash
	}
	h := hash(base)
	// Pinned so that a change to the definition is deliberate (it makes old
	// and new records of a task look like different versions). Computed
	// independently: sha256(json.dumps({"checker": ..., "prompt": "P",
	// "tools": [...]}, sort_keys=True, separators=(",", ":"),
	// ensure_ascii=False)) in Python, first 12 hex digits.
	assert.Equal(t, "5756a4cb3942", h)
	same := []string{
		`{"description": "changed", "prompt": "P", "tools": [{"name": "t", "parameters": {"type": "object", "properties": {"a": {"type": "string"}}}}], "checker": {"type": "contains", "value": "x"}, "rubric": {"criteria": ["c"]}}`,
		`{"prompt": "P", "tools": [{"parameters": {"properties": {"a": {"type": "string"}}, "type": "object"}, "name": "t"}], "checker": {"value": "x", "type": "contains"}}`,
		"{\"prompt\":\"P\",\n\"tools\":[{\"name\":\"t\",\"parameters\":{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"}}}}],\"checker\":{\"type\":\"contains\",\"value\":\"x\"},\"category\":\"other\",\"refusal\":\"fail\"}",
	}
	for _, doc := range same {
		assert.Equal(t, h, hash(doc), doc)
	}
	different := []string{
		`{"prompt": "P!", "tools": [{"name": "t", "parameters": {"type": "object", "properties": {"a": {"type": "string"}}}}], "checker": {"type": "contains", "value": "x"}}`,
		`{"prompt": "P", "tools": [{"name": "t", "parameters": {"type": "object", "properties": {"a": {"type": "string"}}}}], "checker": {"type": "contains", "value": "y"}}`,
		`{"prompt": "P", "tools": [{"name": "t", "parameters": {"type": "object", "properties": {"b": {"type": "string"}}}}], "checker": {"type": "contains", "value": "x"}}`,
		`{"prompt": "P", "checker": {"type": "contains", "value": "x"}}`,
	}
	for _, doc := range different {
		assert.NotEqual(t, h, hash(doc), doc)
	}
	assert.Equal(t, hash(`{"prompt": "P"}`), hash(`{"prompt": "P", "tools": null, "checker": null}`), "absent is null")
}

// TestTaskHashIsPythons: the hash is sha256 of what Python's
// json.dumps(obj, sort_keys=True, separators=(",", ":"),
// ensure_ascii=False) writes for obj = {"checker": task.get("checker"),
// "prompt": task["prompt"], "tools": task.get("tools")}; the wants are
// Python's digests, first 12 hex digits.
func TestTaskHashIsPythons(t *testing.T) {
	tests := []struct {
		name, prompt, checker, tools, want string
	}{
		{"an empty tools list is written as []", "P", "", "[]", "180ccb44fcdc"},
		{"nothing but a prompt", "P", "", "", "dd8843839c71"},
		{"separators, escapes and numbers", `Line\u2028sep\u2029 and \u0001 \b\f tab\t é \"q\" \\ <&> \u007f`,
			`{"type": "numeric_close", "value": 0.50, "abs_tol": 1e2, "rel_tol": 1E-5, "big": 12345678901234567890, "neg": -0, "f": 1.0, "g": 1e16, "s": 0.00001, "t": 123456789012345.6}`,
			"", "423352c5ebfa"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var prompt string
			require.NoError(t, json.Unmarshal([]byte(`"`+tt.prompt+`"`), &prompt))
			got, err := TaskHash(prompt, json.RawMessage(tt.checker), json.RawMessage(tt.tools))
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
	for in, want := range map[string]string{"0.50": "0.5", "1e2": "100.0", "-0": "0", "-0.0": "-0.0", "1e16": "1e+16", "1e15": "1000000000000000.0",
		"0.0001": "0.0001", "0.00001": "1e-05", "1e400": "Infinity", "-1e400": "-Infinity", "12345678901234567890": "12345678901234567890", "2.5E-3": "0.0025"} {
		got, err := pythonNumber(in)
		require.NoError(t, err)
		assert.Equal(t, want, got, in)
	}
}
