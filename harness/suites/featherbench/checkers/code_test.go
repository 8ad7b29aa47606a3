package checkers

import (
	"context"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/feather-eval/feather/harness/suites/featherbench/sandbox"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func pythonChecker(testCode string, timeoutS float64) string {
	b, _ := json.Marshal(map[string]any{"type": "python_tests", "test_code": testCode, "timeout_s": timeoutS})
	return string(b)
}

const addTests = "from solution import add\nassert add(2, 3) == 5, add(2, 3)\nassert add(-1, 1) == 0\nprint('2 tests ok')\n"

// sandboxTag is how python_tests details name the isolation here. Where
// none works, the test skips with the fix, or fails under `make test`
// (FEATHER_REQUIRE_DEPS, as internal/testenv reads it).
func sandboxTag(t *testing.T) string {
	t.Helper()
	m, err := sandbox.Isolation()
	require.NoError(t, err)
	if m == sandbox.None {
		msg := "no isolation works here, so python_tests refuses to run: install bubblewrap (make browser-deps)"
		if os.Getenv("FEATHER_REQUIRE_DEPS") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return " [sandbox: " + m.Describe() + "]"
}

func TestPythonTests(t *testing.T) {
	tag := sandboxTag(t)
	runCases(t, []checkCase{
		{"good answer passes", pythonChecker(addTests, 10),
			"Here you go:\n```python\ndef add(a, b):\n    return a + b\n```\n", nil, true, "tests passed" + tag + ": 2 tests ok"},
		{"wrong answer fails with the traceback tail", pythonChecker(addTests, 10),
			"```python\ndef add(a, b):\n    return a - b\n```", nil, false,
			"tests failed (exit status 1)" + tag + ": Traceback (most recent call last):\n  File \"test_solution.py\", line 2, in <module>\n    assert add(2, 3) == 5, add(2, 3)\n           ^^^^^^^^^^^^^^\nAssertionError: -1"},
		{"the last python block is the solution", pythonChecker(addTests, 10),
			"Buggy:\n```python\ndef add(a, b):\n    return a - b\n```\nFixed:\n```py\ndef add(a, b):\n    return a + b\n```\nUsage:\n```\nadd(2, 3)\n```", nil, true, "tests passed" + tag + ": 2 tests ok"},
		{"else the largest block", pythonChecker(addTests, 10),
			"```\nadd(2, 3)\n```\n```\ndef add(a, b):\n    return a + b\n```", nil, true, "tests passed" + tag + ": 2 tests ok"},
		{"no block", pythonChecker(addTests, 10), "def add(a, b): return a + b", nil, false, "no fenced code block in the response"},
		// Hostile answers: the sandbox's own tests hold every mode to
		// these; here they show what a record says.
		{"printing 1 GB is cut off", pythonChecker(addTests, 10),
			"```python\nimport sys\nfor _ in range(1024):\n    sys.stdout.write('x' * (1 << 20))\n```", nil, false,
			"killed: output exceeded 16 MiB" + tag + ": …" + strings.Repeat("x", outputTail)},
		{"allocating 10 GB fails", pythonChecker(addTests, 10),
			"```python\nb = bytearray(10 << 30)\n```", nil, false,
			"tests failed (exit status 1; address space limit 1 GiB)" + tag + ": Traceback (most recent call last):\n  File \"test_solution.py\", line 1, in <module>\n    from solution import add\n  File \"solution.py\", line 1, in <module>\n    b = bytearray(10 << 30)\n        ^^^^^^^^^^^^^^^^^^^\nMemoryError"},
	})
}

func TestPythonTestsUnittest(t *testing.T) {
	tag := sandboxTag(t)
	f, err := Compile("checker", json.RawMessage(pythonChecker("import unittest\nfrom solution import add\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\nunittest.main()\n", 10)))
	require.NoError(t, err)
	passed, detail, err := f(context.Background(), Response{Text: "```python\ndef add(a, b):\n    return 0\n```"})
	require.NoError(t, err)
	assert.False(t, passed)
	assert.True(t, strings.HasPrefix(detail, "tests failed (exit status 1)"+tag+": F\n"), detail)
	assert.Contains(t, detail, "AssertionError: 0 != 5")
	assert.True(t, strings.HasSuffix(detail, "FAILED (failures=1)"), detail)
}

func TestPythonTestsHidesTheAPIKey(t *testing.T) {
	tag := sandboxTag(t)
	t.Setenv("OPENROUTER_API_KEY", "sk-or-v1-feather-test-secret")
	f, err := Compile("checker", json.RawMessage(pythonChecker(
		"import solution\nprint(sorted(solution.ENV))\nassert solution.KEY is None, 'the key leaked'\n", 10)))
	require.NoError(t, err)
	answer := "```python\nimport os\nKEY = os.environ.get('OPENROUTER_API_KEY')\nENV = {k for k in os.environ if 'KEY' in k or 'TOKEN' in k}\n```"
	passed, detail, err := f(context.Background(), Response{Text: answer})
	require.NoError(t, err)
	assert.True(t, passed, detail)
	assert.Equal(t, "tests passed"+tag+": []", detail)
	assert.NotContains(t, detail, "sk-or")
}

func TestPythonTestsKillsTheProcessTreeAtTheTimeout(t *testing.T) {
	tag := sandboxTag(t)
	f, err := Compile("checker", json.RawMessage(pythonChecker("import solution\n", 2)))
	require.NoError(t, err)
	// The answer starts a grandchild that would outlive the deadline, in a
	// session of its own, then blocks itself. The grandchild's pid is the
	// sandbox's, so it is found by its unique command line instead.
	mark := "60." + strconv.Itoa(os.Getpid())
	answer := "```python\nimport subprocess, time\nsubprocess.Popen(['sleep', '" + mark + "'], start_new_session=True)\ntime.sleep(120)\n```"
	start := time.Now()
	passed, detail, err := f(context.Background(), Response{Text: answer})
	elapsed := time.Since(start)
	require.NoError(t, err)
	assert.False(t, passed)
	assert.Equal(t, "timed out after 2s"+tag, detail)
	assert.Less(t, elapsed, 5*time.Second, "the check must return soon after timeout_s")
	assert.Empty(t, processesWithArg(mark), "the grandchild must be killed with the tree")
}

// processesWithArg lists the live processes (zombies awaiting their reaper
// are not) with arg among their arguments.
func processesWithArg(arg string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		stat, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
		s := string(stat)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if strings.Contains(string(cmdline), "\x00"+arg+"\x00") && len(fields) > 0 && fields[0] != "Z" {
			pids = append(pids, pid)
		}
	}
	return pids
}

