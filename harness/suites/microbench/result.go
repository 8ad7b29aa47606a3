package microbench

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/feather-eval/feather/harness/lm"
)

// Result is one model's μBench run: the leaderboard source. The top-level
// fields are the ones the spec lists (model path, parameter count, per-task
// scores, the six domain scores, mubench_intelligence_index); the rest is
// what a reader needs to check them.
type Result struct {
	Suite         string  `json:"suite"`
	Version       string  `json:"version"`
	Run           string  `json:"run,omitempty"`
	Model         lm.Info `json:"model"`
	ModelPath     string  `json:"model_path"`
	NumParameters int64   `json:"num_parameters"`
	Seed          int     `json:"seed"`
	// ItemsSHA256 is the Fingerprint of the tasks the run drew from.
	ItemsSHA256 string `json:"items_sha256"`
	MaxLength   int    `json:"max_length"`
	// Complete is true when every item of every task was scored without
	// error; domain scores and the index exist only for complete domains
	// and a complete run.
	Complete       bool               `json:"complete"`
	TaskScores     map[string]float64 `json:"task_scores"`
	DomainScores   map[string]float64 `json:"domain_scores"`
	Index          *float64           `json:"mubench_intelligence_index"`
	StandardErrors StandardErrors     `json:"standard_errors"`
	TruncatedItems map[string]int     `json:"truncated_items"`
	Requests       Requests           `json:"requests"`
	ScoringSeconds float64            `json:"scoring_seconds"`
	Tasks          []TaskResult       `json:"tasks"`
	Items          []ItemRecord       `json:"items"`
	Documents      []DocumentRecord   `json:"documents"`
}

// StandardErrors are item-sampling standard errors on the 0–100 scale.
type StandardErrors struct {
	Tasks   map[string]float64 `json:"tasks"`
	Domains map[string]float64 `json:"domains"`
	Index   *float64           `json:"mubench_intelligence_index"`
}

// Requests counts what was asked of the model, one batch per kind.
type Requests struct {
	LogLikelihood int `json:"loglikelihood"`
	// Null is how many of LogLikelihood were distinct null-context requests.
	Null    int `json:"null"`
	Rolling int `json:"rolling"`
}

// TaskResult summarises one task.
type TaskResult struct {
	ID          string    `json:"id"`
	Domain      string    `json:"domain"`
	Name        string    `json:"name"`
	Reduction   Reduction `json:"reduction"`
	NullContext string    `json:"null_context,omitempty"`
	Grouped     bool      `json:"group_accuracy"`
	// ItemsTotal is the task's size; Items how many were scored (selected
	// by the run filter and free of errors); Errors how many failed.
	ItemsTotal   int     `json:"items_total"`
	Items        int     `json:"items"`
	Errors       int     `json:"errors,omitempty"`
	Units        int     `json:"units"`
	CorrectUnits int     `json:"correct_units"`
	Chance       float64 `json:"chance"`
	Accuracy     float64 `json:"accuracy"`
	Score        float64 `json:"score"`
	SE           float64 `json:"se"`
	Truncated    int     `json:"truncated"`
	Complete     bool    `json:"complete"`
	// BitsPerByte, Bytes and Tokens are set on the bits-per-byte task.
	BitsPerByte   *float64      `json:"bits_per_byte,omitempty"`
	BitsPerByteSE *float64      `json:"bits_per_byte_se,omitempty"`
	Bytes         int           `json:"bytes,omitempty"`
	Tokens        int           `json:"tokens,omitempty"`
	Levels        []LevelResult `json:"levels"`
}

// LevelResult is a task's accuracy (or bits per byte) at one difficulty level.
type LevelResult struct {
	Level       int      `json:"level"`
	About       string   `json:"about"`
	Units       int      `json:"units"`
	Correct     int      `json:"correct"`
	Accuracy    float64  `json:"accuracy"`
	BitsPerByte *float64 `json:"bits_per_byte,omitempty"`
}

// ItemRecord is one choice item as scored.
type ItemRecord struct {
	Task       string         `json:"task"`
	ID         string         `json:"id"`
	Level      int            `json:"level"`
	Group      string         `json:"group,omitempty"`
	Context    string         `json:"context"`
	Choices    []ChoiceRecord `json:"choices"`
	Prediction int            `json:"prediction"`
	Gold       int            `json:"gold"`
	Correct    bool           `json:"correct"`
	// Tie is true when several choices share the best value; the lowest
	// index among them is the prediction.
	Tie       bool   `json:"tie,omitempty"`
	Truncated bool   `json:"truncated,omitempty"`
	Error     string `json:"error,omitempty"`
}

