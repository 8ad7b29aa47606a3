package featherbench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync"
)

// Record is one trial, the stable contract with anyone's tooling: the keys
// and their order are the spec's. Nullable values are pointers.
type Record struct {
	// RunID is the run's stamp, as in the file name.
	RunID    string `json:"run_id"`
	Task     string `json:"task"`
	TaskHash string `json:"task_hash"`
	Model    string `json:"model"`
	// Trial counts from 1.
	Trial int `json:"trial"`
	// Timestamp is when the trial started, UTC, RFC 3339.
	Timestamp string     `json:"timestamp"`
	Text      string     `json:"text"`
	ToolCalls []ToolCall `json:"tool_calls"`
	// Passed is the scored value: null when the task has no checker, on a
	// refusal under the neutral policy, and on errors.
	Passed          *bool   `json:"passed"`
	CheckDetail     *string `json:"check_detail"`
	Refusal         bool    `json:"refusal"`
	RefusalCategory *string `json:"refusal_category"`
	StopReason      string  `json:"stop_reason"`
	// LatencyS is time to first token; null when the backend cannot tell.
	LatencyS   *float64 `json:"latency_s"`
	WallClockS *float64 `json:"wall_clock_s"`
	// Tokens as the backend reported them (0 when it did not).
	InputTokens  int      `json:"input_tokens"`
	OutputTokens int      `json:"output_tokens"`
	CostUSD      *float64 `json:"cost_usd"`
	// SamplingSent is what reached the endpoint; null when the backend does
	// not report it.
	SamplingSent map[string]any `json:"sampling_sent"`
	// Rubric and RubricMean are filled by rubric judging (null without it).
	Rubric     json.RawMessage `json:"rubric"`
	RubricMean *float64        `json:"rubric_mean"`
	Error      *string         `json:"error"`
	// Cached marks a response served by the response cache (-fb.cache)
	// rather than asked of the model in this run: its text, tokens, cost
	// and timings are those of the original call. Absent otherwise, so
	// records keep exactly the spec's keys.
	Cached bool `json:"cached,omitempty"`
	// Smoke marks a trial of feather's built-in smoke model, whose
	// answers measure the harness, not a language model; absent
	// otherwise, as Cached is.
	Smoke bool `json:"smoke,omitempty"`
}

// UnsupportedPrefix starts the error of a trial the backend cannot serve
// by design (its error wraps lm.ErrUnsupported: tools on a local model,
// say). The record keeps the spec's keys, so the mark lives in the error
// text, where a summary rebuilt from the file still finds it.
const UnsupportedPrefix = "unsupported: "

// Unsupported reports whether the trial is an error record for a
// capability the backend lacks, not a harness failure: go test skips it,
// and the summary counts it among the errors, out of the pass rate.
func (r Record) Unsupported() bool {
	return r.Error != nil && strings.HasPrefix(*r.Error, UnsupportedPrefix)
}

// ToolCall is a model's call, normalised to {name, args}; raw_args appears
// only when the arguments were not a JSON object.
type ToolCall struct {
	Name    string         `json:"name"`
	Args    map[string]any `json:"args"`
	RawArgs string         `json:"raw_args,omitempty"`
}

// Writer appends records to a JSONL file, one Write per record and no
// buffering, so an interrupted run keeps every finished trial. Safe for
// concurrent use. The file is created on the first record: a run that
// records nothing leaves nothing behind. The file only ever holds whole
// records: a write that fails part-way (a full disk) is cut back off, so
// what was recorded before stays readable. The first failure is final.
type Writer struct {
	path string
	// Open opens the file for appending, creating it (nil: the file
	// system's, os.OpenFile); set it before the first Write. Tests pass a
	// disk that fills up.
	Open func(path string) (ResultsFile, error)

	mu     sync.Mutex
	f      ResultsFile
	size   int64 // the bytes of whole records in the file
	n      int
	err    error
	failed chan struct{} // closed at the first failure
}

// ResultsFile is the file a Writer appends to: an *os.File.
type ResultsFile interface {
	io.WriteCloser
	Stat() (fs.FileInfo, error)
	Truncate(size int64) error
}

// NewWriter returns a Writer appending to path.
func NewWriter(path string) *Writer { return &Writer{path: path, failed: make(chan struct{})} }

// Path is the file written.
func (w *Writer) Path() string { return w.path }

// Count is the number of records written.
func (w *Writer) Count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n
}

// Err is the failure that stopped the writer (nil: none).
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// Failed is closed when a write fails: no later record can be kept.
func (w *Writer) Failed() <-chan struct{} { return w.failed }

// Write appends one record.
func (w *Writer) Write(r Record) error {
	line, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encoding the record of %s/%s/%d: %w", r.Model, r.Task, r.Trial, err)
	}
	line = append(line, '\n')
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	if w.f == nil {
		if err := w.open(); err != nil {
			return w.fail(fmt.Errorf("creating the results file: %w", err))
		}
	}
	n, err := w.f.Write(line)
	if err != nil {
		if n > 0 {
			// Cutting frees room, so it works on a full disk too.
			if terr := w.f.Truncate(w.size); terr != nil {
				err = fmt.Errorf("%w; cutting the part of the record written failed too (%v): the last line of %s is incomplete and a -resume moves it aside", err, terr, w.path)
			}
		}
		return w.fail(fmt.Errorf("writing %s: %w", w.path, pathless(err, w.path)))
	}
	w.size += int64(n)
	w.n++
	return nil
}

func (w *Writer) open() error {
	open := w.Open
	if open == nil {
		open = func(p string) (ResultsFile, error) {
			return os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		}
	}
	f, err := open(w.path)
	if err != nil {
		return err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	w.f, w.size = f, st.Size()
	return nil
}

// fail makes err the writer's final error.
func (w *Writer) fail(err error) error {
	w.err = err
	close(w.failed)
	return err
}

// pathless drops the path from an *fs.PathError about path, which the
// message names already: "no space left on device", not "write
// results.jsonl: no space left on device" after "writing results.jsonl".
func pathless(err error, path string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == path && err == error(pe) {
		return pe.Err
	}
	return err
}

// Close closes the file.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return nil
	}
	err := w.f.Close()
	w.f = nil
	return err
}

// ReadRecords reads JSONL results files, in order. Keys it does not know
// are ignored, so files with extra fields still load; a malformed line is
// an error naming its file and line.
func ReadRecords(paths ...string) ([]Record, error) {
	var out []Record
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, fmt.Errorf("reading records: %w", err)
		}
		recs, err := readRecords(p, f)
		f.Close()
		if err != nil {
			return nil, err
		}
		out = append(out, recs...)
	}
	return out, nil
}

func readRecords(name string, r io.Reader) ([]Record, error) {
	var out []Record
	br := bufio.NewReader(r) // lines hold whole responses: no Scanner limit
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(b)) > 0 {
			var rec Record
			if uerr := json.Unmarshal(b, &rec); uerr != nil {
				hint := ""
				if !bytes.HasSuffix(b, []byte("\n")) {
					hint = " (the last line is incomplete: the run was probably interrupted while writing it; delete the line)"
				}
				return nil, fmt.Errorf("%s:%d: not a Featherbench record: %v%s", name, line, uerr, hint)
			}
			if string(rec.Rubric) == "null" {
				rec.Rubric = nil // as a record that was never judged holds it
			}
			if rec.Task == "" || rec.Model == "" {
				return nil, fmt.Errorf("%s:%d: not a Featherbench record: it has no task or model", name, line)
			}
			out = append(out, rec)
		}
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", name, err)
		}
	}
}
