package featherbench

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/feather-eval/feather/internal/atomicfile"
)

// TaskSource is a run's record of its tasks, written beside its results
// (TaskSourceName): the folder they came from and each task's category
// and hash, so that a report finds the same files again, sees when one
// changed since, and still has the categories when the folder is gone.
type TaskSource struct {
	// Dir is the tasks folder as the run was given it (-fb.tasks-dir);
	// AbsDir is the same folder made absolute.
	Dir    string `json:"dir"`
	AbsDir string `json:"abs_dir"`
	// Tasks are the run's tasks, after -fb.tasks and -fb.categories.
	Tasks []SourceTask `json:"tasks"`
}

// SourceTask is one task as the run read it.
type SourceTask struct {
	ID       string `json:"id"`
	Category string `json:"category"`
	File     string `json:"file"`
	TaskHash string `json:"task_hash"`
}

// TaskSourceName is the file name of a run's TaskSource.
func TaskSourceName(runID string) string { return "tasks-" + runID + ".json" }

// NewTaskSource records tasks, loaded from dir.
func NewTaskSource(dir string, tasks []Task) (*TaskSource, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	src := &TaskSource{Dir: dir, AbsDir: abs, Tasks: make([]SourceTask, len(tasks))}
	for i, t := range tasks {
		src.Tasks[i] = SourceTask{ID: t.ID, Category: t.Category, File: filepath.Base(t.File), TaskHash: t.Hash}
	}
	return src, nil
}

// Write writes the record to path (whole, via a temporary file).
func (s *TaskSource) Write(path string) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(b, '\n'))
}

// WriteTaskSource writes the record of tasks, loaded from dir, to path.
func WriteTaskSource(path, dir string, tasks []Task) error {
	src, err := NewTaskSource(dir, tasks)
	if err != nil {
		return err
	}
	return src.Write(path)
}

// ReadTaskSource reads a run's record of its tasks.
func ReadTaskSource(path string) (*TaskSource, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var src TaskSource
	if err := json.Unmarshal(b, &src); err != nil {
		return nil, fmt.Errorf("%s: not a record of a run's tasks: %v; delete it, and pass --tasks with the folder the run used", path, err)
	}
	return &src, nil
}

// Folder is the tasks folder to read again: Dir when it is still there
// (a relative path as the run had it, from the same working folder),
// else AbsDir.
func (s *TaskSource) Folder() string {
	if info, err := os.Stat(s.Dir); err == nil && info.IsDir() {
		return s.Dir
	}
	return s.AbsDir
}
