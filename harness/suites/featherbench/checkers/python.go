package checkers

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/feather-eval/feather/harness/suites/featherbench/sandbox"
)

func init() { Register("python_tests", compilePythonTests) }

// DefaultPythonTimeout applies when a python_tests node has no timeout_s.
const DefaultPythonTimeout = 10 * time.Second

// outputTail is how much of the test output a detail keeps.
const outputTail = 1500

// python_tests: the response's solution (PythonSolution) is saved as
// solution.py, test_code beside it as test_solution.py, and
// `python3 test_solution.py` must exit 0 within timeout_s. It runs in the
// sandbox (harness/suites/featherbench/sandbox) under its default limits: a fresh directory,
// PATH as the only variable, no network, the process tree killed at the
// deadline. The detail names the isolation in force ("[sandbox: bwrap]")
// and any limit the run hit, and carries no pids or timings, so the same
// answer gets the same detail on the same machine.
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
		return res.ExitCode == 0 && !res.TimedOut && !res.OutputExceeded && res.Signal == "",
			pythonDetail(res, timeout), nil
	}, nil
}

// pythonDetail says how a run ended, in which sandbox, and the output's
// tail.
func pythonDetail(res sandbox.Result, timeout time.Duration) string {
	var status string
	switch {
	case res.TimedOut:
		status = fmt.Sprintf("timed out after %v", timeout)
	case res.OutputExceeded:
		status = "killed: output exceeded " + sandbox.FormatSize(res.Limits.Output)
	case res.Signal != "":
		status = "killed by " + res.Signal + signalLimit(res)
	case res.ExitCode != 0:
		status = fmt.Sprintf("tests failed (exit status %d%s)", res.ExitCode, exceptionLimit(res))
	default:
		status = "tests passed"
	}
	return status + " [sandbox: " + res.Isolation + "]" + tailOf(res.Output, outputTail)
}

// signalLimit names the limit behind a signal the kernel sends for one.
func signalLimit(res sandbox.Result) string {
	switch res.Signal {
	case "SIGXFSZ":
		return " (file size limit " + sandbox.FormatSize(res.Limits.FileSize) + ")"
	case "SIGXCPU":
		return fmt.Sprintf(" (CPU time limit %v)", res.Limits.CPU)
	}
	return ""
}

// exceptionLimit names the limit behind the exception Python ends with
// when a limit stops it: the last line of its traceback.
func exceptionLimit(res sandbox.Result) string {
	out := strings.TrimSpace(res.Output)
	last := out[strings.LastIndexByte(out, '\n')+1:]
	switch {
	case strings.HasPrefix(last, "MemoryError"):
		return "; address space limit " + sandbox.FormatSize(res.Limits.AddressSpace)
	case strings.HasPrefix(last, "BlockingIOError: [Errno 11]"):
		return fmt.Sprintf("; process limit %d", res.Limits.Processes)
	case strings.Contains(last, "[Errno 27] File too large"):
		return "; file size limit " + sandbox.FormatSize(res.Limits.FileSize)
	}
	return ""
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
