package checkers

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/feather-eval/feather/harness/sandbox"
)

func init() { Register("python_tests", compilePythonTests) }

// DefaultPythonTimeout applies when a python_tests node has no timeout_s.
const DefaultPythonTimeout = 10 * time.Second

// outputTail is how much of the test output a detail keeps.
const outputTail = 1500

// python_tests: the response's solution (PythonSolution) is saved as
// solution.py, test_code beside it as test_solution.py, and
// `python3 test_solution.py` must exit 0 within timeout_s. It runs in the
// sandbox: a fresh directory, PATH as the only variable, the process group
// killed at the deadline.
func compilePythonTests(s *Spec) (Func, error) {
	var testCode string
	s.Require("test_code", &testCode, "Python that imports solution and exits non-zero on failure (asserts or unittest.main())")
	timeout := s.timeout(DefaultPythonTimeout)
	if s.Err() != nil {
		return nil, s.Err()
	}
	if strings.TrimSpace(testCode) == "" {
		return nil, s.Errorf("test_code", "is empty; it must import solution and test it")
	}
	return func(ctx context.Context, r Response) (bool, string, error) {
		code, ok := PythonSolution(r.Text)
		if !ok {
			return false, "no fenced code block in the response", nil
		}
		res, err := sandbox.Run(ctx, sandbox.Files{"solution.py": code, "test_solution.py": testCode}, timeout, "python3", "test_solution.py")
		if err != nil {
			return false, "", err
		}
		out := tailOf(res.Output, outputTail)
		switch {
		case res.TimedOut:
			return false, fmt.Sprintf("timed out after %v%s", timeout, out), nil
		case res.ExitCode != 0:
			return false, fmt.Sprintf("tests failed (exit status %d)%s", res.ExitCode, out), nil
		}
		return true, "tests passed" + out, nil
	}, nil
}

// tailOf formats the last n bytes of output for a detail (": ..." or "").
func tailOf(output string, n int) string {
	output = strings.TrimSpace(output)
	if output == "" {
		return ""
	}
	if len(output) > n {
		cut := len(output) - n
		for cut < len(output) && output[cut]&0xC0 == 0x80 {
			cut++ // don't split a UTF-8 sequence
		}
		output = "…" + output[cut:]
	}
	return ": " + output
}