func TestPythonDetail(t *testing.T) {
	lim := sandbox.Limits{CPU: 3 * time.Second, AddressSpace: 1 << 30, Processes: 64, FileSize: 64 << 20, Output: 16 << 20}
	tests := []struct {
		name string
		res  sandbox.Result
		want string
	}{
		{"passed", sandbox.Result{Output: "ok\n"}, "tests passed [sandbox: bwrap]: ok"},
		{"failed", sandbox.Result{ExitCode: 2, Output: "AssertionError"}, "tests failed (exit status 2) [sandbox: bwrap]: AssertionError"},
		{"timed out", sandbox.Result{ExitCode: -1, Signal: "SIGKILL", TimedOut: true}, "timed out after 2s [sandbox: bwrap]"},
		{"output exceeded", sandbox.Result{ExitCode: -1, Signal: "SIGKILL", OutputExceeded: true, Output: "xxx"}, "killed: output exceeded 16 MiB [sandbox: bwrap]: xxx"},
		{"file size signal", sandbox.Result{ExitCode: -1, Signal: "SIGXFSZ"}, "killed by SIGXFSZ (file size limit 64 MiB) [sandbox: bwrap]"},
		{"CPU signal", sandbox.Result{ExitCode: -1, Signal: "SIGXCPU"}, "killed by SIGXCPU (CPU time limit 3s) [sandbox: bwrap]"},
		{"other signal", sandbox.Result{ExitCode: -1, Signal: "SIGSEGV"}, "killed by SIGSEGV [sandbox: bwrap]"},
		{"MemoryError", sandbox.Result{ExitCode: 1, Output: "Traceback:\nMemoryError\n"}, "tests failed (exit status 1; address space limit 1 GiB) [sandbox: bwrap]: Traceback:\nMemoryError"},
		{"fork refused", sandbox.Result{ExitCode: 1, Output: "BlockingIOError: [Errno 11] Resource temporarily unavailable"}, "tests failed (exit status 1; process limit 64) [sandbox: bwrap]: BlockingIOError: [Errno 11] Resource temporarily unavailable"},
		{"file too large", sandbox.Result{ExitCode: 1, Output: "OSError: [Errno 27] File too large"}, "tests failed (exit status 1; file size limit 64 MiB) [sandbox: bwrap]: OSError: [Errno 27] File too large"},
		{"MemoryError caught and reported", sandbox.Result{ExitCode: 1, Output: "MemoryError\nAssertionError"}, "tests failed (exit status 1) [sandbox: bwrap]: MemoryError\nAssertionError"},
		{"unisolated", sandbox.Result{ExitCode: 1, Isolation: "none (unisolated, opted out)"}, "tests failed (exit status 1) [sandbox: none (unisolated, opted out)]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.res.Isolation == "" {
				tt.res.Isolation = "bwrap"
			}
			tt.res.Limits = lim
			assert.Equal(t, tt.want, pythonDetail(tt.res, 2*time.Second))
		})
	}
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
			"Step 1: 1,000 + 250 = 1,250. Total: 1,250.75", nil, true, "read 1250.75 (the last number) on line 1 (in \"…: 1,000 + 250 = 1,250. Total: 1,250.75\"); want 1250.5 ± 0.5, off by 0.25"},
		{"last number outside tolerance", `{"type": "numeric_close", "value": 1250.5, "abs_tol": 0.1}`,
			"Total: 1,250.75", nil, false, "read 1250.75 (the last number) on line 1 (in \"Total: 1,250.75\"); want 1250.5 ± 0.1, off by 0.25"},
		{"rel_tol", `{"type": "numeric_close", "value": 200, "rel_tol": 0.05}`,
			"about 209", nil, true, "read 209 (the last number) on line 1 (in \"about 209\"); want 200 ± 10, off by 9"},
		{"the difference without binary noise", `{"type": "numeric_close", "value": 3.3, "rel_tol": 0.1}`,
			"Pace: 3.75", nil, false, "read 3.75 (the last number) on line 1 (in \"Pace: 3.75\"); want 3.3 ± 0.33, off by 0.45"},
		{"exact by default", `{"type": "numeric_close", "value": 42}`,
			"The answer is 42.", nil, true, "read 42 (the last number) on line 1 (in \"The answer is 42.\"); want 42 ± 0, off by 0"},
		{"negative and unicode minus", `{"type": "numeric_close", "value": -3.5}`,
			"Change: −3.5", nil, true, "read -3.5 (the last number) on line 1 (in \"Change: −3.5\"); want -3.5 ± 0, off by 0"},
		{"hyphen after a word is not a sign", `{"type": "numeric_close", "value": 19}`,
			"COVID-19", nil, true, "read 19 (the last number) on line 1 (in \"COVID-19\"); want 19 ± 0, off by 0"},
		{"first number after the pattern", `{"type": "numeric_close", "value": 600, "pattern": "(?i)deposit"}`,
			"Rent 1200 a month. Deposit: £600 (refundable within 10 days).", nil, true, "read 600 (the first number after /(?i)deposit/) on line 1 (in \"Rent 1200 a month. Deposit: £600 (refundable within 10 days).\"); want 600 ± 0, off by 0"},
		{"capture group", `{"type": "numeric_close", "value": 2, "pattern": "notice period of (\\S+) months"}`,
			"a notice period of 2 months, rent 1200", nil, true, "read 2 (group 1 of /notice period of (\\S+) months/) on line 1 (in \"a notice period of 2 months, rent 1200\"); want 2 ± 0, off by 0"},
		{"pattern not found", `{"type": "numeric_close", "value": 600, "pattern": "(?i)deposit"}`,
			"Rent 1200 a month.", nil, false, "no number found for /(?i)deposit/"},
		{"no number", `{"type": "numeric_close", "value": 1}`, "none", nil, false, "no number found in the response"},
		{"pattern after non-ASCII text", `{"type": "numeric_close", "value": 7, "pattern": "total"}`,
			"café ☕ 1 — total 7", nil, true, "read 7 (the first number after /total/) on line 1 (in \"café ☕ 1 — total 7\"); want 7 ± 0, off by 0"},
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
