package runs

import (
	"fmt"
	"sort"
	"strings"

	"github.com/feather-eval/feather/harness/suites/featherbench"
	"github.com/feather-eval/feather/internal/plural"
)

// loadTasks finds the Featherbench task files the records answered: the
// folder the user named, else the folders the runs recorded, else (for
// runs that recorded none) the default folder. What cannot be found is a
// note that says so and how to fix it, never a silent blank: a folder
// that is gone leaves the categories the runs recorded, and a task whose
// file changed since its trials is named.
func (s *Set) loadTasks(opt Options) error {
	fb := s.Featherbench
	fb.recorded = map[string]featherbench.SourceTask{}
	for _, src := range fb.sources {
		for _, t := range src.Tasks {
			if _, ok := fb.recorded[t.ID]; !ok {
				fb.recorded[t.ID] = t
			}
		}
	}
	var read []string
	add := func(dir string, tasks []featherbench.Task) {
		if fb.Tasks == nil {
			fb.Tasks = map[string]featherbench.Task{}
		}
		for _, t := range tasks {
			if _, ok := fb.Tasks[t.ID]; !ok {
				fb.Tasks[t.ID] = t
			}
		}
		read = append(read, dir)
	}
	if opt.TasksDir != "" {
		tasks, err := featherbench.LoadDir(opt.TasksDir)
		if err != nil {
			return fmt.Errorf("reading Featherbench tasks for the report: %w", err)
		}
		add(opt.TasksDir, tasks)
	} else {
		seen := map[string]bool{}
		for _, src := range fb.sources {
			dir := src.Folder()
			if seen[dir] {
				continue
			}
			seen[dir] = true
			tasks, err := featherbench.LoadDir(dir)
			if err != nil {
				s.Notes = append(s.Notes, fmt.Sprintf("The Featherbench run used the task files in %s, which cannot be read now (%v): categories come from the run's record of them and prompts are not shown; pass --tasks with that folder.", src.Dir, err))
				continue
			}
			add(dir, tasks)
		}
		if opt.DefaultTasksDir != "" && !s.covered() {
			if tasks, err := featherbench.LoadDir(opt.DefaultTasksDir); err == nil {
				add(opt.DefaultTasksDir, tasks)
			}
		}
	}
	fb.TasksDir = strings.Join(read, ", ")
	s.taskNotes()
	return nil
}

// covered reports whether every record's task is in the runs' records of
// their tasks or in the task files read.
func (s *Set) covered() bool {
	fb := s.Featherbench
	for _, r := range fb.Records {
		if _, ok := fb.recorded[r.Task]; ok {
			continue
		}
		if _, ok := fb.Tasks[r.Task]; !ok {
			return false
		}
	}
	return true
}

// taskNotes names the tasks found nowhere and those whose file changed
// since their trials.
func (s *Set) taskNotes() {
	fb := s.Featherbench
	missing, changed := map[string]bool{}, map[string]bool{}
	for _, r := range fb.Records {
		t, inFiles := fb.Tasks[r.Task]
		_, inRecord := fb.recorded[r.Task]
		switch {
		case !inFiles && !inRecord:
			missing[r.Task] = true
		case inFiles && t.Hash != "" && r.TaskHash != "" && t.Hash != r.TaskHash:
			changed[r.Task] = true
		}
	}
	where := "no task folder was found"
	if fb.TasksDir != "" {
		where = "they are not in " + fb.TasksDir
	}
	if len(missing) > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("%s of the Featherbench trials have no category or prompt here (%s): %s; pass --tasks with the folder the run used.",
			plural.Of(len(missing), "task"), where, listIDs(missing)))
	}
	if len(changed) > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("%s changed since the Featherbench run (the file's task_hash differs from the trials'): %s; the prompt shown is the file's, not the one the trials answered.",
			plural.Of(len(changed), "task file"), listIDs(changed)))
	}
}

func listIDs(ids map[string]bool) string {
	out := make([]string, 0, len(ids))
	for id := range ids {
		out = append(out, id)
	}
	sort.Strings(out)
	if len(out) > 8 {
		return strings.Join(out[:8], ", ") + fmt.Sprintf(" and %d more", len(out)-8)
	}
	return strings.Join(out, ", ")
}
