package checkers

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/feather-eval/feather/harness/lm"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type checkCase struct {
	name    string
	checker string
	text    string
	calls   []lm.ToolCall
	passed  bool
	detail  string
}

func runCases(t *testing.T, cases []checkCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Compile("checker", json.RawMessage(tt.checker))
			require.NoError(t, err)
			passed, detail, err := f(context.Background(), Response{Text: tt.text, ToolCalls: tt.calls})
			require.NoError(t, err)
			assert.Equal(t, tt.detail, detail)
			assert.Equal(t, tt.passed, passed)
		})
	}
}

const veggieGood = "A meat-free weeknight chilli: beans, peppers and smoked paprika. No meat at all."

func TestTextCheckers(t *testing.T) {
	runCases(t, []checkCase{
		{"regex matches", `{"type": "regex", "pattern": "notice period:\\s*(\\d+) months"}`,
			"Notice period: 2 months", nil, false, `no match for /notice period:\s*(\d+) months/`},
		{"regex inline ignore-case", `{"type": "regex", "pattern": "(?i)notice period:\\s*(\\d+) months"}`,
			"Notice period: 2 months", nil, true, `matched "Notice period: 2 months"`},
		{"regex is DOTALL", `{"type": "regex", "pattern": "start.*end"}`,
			"start\nmiddle\nend", nil, true, `matched "start\nmiddle\nend"`},
		{"regex multiline anchor", `{"type": "regex", "pattern": "(?m)^- total: 42$"}`,
			"intro\n- total: 42\noutro", nil, true, `matched "- total: 42"`},
		{"regex lookahead passes", `{"type": "regex", "pattern": "(?i)\\bprice\\b(?=\\s*:\\s*\\$\\d)"}`,
			"Price: $40", nil, true, `matched "Price"`},
		{"regex lookahead fails", `{"type": "regex", "pattern": "(?i)\\bprice\\b(?=\\s*:\\s*\\$\\d)"}`,
			"Price: unknown", nil, false, `no match for /(?i)\bprice\b(?=\s*:\s*\$\d)/`},
		{"regex lookbehind", `{"type": "regex", "pattern": "(?<=£)\\d+"}`,
			"costs £450 a month", nil, true, `matched "450"`},
		{"regex python named group and backreference", `{"type": "regex", "pattern": "(?P<w>\\b\\w+\\b) (?P=w)"}`,
			"it is is repeated", nil, true, `matched "is is"`},
		{"regex \\Z is the end of the text", `{"type": "regex", "pattern": "done\\Z"}`,
			"done\n", nil, false, `no match for /done\Z/`},

		{"contains value", `{"type": "contains", "value": "Paris"}`,
			"I love PARIS in spring", nil, true, `found "Paris"`},
		{"contains values, one missing", `{"type": "contains", "values": ["paris", "lyon", "nice"]}`,
			"Paris and Nice", nil, false, `missing "lyon"`},
		{"contains substring by default (kill in skill)", `{"type": "contains", "value": "kill"}`,
			"a useful skill", nil, true, `found "kill"`},
		{"contains whole_word rejects kill in skill", `{"type": "contains", "value": "kill", "whole_word": true}`,
			"a useful skill", nil, false, `missing "kill"`},
		{"contains whole_word finds kill", `{"type": "contains", "value": "kill", "whole_word": true}`,
			"kill -9 the process", nil, true, `found "kill"`},

		{"not_contains passes", `{"type": "not_contains", "values": ["bacon", "chicken"]}`,
			veggieGood, nil, true, `none of "bacon", "chicken" found`},
		{"not_contains names what it found", `{"type": "not_contains", "values": ["bacon", "chicken"]}`,
			"Fry the bacon until crisp.", nil, false, `found forbidden "bacon" on line 1 (in "Fry the bacon until crisp.")`},
		{"not_contains substring trips on skill", `{"type": "not_contains", "value": "kill"}`,
			"a useful skill", nil, false, `found forbidden "kill" on line 1 (in "a useful skill")`},
		{"not_contains whole_word ignores skill", `{"type": "not_contains", "value": "kill", "whole_word": true}`,
			"a useful skill", nil, true, `none of "kill" found`},
		// The pitfall the task guide warns about: forbidding "meat" trips on
		// a good vegetarian answer that says "meat-free", with or without
		// whole_word, because '-' is a word boundary.
		{"meat pitfall: substring", `{"type": "not_contains", "value": "meat"}`,
			veggieGood, nil, false, `found forbidden "meat" on line 1 (in "A meat-free weeknight chilli: beans,…")`},
		{"meat pitfall: whole_word", `{"type": "not_contains", "value": "meat", "whole_word": true}`,
			veggieGood, nil, false, `found forbidden "meat" on line 1 (in "A meat-free weeknight chilli: beans,…")`},
		// The regex that means what is intended: no "meat" as a word, except
		// in "meat-free" or after "no".
		{"meat regex: good answer passes", `{"type": "regex", "label": "no meat", "pattern": "(?i)\\A(?!.*(?<!no )\\bmeat\\b(?!-free))"}`,
			veggieGood, nil, true, `no meat: matched ""`},
		{"meat regex: meaty answer fails", `{"type": "regex", "label": "no meat", "pattern": "(?i)\\A(?!.*(?<!no )\\bmeat\\b(?!-free))"}`,
			"A meat-free base, then add minced meat.", nil, false, `no meat: no match for /(?i)\A(?!.*(?<!no )\bmeat\b(?!-free))/: its negative lookahead tripped on "meat" on line 1 (in "…at-free base, then add minced meat.")`},
	})
}

