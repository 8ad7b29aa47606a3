package checkers

import (
	"context"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func pythonChecker(testCode string, timeoutS float64) string {
	b, _ := json.Marshal(map[string]any{"type": "python_tests", "test_code": testCode, "timeout_s": timeoutS})
	return string(b)
}

const addTests = "from solution import add\nassert add(2, 3) == 5, add(2, 3)\nassert add(-1, 1) == 0\nprint('2 tests ok')\n"

func TestPythonTests(t *testing.T) {
	runCases(t, []checkCase{
		{"good answer passes", pythonChecker(addTests, 10),
			"Here you go:\n```python\ndef add(a, b):\n    return a + b\n```\n", nil, true, "tests passed: 2 tests ok"},
		{"wrong answer fails with the traceback tail", pythonChecker(addTests, 10),
			"```python\ndef add(a, b):\n    return a - b\n```", nil, false,
			"tests failed (exit status 1): Traceback (most recent call last):\n  File \"test_solution.py\", line 2, in <module>\n    assert add(2, 3) == 5, add(2, 3)\n           ^^^^^^^^^^^^^^\nAssertionError: -1"},
		{"the last python block is the solution", pythonChecker(addTests, 10),
			"Buggy:\n```python\ndef add(a, b):\n    return a - b\n```\nFixed:\n```py\ndef add(a, b):\n    return a + b\n```\nUsage:\n```\nadd(2, 3)\n```", nil, true, "tests passed: 2 tests ok"},
		{"else the largest block", pythonChecker(addTests, 10),
			"```\nadd(2, 3)\n```\n```\ndef add(a, b):\n    return a + b\n```", nil, true, "tests passed: 2 tests ok"},
		{"no block", pythonChecker(addTests, 10), "def add(a, b): return a + b", nil, false, "no fenced code block in the response"},
	})
}

func TestPythonTestsUnittest(t *testing.T) {
	f, err := Compile("checker", json.RawMessage(pythonChecker("import unittest\nfrom solution import add\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\nunittest.main()\n", 10)))
	require.NoError(t, err)
	passed, detail, err := f(context.Background(), Response{Text: "```python\ndef add(a, b):\n    return 0\n```"})
	require.NoError(t, err)
	assert.False(t, passed)
	assert.True(t, strings.HasPrefix(detail, "tests failed (exit status 1): F\n"), detail)
	assert.Contains(t, detail, "AssertionError: 0 != 5")
	assert.True(t, strings.HasSuffix(detail, "FAILED (failures=1)"), detail)
}

func TestPythonTestsHidesTheAPIKey(t *testing.T) {
	t.Setenv("OPENROUTER_API_KEY", "sk-or-v1-feather-test-secret")
	f, err := Compile("checker", json.RawMessage(pythonChecker(
		"import solution\nprint(sorted(solution.ENV))\nassert solution.KEY is None, 'the key leaked'\n", 10)))
	require.NoError(t, err)
	answer := "```python\nimport os\nKEY = os.environ.get('OPENROUTER_API_KEY')\nENV = {k for k in os.environ if 'KEY' in k or 'TOKEN' in k}\n```"
	passed, detail, err := f(context.Background(), Response{Text: answer})
	require.NoError(t, err)
	assert.True(t, passed, detail)
	assert.Equal(t, "tests passed: []", detail)
	assert.NotContains(t, detail, "sk-or")
}

func TestPythonTestsKillsTheProcessGroupAtTheTimeout(t *testing.T) {
	f, err := Compile("checker", json.RawMessage(pythonChecker("import solution\n", 5)))
	require.NoError(t, err)
	// The answer starts a grandchild that would outlive the deadline, then
	// blocks itself.
	answer := "```python\nimport subprocess, time\np = subprocess.Popen(['sleep', '120'])\nprint(p.pid, flush=True)\ntime.sleep(120)\n```"
	start := time.Now()
	passed, detail, err := f(context.Background(), Response{Text: answer})
	elapsed := time.Since(start)
	require.NoError(t, err)
	assert.False(t, passed)
	require.True(t, strings.HasPrefix(detail, "timed out after 5s: "), detail)
	assert.Less(t, elapsed, 8*time.Second, "the check must return soon after timeout_s")
	pid, err := strconv.Atoi(strings.TrimPrefix(detail, "timed out after 5s: "))
	require.NoError(t, err, detail)
	assert.False(t, processRunning(pid), "the grandchild %d must be killed with its group", pid)
}

// processRunning reports whether pid is alive (a zombie awaiting its reaper
// is not).
func processRunning(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(stat)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(fields) > 0 && fields[0] != "Z"
}

func TestJSONSchema(t *testing.T) {
	const checker = `{"type": "json_schema", "schema": {
		"type": "object", "required": ["name", "deposit"],
		"properties": {"name": {"type": "string"}, "deposit": {"type": "number", "minimum": 0}},
		"additionalProperties": false}}`
	runCases(t, []checkCase{
		{"fenced json", checker, "Extracted:\n```json\n{\"name\": \"Ada\", \"deposit\": 1200}\n```", nil, true, "the last ```json block matches the schema"},
		{"bare object in prose", checker, `The record is {"name": "Ada", "deposit": 1200} as requested.`, nil, true, "the first {...} object in the text matches the schema"},
		{"braces before the object", checker, `Use {placeholders} like so: {"name": "Ada", "deposit": 0}`, nil, true, "the first {...} object in the text matches the schema"},
		{"unlabelled fence", checker, "```\n{\"name\": \"Ada\", \"deposit\": 5}\n```", nil, true, "the last fenced block holding JSON matches the schema"},
		{"schema violation", checker, "```json\n{\"name\": \"Ada\", \"deposit\": -5, \"extra\": 1}\n```", nil, false,
			"the last ```json block does not match the schema: at '': additional properties 'extra' not allowed; at '/deposit': minimum: got -5, want 0"},
		{"missing property", checker, "```json\n{\"name\": \"Ada\"}\n```", nil, false,
			"the last ```json block does not match the schema: at '': missing property 'deposit'"},
		{"invalid json", checker, "```json\n{\"name\": \"Ada\",}\n```", nil, false,
			"the last ```json block is not valid JSON: invalid character '}' looking for beginning of object key string"},
		{"no json", checker, "The tenant is Ada.", nil, false, "no JSON found (no ```json block, fenced JSON or {...} object)"},
	})
}

func TestSQLResult(t *testing.T) {
	const setup = `CREATE TABLE orders(id INTEGER, customer TEXT, total REAL);
		INSERT INTO orders VALUES (1, 'ada', 10.5), (2, 'bob', 3), (3, 'ada', 4.5), (4, NULL, 1);`
	checker := func(expected string, ordered bool) string {
		b, _ := json.Marshal(map[string]any{"type": "sql_result", "setup_sql": setup, "expected_rows": json.RawMessage(expected), "ordered": ordered})
		return string(b)
	}
	byCustomer := checker(`[["ada", 15], ["bob", 3], [null, 1]]`, false)
	runCases(t, []checkCase{
		{"unordered match", byCustomer, "```sql\nSELECT customer, SUM(total) FROM orders GROUP BY customer;\n```", nil, true, "3 rows match (in any order)"},
		{"the last sql block is the query", byCustomer, "First try:\n```sql\nSELECT 1;\n```\nBetter:\n```sql\nSELECT customer, SUM(total) AS s FROM orders GROUP BY customer ORDER BY s\n```", nil, true, "3 rows match (in any order)"},
		{"ordered mismatch", checker(`[["ada", 15], ["bob", 3], [null, 1]]`, true), "```sql\nSELECT customer, SUM(total) AS s FROM orders GROUP BY customer ORDER BY s\n```", nil, false,
			`rows differ (in order): got [null, 1] ["bob", 3] ["ada", 15], want ["ada", 15] ["bob", 3] [null, 1]`},
		{"ordered match", checker(`[[1], [2.0], [3]]`, true), "```sql\nSELECT id FROM orders WHERE customer IS NOT NULL ORDER BY id\n```", nil, true, "3 rows match (in order)"},
		{"text is not a number", checker(`[["1"]]`, false), "```sql\nSELECT id FROM orders WHERE id = 1\n```", nil, false, `rows differ (in any order): got [1], want ["1"]`},
		{"query error is a failed answer", byCustomer, "```sql\nSELECT nope FROM orders\n```", nil, false, "the query failed: SQL logic error: no such column: nope (1)"},
		{"no sql block", byCustomer, "SELECT customer FROM orders", nil, false, "no ```sql block in the response"},
		{"the model cannot change the fixture for later trials", checker(`[[4]]`, false), "```sql\nSELECT COUNT(*) FROM orders\n```", nil, true, "1 rows match (in any order)"},
	})
	// A destructive answer runs on its own copy of the fixture.
	f, err := Compile("checker", json.RawMessage(checker(`[[0]]`, false)))
	require.NoError(t, err)
	ok, _, err := f(context.Background(), Response{Text: "```sql\nDELETE FROM orders;\n```"})
	require.NoError(t, err)
	assert.False(t, ok)
	g, err := Compile("checker", json.RawMessage(checker(`[[4]]`, false)))
	require.NoError(t, err)
	ok, detail, err := g(context.Background(), Response{Text: "```sql\nSELECT COUNT(*) FROM orders\n```"})
	require.NoError(t, err)
	assert.True(t, ok, detail)
}

func TestSQLResultTimeout(t *testing.T) {
	f, err := Compile("checker", json.RawMessage(`{"type": "sql_result", "expected_rows": [[1]], "timeout_s": 0.5}`))
	require.NoError(t, err)
	runaway := "```sql\nWITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT COUNT(*) FROM c\n```"
	ok, detail, err := f(context.Background(), Response{Text: runaway})
	require.NoError(t, err)
	assert.False(t, ok)
	assert.Equal(t, "the query did not finish within 500ms", detail)
}

func TestNumericClose(t *testing.T) {
	runCases(t, []checkCase{
		{"last number within abs_tol", `{"type": "numeric_close", "value": 1250.5, "abs_tol": 0.5}`,
			"Step 1: 1,000 + 250 = 1,250. Total: 1,250.75", nil, true, "1250.75 (the last number); want 1250.5 ± 0.5, off by 0.25"},
		{"last number outside tolerance", `{"type": "numeric_close", "value": 1250.5, "abs_tol": 0.1}`,
			"Total: 1,250.75", nil, false, "1250.75 (the last number); want 1250.5 ± 0.1, off by 0.25"},
		{"rel_tol", `{"type": "numeric_close", "value": 200, "rel_tol": 0.05}`,
			"about 209", nil, true, "209 (the last number); want 200 ± 10, off by 9"},
		{"exact by default", `{"type": "numeric_close", "value": 42}`,
			"The answer is 42.", nil, true, "42 (the last number); want 42 ± 0, off by 0"},
		{"negative and unicode minus", `{"type": "numeric_close", "value": -3.5}`,
			"Change: −3.5", nil, true, "-3.5 (the last number); want -3.5 ± 0, off by 0"},
		{"hyphen after a word is not a sign", `{"type": "numeric_close", "value": 19}`,
			"COVID-19", nil, true, "19 (the last number); want 19 ± 0, off by 0"},
		{"first number after the pattern", `{"type": "numeric_close", "value": 600, "pattern": "(?i)deposit"}`,
			"Rent 1200 a month. Deposit: £600 (refundable within 10 days).", nil, true, "600 (the first number after /(?i)deposit/); want 600 ± 0, off by 0"},
		{"capture group", `{"type": "numeric_close", "value": 2, "pattern": "notice period of (\\S+) months"}`,
			"a notice period of 2 months, rent 1200", nil, true, "2 (group 1 of /notice period of (\\S+) months/); want 2 ± 0, off by 0"},
		{"pattern not found", `{"type": "numeric_close", "value": 600, "pattern": "(?i)deposit"}`,
			"Rent 1200 a month.", nil, false, "no number found for /(?i)deposit/"},
		{"no number", `{"type": "numeric_close", "value": 1}`, "none", nil, false, "no number found in the response"},
		{"pattern after non-ASCII text", `{"type": "numeric_close", "value": 7, "pattern": "total"}`,
			"café ☕ 1 — total 7", nil, true, "7 (the first number after /total/); want 7 ± 0, off by 0"},
	})
}

func TestNumbers(t *testing.T) {
	tests := []struct {
		text string
		want []float64
	}{
		{"1,234.5 and 6.02e23", []float64{1234.5, 6.02e23}},
		{"2026-07-04", []float64{2026, 7, 4}},
		{"from -5 to +3, .5", []float64{-5, 3, 0.5}},
		{"v2 costs $3", []float64{2, 3}},
		{"no digits. e", nil},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Numbers(tt.text), tt.text)
	}
}

func TestBlocks(t *testing.T) {
	text := "intro\n```Python title=x\nprint(1)\n```\n  ~~~~\ninner ```\n~~~~\n```js\nopen to the end\n"
	assert.Equal(t, []Block{
		{Lang: "python", Body: "print(1)\n"},
		{Lang: "", Body: "inner ```\n"},
		{Lang: "js", Body: "open to the end\n"},
	}, Blocks(text))
	assert.Empty(t, Blocks("inline ```code``` only"))
}
