package featherweight

import "sync"

// Results keeps a run's Featherweight results folder: each model's file,
// and the summaries over every model so far, rewritten as each model
// finishes so that every finished model is on disk even if a later one
// crashes. It is safe for concurrent use.
type Results struct {
	data DataInfo
	dir  func() (string, error)

	mu     sync.Mutex
	models []ModelResult
}

// NewResults writes the results of data's items into the folder dir
// returns. dir is first called at the first write, so that a run that
// writes nothing creates no folder (rundir's Sub creates it then).
func NewResults(data DataInfo, dir func() (string, error)) *Results {
	return &Results{data: data, dir: dir}
}

// Add writes a model's file and rewrites the summaries. A model with no
// records (-run selected none of its items, Ctrl-C came first) writes
// nothing.
func (w *Results) Add(r ModelResult) error {
	if len(r.Records) == 0 {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.models = append(w.models, r)
	dir, err := w.dir()
	if err != nil {
		return err
	}
	if _, err := WriteModelFile(dir, w.data, r); err != nil {
		return err
	}
	return WriteSummaries(dir, w.data, w.models)
}
