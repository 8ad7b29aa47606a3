package featherbench

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/feather-eval/feather/internal/atomicfile"
)

// Resume is what an interrupted run recorded before it stopped: the run
// continues in the same results file, skipping the trials it holds.
type Resume struct {
	// RunID is the run's stamp; new records carry it too.
	RunID string
	// Path is the results file the run continues.
	Path string
	// Records are the finished trials, in file order.
	Records []Record
	// Notes say what was repaired on the way in (a torn last line).
	Notes []string

	done  map[trialKey]bool
	lines [][]byte // each record's line as it is in the file
}

type trialKey struct {
	model, task string
	trial       int
}

// ResultsName is the results file of the run stamped runID.
func ResultsName(runID string) string { return "results-" + runID + ".jsonl" }

// LoadResume reads the results file of run runID in dir (the run's
// featherbench folder) to continue it on tasks. Every recorded trial counts
// as finished, errors included: its (model, task, trial) is not asked again.
// It refuses a file that would blend two versions of a task (a task_hash
// other than the task's today), another run's records, or one trial
// recorded twice, naming the line and the fix. A last line cut short by a
// crash mid-write is no record: it moves to <file>.torn and the run goes on.
func LoadResume(dir, runID string, tasks []Task) (*Resume, error) {
	r := &Resume{RunID: runID, Path: filepath.Join(dir, ResultsName(runID)), done: map[trialKey]bool{}}
	data, err := os.ReadFile(r.Path)
	if os.IsNotExist(err) {
		if others, _ := filepath.Glob(filepath.Join(dir, "results-*.jsonl")); len(others) > 0 {
			return nil, fmt.Errorf("resuming: %s holds %s, not %s: pass the run directory that file belongs to", dir, filepath.Base(others[0]), ResultsName(runID))
		}
		return r, nil // the run stopped before its first record
	}
	if err != nil {
		return nil, fmt.Errorf("resuming: %w", err)
	}
	if cut := bytes.LastIndexByte(data, '\n') + 1; cut < len(data) {
		if err := r.moveTorn(data[cut:], int64(cut)); err != nil {
			return nil, err
		}
		data = data[:cut]
	}
	recs, err := readRecords(r.Path, bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("resuming: %w", err)
	}
	hashes := map[string]string{}
	for _, t := range tasks {
		hashes[t.ID] = t.Hash
	}
	var lines []int
	r.lines, lines = recordLines(data)
	for i, rec := range recs {
		at := fmt.Sprintf("%s:%d", r.Path, lines[i])
		if rec.RunID != runID {
			return nil, fmt.Errorf("resuming: %s: a record of run %q in run %s's file; move it to its own run's file", at, rec.RunID, runID)
		}
		if h, ok := hashes[rec.Task]; ok && h != rec.TaskHash {
			return nil, fmt.Errorf("resuming: %s: task %s has changed since it was recorded (task_hash %s then, %s now): continuing would blend two versions of it in one run; restore the task file or start a new run", at, rec.Task, rec.TaskHash, h)
		}
		k := trialKey{rec.Model, rec.Task, rec.Trial}
		if r.done[k] {
			return nil, fmt.Errorf("resuming: %s: %s/%s trial %d is recorded twice; delete one of its lines", at, rec.Model, rec.Task, rec.Trial)
		}
		r.done[k] = true
	}
	r.Records = recs
	return r, nil
}

// moveTorn appends a torn last line to <file>.torn, then cuts it from the
// results file: the fragment is kept, and appending goes on after a whole
// line.
func (r *Resume) moveTorn(fragment []byte, at int64) error {
	torn := r.Path + ".torn"
	f, err := os.OpenFile(torn, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("resuming: keeping the torn last line of %s: %w", r.Path, err)
	}
	_, werr := f.Write(append(fragment, '\n'))
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("resuming: keeping the torn last line of %s: %w", r.Path, werr)
	}
	if err := os.Truncate(r.Path, at); err != nil {
		return fmt.Errorf("resuming: cutting the torn last line of %s: %w", r.Path, err)
	}
	r.Notes = append(r.Notes, fmt.Sprintf("the last line of %s was cut short (the run stopped while writing it): moved to %s; that trial runs again", r.Path, torn))
	return nil
}

// RetryErrors makes the recorded error trials unfinished, so the run asks
// them again: their lines move from the results file to <file>.retried
// (kept, not lost), and the results file is rewritten whole without them.
// A trial the backend cannot serve by design (Record.Unsupported) stays
// finished: asking again would fail the same way. It returns how many
// trials will be asked again.
func (r *Resume) RetryErrors() (int, error) {
	var keep, retry [][]byte
	var kept []Record
	for i, rec := range r.Records {
		if rec.Error != nil && !rec.Unsupported() {
			retry = append(retry, r.lines[i])
			delete(r.done, trialKey{rec.Model, rec.Task, rec.Trial})
			continue
		}
		keep = append(keep, r.lines[i])
		kept = append(kept, rec)
	}
	if len(retry) == 0 {
		return 0, nil
	}
	moved := r.Path + ".retried"
	f, err := os.OpenFile(moved, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return 0, fmt.Errorf("resuming: keeping the error records to retry: %w", err)
	}
	_, werr := f.Write(joinLines(retry))
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return 0, fmt.Errorf("resuming: keeping the error records to retry in %s: %w", moved, werr)
	}
	if err := atomicfile.Write(r.Path, joinLines(keep)); err != nil {
		return 0, fmt.Errorf("resuming: %w", err)
	}
	r.Records, r.lines = kept, keep
	r.Notes = append(r.Notes, fmt.Sprintf("%d error records moved from %s to %s: those trials are asked again", len(retry), r.Path, moved))
	return len(retry), nil
}

func joinLines(lines [][]byte) []byte {
	var b bytes.Buffer
	for _, l := range lines {
		b.Write(l)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// recordLines lists the file's non-blank lines (without their newline)
// and the 1-based number of each, as readRecords numbers them: one per
// record.
func recordLines(data []byte) (lines [][]byte, numbers []int) {
	for i, l := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(l)) > 0 {
			lines = append(lines, bytes.TrimRight(l, "\r"))
			numbers = append(numbers, i+1)
		}
	}
	return lines, numbers
}

// Finished reports whether the run already recorded this trial.
func (r *Resume) Finished(model, task string, trial int) bool {
	return r != nil && r.done[trialKey{model, task, trial}]
}

// Of returns model's recorded trials of tasks, in the order a run reports
// them (SortTrials).
func (r *Resume) Of(model string, tasks []Task) []Record {
	if r == nil {
		return nil
	}
	known := map[string]bool{}
	for _, t := range tasks {
		known[t.ID] = true
	}
	var out []Record
	for _, rec := range r.Records {
		if known[rec.Task] && rec.Model == model {
			out = append(out, rec)
		}
	}
	SortTrials(out, tasks)
	return out
}

// SortTrials orders one model's records as its jobs run: task by task in
// the order of tasks, then by trial. Records of tasks not listed go last.
func SortTrials(recs []Record, tasks []Task) {
	order := map[string]int{}
	for i, t := range tasks {
		order[t.ID] = i
	}
	pos := func(r Record) int {
		if i, ok := order[r.Task]; ok {
			return i
		}
		return len(tasks)
	}
	sort.SliceStable(recs, func(i, j int) bool {
		if a, b := pos(recs[i]), pos(recs[j]); a != b {
			return a < b
		}
		return recs[i].Trial < recs[j].Trial
	})
}