func TestToolCheckers(t *testing.T) {
	weather := []lm.ToolCall{{Name: "get_weather", Args: map[string]any{"location": "Paris, France", "days": json.Number("3")}}}
	flights := []lm.ToolCall{{Name: "search_flights", Args: map[string]any{"from": "LHR", "to": "CDG"}}, {Name: "book_flight", Args: map[string]any{"flight": "BA304"}}}
	runCases(t, []checkCase{
		{"tool_called", `{"type": "tool_called", "tool": "get_weather"}`, "", weather, true, `called get_weather({"days":3,"location":"Paris, France"})`},
		{"tool_called args substring, any case", `{"type": "tool_called", "tool": "get_weather", "args": {"location": "paris"}}`, "", weather, true, `called get_weather({"days":3,"location":"Paris, France"})`},
		{"tool_called non-string arg", `{"type": "tool_called", "tool": "get_weather", "args": {"days": 3}}`, "", weather, true, `called get_weather({"days":3,"location":"Paris, France"})`},
		{"tool_called wrong arg", `{"type": "tool_called", "tool": "get_weather", "args": {"location": "London"}}`, "", weather, false,
			`get_weather called, but the arguments did not match: get_weather({"days":3,"location":"Paris, France"}): location is "Paris, France", want it to contain "London"`},
		{"tool_called missing arg", `{"type": "tool_called", "tool": "get_weather", "args": {"units": "C"}}`, "", weather, false,
			`get_weather called, but the arguments did not match: get_weather({"days":3,"location":"Paris, France"}): units missing (want "C")`},
		{"tool_called not called", `{"type": "tool_called", "tool": "get_weather"}`, "It is sunny.", nil, false, `get_weather not called (calls: none)`},
		{"tool_called other tools", `{"type": "tool_called", "tool": "get_weather"}`, "", flights, false, `get_weather not called (calls: search_flights, book_flight)`},
		{"tool_called unparsable args", `{"type": "tool_called", "tool": "get_weather", "args": {"location": "Paris"}}`, "",
			[]lm.ToolCall{{Name: "get_weather", RawArgs: `{"location": "Par`}}, false,
			`get_weather called, but the arguments did not match: get_weather({"location": "Par): location missing (want "Paris")`},
		{"tool_not_called passes", `{"type": "tool_not_called", "tool": "book_flight"}`, "", weather, true, `book_flight not called (calls: get_weather)`},
		{"tool_not_called fails", `{"type": "tool_not_called", "tool": "book_flight"}`, "", flights, false, `called book_flight({"flight":"BA304"})`},
	})
}

func TestAll(t *testing.T) {
	const checker = `{"type": "all", "checks": [
		{"type": "contains", "value": "chickpeas", "label": "uses chickpeas"},
		{"type": "not_contains", "values": ["bacon", "chicken"], "whole_word": true, "label": "vegetarian"},
		{"type": "word_count", "max": 12},
		{"type": "all", "label": "nested", "checks": [{"type": "regex", "pattern": "(?i)serves \\d"}]}
	]}`
	runCases(t, []checkCase{
		{"every check passes", checker, "Chickpea curry with chickpeas and spinach. Serves 4.", nil, true, `all 4 checks passed`},
		{"each miss is named", checker, "Chicken curry with spinach, rice, yoghurt, coriander, garlic and plenty of fresh ginger.", nil, false,
			`4 of 4 checks failed: uses chickpeas: missing "chickpeas"; vegetarian: found forbidden "Chicken" on line 1 (in "Chicken curry with spinach, rice, yog…"); checker.checks[2] (word_count): 13 words; want at most 12; nested: 1 of 1 checks failed: checker.checks[3].checks[0] (regex): no match for /(?i)serves \d/`},
	})
}

