package safetensors

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The file names transformers saves and loads.
const (
	// SingleFile is an unsharded checkpoint's weights.
	SingleFile = "model.safetensors"
	// IndexFile maps each tensor of a sharded checkpoint to its shard.
	IndexFile = "model.safetensors.index.json"
)

// Pickled reports whether a file name (a path's base) is PyTorch's
// pickled weights (.bin, .pth, .pt, .ckpt), which safetensors replaces
// and which are never loaded: unpickling an untrusted file can run any
// code. training_args.bin, which the Trainer saves beside any weights,
// is not weights.
func Pickled(name string) bool {
	return name != "training_args.bin" && slices.Contains([]string{".bin", ".pth", ".pt", ".ckpt"}, filepath.Ext(name))
}

// Checkpoint is a folder's weights: model.safetensors, or the shards
// model.safetensors.index.json names (transformers prefers the single
// file when both are there, and so does OpenDir).
type Checkpoint struct {
	Dir string
	// Index is the index file's path; "" for a single file.
	Index string
	// Files are the files read, in the order first named.
	Files   []*File
	tensors map[string]*Tensor
}

// ErrNoWeights says a folder holds neither model.safetensors nor its
// index.
var ErrNoWeights = errors.New("no " + SingleFile + " or " + IndexFile)

// OpenDir reads and checks the headers of dir's checkpoint.
func OpenDir(dir string) (*Checkpoint, error) {
	single := filepath.Join(dir, SingleFile)
	if st, err := os.Stat(single); err == nil && !st.IsDir() {
		f, err := Open(single)
		if err != nil {
			return nil, err
		}
		c := &Checkpoint{Dir: dir, Files: []*File{f}, tensors: map[string]*Tensor{}}
		for _, t := range f.Tensors {
			c.tensors[t.Name] = t
		}
		return c, nil
	}
	index := filepath.Join(dir, IndexFile)
	data, err := os.ReadFile(index)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", dir, ErrNoWeights)
	} else if err != nil {
		return nil, err
	}
	return openSharded(dir, index, data)
}

// openSharded reads the shards the index names and checks that each
// tensor is where the index says.
func openSharded(dir, index string, data []byte) (*Checkpoint, error) {
	var idx struct {
		WeightMap map[string]any `json:"weight_map"`
	}
	if err := json.Unmarshal(data, &idx); err != nil {
		return nil, fmt.Errorf("%s is not a safetensors index (%v); download it again", index, err)
	}
	if len(idx.WeightMap) == 0 {
		return nil, fmt.Errorf("%s has no weight_map naming the shards; download it again", index)
	}
	c := &Checkpoint{Dir: dir, Index: index, tensors: map[string]*Tensor{}}
	names := make([]string, 0, len(idx.WeightMap))
	for name := range idx.WeightMap {
		names = append(names, name)
	}
	slices.Sort(names)
	shards := map[string]*File{}
	for _, name := range names {
		shard, ok := idx.WeightMap[name].(string)
		if !ok || shard == "" {
			return nil, fmt.Errorf("%s: weight_map: tensor %s maps to %v, not a shard's file name", index, name, idx.WeightMap[name])
		}
		if shard != filepath.Base(shard) || strings.ContainsAny(shard, `/\`) || shard == "." || shard == ".." {
			return nil, fmt.Errorf("%s: weight_map: tensor %s is in %q, which is not a file of the checkpoint's folder; shards sit beside the index", index, name, shard)
		}
		f, seen := shards[shard]
		if !seen {
			path := filepath.Join(dir, shard)
			if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
				return nil, fmt.Errorf("%s names the shard %s (tensor %s is in it), which is not in %s; download it too", index, shard, name, dir)
			}
			var err error
			if f, err = Open(path); err != nil {
				return nil, err
			}
			shards[shard] = f
			c.Files = append(c.Files, f)
		}
		t := f.Tensor(name)
		if t == nil {
			return nil, fmt.Errorf("%s: tensor %s is not in %s, where %s says it is; download the checkpoint again", f.Path, name, shard, IndexFile)
		}
		c.tensors[name] = t
	}
	return c, nil
}

// Tensor is the tensor called name; nil when the checkpoint has none.
func (c *Checkpoint) Tensor(name string) *Tensor { return c.tensors[name] }

// Names lists the checkpoint's tensors, sorted.
func (c *Checkpoint) Names() []string {
	out := make([]string, 0, len(c.tensors))
	for n := range c.tensors {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// Where names the checkpoint's weights for messages: its single file,
// or its index.
func (c *Checkpoint) Where() string {
	if c.Index != "" {
		return c.Index
	}
	return c.Files[0].Path
}

// Float32s reads the tensor called name widened to float32.
func (c *Checkpoint) Float32s(name string) ([]float32, error) {
	t := c.tensors[name]
	if t == nil {
		return nil, fmt.Errorf("%s has no tensor %s", c.Where(), name)
	}
	f, err := os.Open(t.File)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return t.Float32s(f)
}