// ChoiceRecord is one choice's log-likelihood and reduced value.
type ChoiceRecord struct {
	Text         string `json:"text"`
	Continuation string `json:"continuation"`
	Bytes        int    `json:"bytes"`
	// LogProb is log P(continuation | context), natural log.
	LogProb float64 `json:"logprob"`
	// NullLogProb is log P(continuation | null context) on pmi tasks.
	NullLogProb        *float64 `json:"null_logprob,omitempty"`
	Value              float64  `json:"value"`
	ContextTokens      int      `json:"context_tokens"`
	ContinuationTokens int      `json:"continuation_tokens"`
	Greedy             bool     `json:"greedy"`
	Truncated          bool     `json:"truncated,omitempty"`
}

// DocumentRecord is one bits-per-byte document as scored.
type DocumentRecord struct {
	Task        string  `json:"task"`
	ID          string  `json:"id"`
	Level       int     `json:"level"`
	Bytes       int     `json:"bytes"`
	Tokens      int     `json:"tokens"`
	Windows     int     `json:"windows"`
	LogProb     float64 `json:"logprob"`
	Bits        float64 `json:"bits"`
	BitsPerByte float64 `json:"bits_per_byte"`
	Error       string  `json:"error,omitempty"`
}

// Outcomes maps "task/item-id" to whether the model got the item right,
// for every choice item scored without error: what regression gates compare.
func (r *Result) Outcomes() map[string]bool {
	out := map[string]bool{}
	for _, it := range r.Items {
		if it.Error == "" {
			out[it.Task+"/"+it.ID] = it.Correct
		}
	}
	return out
}

// Label is the model's display name, marked when it is the smoke model.
func (r *Result) Label() string {
	if r.Model.Smoke {
		return r.modelName() + " [smoke model]"
	}
	return r.modelName()
}

// modelName is the model's catalog name, else its key.
func (r *Result) modelName() string {
	if r.Model.Name != "" {
		return r.Model.Name
	}
	return r.Model.Key
}

// Item returns the record of a choice item, if it was scored.
func (r *Result) Item(task, id string) (ItemRecord, bool) {
	for _, it := range r.Items {
		if it.Task == task && it.ID == id {
			return it, true
		}
	}
	return ItemRecord{}, false
}

// Document returns the record of a bits-per-byte document, if it was scored.
func (r *Result) Document(id string) (DocumentRecord, bool) {
	for _, d := range r.Documents {
		if d.ID == id {
			return d, true
		}
	}
	return DocumentRecord{}, false
}

// WriteResult writes r as <name>.json in dir without replacing any file: if
// the name is taken (the same model twice in one run) it writes
// <name>-2.json and so on. The file appears whole or not at all: it is
// written under a temporary name first.
func WriteResult(dir, name string, r *Result) (string, error) {
	data, err := encodeResult(r)
	if err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(dir, "."+name+".json.tmp-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err != nil {
		return "", fmt.Errorf("writing %s: %w", filepath.Join(dir, name+".json"), err)
	}
	for n := 1; n < 1000; n++ {
		p := filepath.Join(dir, resultName(name, n))
		err := os.Link(tmp.Name(), p) // never replaces a file
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("writing %s: %w", p, err)
		}
		return p, nil
	}
	return "", fmt.Errorf("no free result file name for %s in %s", name, dir)
}

// resultName is the file of the n-th result (from 1) saved under name.
func resultName(name string, n int) string {
	if n > 1 {
		return fmt.Sprintf("%s-%d.json", name, n)
	}
	return name + ".json"
}

func encodeResult(r *Result) ([]byte, error) {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// ReadResult reads a result file, rejecting files that are not μBench results.
func ReadResult(path string) (*Result, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Result
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("%s: not a μBench result file: %v", path, strings.TrimPrefix(err.Error(), "json: "))
	}
	if r.Suite != Name {
		return nil, fmt.Errorf("%s: suite is %q, not %q; pass μBench result files (results/<run>/microbench/*.json)", path, r.Suite, Name)
	}
	return &r, nil
}

// ReadResults reads several result files in the order given, for
// Leaderboard; the first unreadable file is the error.
func ReadResults(paths ...string) ([]*Result, error) {
	out := make([]*Result, 0, len(paths))
	for _, p := range paths {
		r, err := ReadResult(p)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}