func TestCompileErrors(t *testing.T) {
	registered := strings.Join(Types(), ", ")
	require.Contains(t, registered, "all, computed, contains, ", "the list is sorted")
	tests := []struct {
		name    string
		checker string
		want    string
	}{
		{"not an object", `"contains"`, `checker: must be an object such as {"type": "contains", "value": "..."}`},
		{"missing type", `{"value": "x"}`, `checker.type: missing; registered types: ` + registered},
		{"unknown type", `{"type": "regexp", "pattern": "x"}`, `checker.type: unknown checker type "regexp"; registered types: ` + registered},
		{"unknown field", `{"type": "contains", "value": "x", "whole_words": true}`, `checker (contains): unknown field "whole_words" (did you mean "whole_word"?); its fields are label, lines, section, type, value, values, view, whole_word`},
		{"misspelt field in a check", `{"type": "all", "checks": [{"type": "regex", "pattern": "a"}, {"type": "contains", "value": "b"}, {"type": "contains", "valeu": "c"}]}`,
			`checker.checks[2] (contains): unknown field "valeu" (did you mean "value"?); its fields are label, lines, section, type, value, values, view, whole_word`},
		{"misspelt required field", `{"type": "regex", "patern": "a"}`,
			`checker (regex): unknown field "patern" (did you mean "pattern"?); its fields are label, lines, pattern, section, type, view`},
		{"field in the wrong case", `{"type": "contains", "Value": "a"}`,
			`checker (contains): unknown field "Value" (did you mean "value"?); its fields are label, lines, section, type, value, values, view, whole_word`},
		{"several unknown fields", `{"type": "contains", "value": "a", "wholeword": true, "text": "b"}`,
			`checker (contains): unknown fields "text", "wholeword" (did you mean "whole_word"?); its fields are label, lines, section, type, value, values, view, whole_word`},
		// An unknown field is blamed before another error only when it is
		// a near miss of a field the node lacks.
		{"unknown field unlike the missing one", `{"type": "contains", "text": "b"}`, `checker: missing "value" (one string) or "values" (a list of strings)`},
		{"near miss of a field that is set", `{"type": "regex", "pattern": 3, "patten": "b"}`, `checker.pattern: must be a string, not the number 3`},
		{"wrong type", `{"type": "contains", "value": 3}`, `checker.value: must be a string, not the number 3`},
		{"list of the wrong type", `{"type": "contains", "values": ["a", 3]}`, `checker.values: must be a list of strings, not a list holding a number`},
		{"label must be a string", `{"type": "contains", "value": "x", "label": 1}`, `checker.label: must be a string, not the number 1`},
		{"value and values", `{"type": "contains", "value": "a", "values": ["b"]}`, `checker: set "value" or "values", not both`},
		{"no value", `{"type": "not_contains"}`, `checker: missing "value" (one string) or "values" (a list of strings)`},
		{"empty value", `{"type": "contains", "values": ["a", " "]}`, `checker.values[1]: is empty; an empty string is in every response`},
		{"bad regex", `{"type": "regex", "pattern": "(unclosed"}`, `checker.pattern: invalid regex: error parsing regexp: missing closing ) in ` + "`(unclosed`"},
		{"missing pattern", `{"type": "regex"}`, `checker.pattern: missing; a regular expression in Python syntax, e.g. "(?i)notice period:\\s*2 months"`},
		{"nested path", `{"type": "all", "checks": [{"type": "contains", "value": "a"}, {"type": "all", "checks": [{"type": "regex", "pattern": "a"}, {"type": "regex", "pattern": "[z-a]"}]}]}`,
			`checker.checks[1].checks[1].pattern: invalid regex: error parsing regexp: [z-a] range in reverse order in ` + "`[z-a]`"},
		{"empty all", `{"type": "all", "checks": []}`, `checker.checks: is empty; list at least one checker`},
		{"all without checks", `{"type": "all"}`, `checker.checks: missing; a list of checker nodes such as [{"type": "regex", "pattern": "...", "label": "..."}]`},
		{"max_words is retired", `{"type": "max_words", "max": 12}`, `checker.type: "max_words" is no longer a checker type; write {"type": "word_count", "max": N} instead (it counts only words that hold a letter or digit)`},
		{"tool_called args", `{"type": "tool_called", "tool": "x", "args": ["a"]}`, `checker.args: must be an object, not a list`},
		{"tool_not_called tool", `{"type": "tool_not_called"}`, `checker.tool: missing; the name of the tool the model must not call, e.g. "book_flight"`},
		{"python test_code", `{"type": "python_tests", "test_code": ""}`, `checker.test_code: is empty; it must import solution and test it`},
		{"python timeout", `{"type": "python_tests", "test_code": "import solution", "timeout_s": -1}`, `checker.timeout_s: must be a number of seconds between 0 and 3600, not -1`},
		{"json schema", `{"type": "json_schema", "schema": {"type": "objekt"}}`, `checker.schema: invalid schema: `},

		{"sql setup", `{"type": "sql_result", "setup_sql": "CREATE TABLE t(", "expected_rows": []}`, `checker.setup_sql: `},
		{"sql cell", `{"type": "sql_result", "expected_rows": [[1, [2]]]}`, `checker.expected_rows[0][1]: must be a string, number, boolean or null (one cell), not a list`},
		{"sql cell object", `{"type": "sql_result", "expected_rows": [[{"a": 1}]]}`, `checker.expected_rows[0][0]: must be a string, number, boolean or null (one cell), not an object`},
		{"sql rows", `{"type": "sql_result", "expected_rows": [1]}`, `checker.expected_rows: must be a list of lists, not a list holding a number`},
		{"numeric tolerance", `{"type": "numeric_close", "value": 1, "abs_tol": -0.5}`, `checker.abs_tol: must be a non-negative number, not -0.5`},
		{"both tolerances negative", `{"type": "numeric_close", "value": 1, "abs_tol": -0.5, "rel_tol": -2}`, `checker.rel_tol: must be a non-negative number, not -2`},
		{"numeric value", `{"type": "numeric_close", "value": "1"}`, `checker.value: must be a number, not a string`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile("checker", json.RawMessage(tt.checker))
			require.Error(t, err)
			if tt.want[len(tt.want)-1] == ' ' { // messages from a library: check our prefix
				assert.Contains(t, err.Error(), tt.want)
				assert.Equal(t, 0, indexOf(err.Error(), tt.want))
				return
			}
			assert.Equal(t, tt.want, err.Error())
		})
	}
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

func TestRegisterComposes(t *testing.T) {
	// A type registered from outside composes with all at once.
	t.Cleanup(func() {
		mu.Lock()
		delete(registry, "test_shouts")
		mu.Unlock()
	})
	Register("test_shouts", func(s *Spec) (Func, error) {
		return func(_ context.Context, r Response) (bool, string, error) {
			return r.Text != "" && r.Text == upper(r.Text), "shouting check", nil
		}, nil
	})
	runCases(t, []checkCase{
		{"nested custom type", `{"type": "all", "checks": [{"type": "test_shouts"}, {"type": "contains", "value": "hi"}]}`, "HI THERE", nil, true, `all 2 checks passed`},
		{"custom type miss", `{"type": "all", "checks": [{"type": "test_shouts", "label": "shouts"}]}`, "hi", nil, false, `1 of 1 checks failed: shouts: shouting check`},
	})
	assert.Panics(t, func() { Register("test_shouts", nil) })
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 32
		}
	}
	return string(b)
}

// TestJSONSchemaStandsAlone: a schema's $ref to a file (valid schema and
// all) or a URL is refused, so loading a task reads neither the disk nor
// the network; references inside the schema still work.
func TestJSONSchemaStandsAlone(t *testing.T) {
	file := filepath.Join(t.TempDir(), "name.json")
	require.NoError(t, os.WriteFile(file, []byte(`{"type": "string"}`), 0o644))
	for _, ref := range []string{"file://" + file, "http://127.0.0.1:9/name.json"} {
		_, err := Compile("checker", json.RawMessage(`{"type": "json_schema", "schema": {"properties": {"name": {"$ref": "`+ref+`"}}}}`))
		require.Error(t, err, ref)
		assert.True(t, strings.HasPrefix(err.Error(), "checker.schema: invalid schema: "), err.Error())
	}
	check, err := Compile("checker", json.RawMessage(`{"type": "json_schema", "schema": {"$schema": "http://json-schema.org/draft-07/schema#",
		"definitions": {"n": {"type": "string"}}, "properties": {"name": {"$ref": "#/definitions/n"}}}}`))
	require.NoError(t, err, "local references and a draft's metaschema resolve")
	ok, _, err := check(context.Background(), Response{Text: `{"name": 3}`})
	require.NoError(t, err)
	assert.False(t, ok)
}
