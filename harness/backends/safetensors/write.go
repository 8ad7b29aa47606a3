package safetensors

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/feather-eval/feather/harness/backends/onnx/onnxpb"
)

// WriteTensor is a tensor to write: Data stored as DType (F32, F16 or
// BF16, rounded to nearest even).
type WriteTensor struct {
	Name  string
	DType DType
	Shape []int64
	Data  []float32
}

func (t *WriteTensor) bytes() int64 { return int64(len(t.Data)) * t.DType.Size() }

// dtypeRank orders dtypes as the reference implementation's Dtype enum
// does; files list the widest-ranked first.
var dtypeRank = map[DType]int{"BOOL": 0, "U8": 1, "I8": 2, "F8_E5M2": 3, "F8_E4M3": 4, "I16": 5, "U16": 6,
	F16: 7, BF16: 8, "I32": 9, "U32": 10, F32: 11, "F64": 12, "I64": 13, "U64": 14}

// Write writes a safetensors file holding ts as the reference
// implementation (Python's safetensors.torch.save_file, which
// transformers' save_pretrained calls) lays it out: tensors by
// descending dtype, then by name, packed; the header compact JSON with
// __metadata__ first, padded with spaces to a multiple of 8 bytes.
func Write(w io.Writer, ts []WriteTensor, metadata map[string]string) error {
	order := make([]*WriteTensor, len(ts))
	for i := range ts {
		t := &ts[i]
		switch t.DType {
		case F32, F16, BF16:
		default:
			return fmt.Errorf("safetensors: tensor %s: writing %s is not supported (F32, F16 and BF16 are)", t.Name, t.DType)
		}
		n := int64(1)
		for _, d := range t.Shape {
			n *= d
		}
		if n != int64(len(t.Data)) {
			return fmt.Errorf("safetensors: tensor %s: shape %v holds %d values, got %d", t.Name, t.Shape, n, len(t.Data))
		}
		order[i] = t
	}
	slices.SortStableFunc(order, func(a, b *WriteTensor) int {
		if ra, rb := dtypeRank[a.DType], dtypeRank[b.DType]; ra != rb {
			return rb - ra
		}
		return strings.Compare(a.Name, b.Name)
	})
	var h bytes.Buffer
	enc := func(v any) {
		e := json.NewEncoder(&h)
		e.SetEscapeHTML(false)
		e.Encode(v)             // strings, ints and maps of them always encode
		h.Truncate(h.Len() - 1) // Encode's newline
	}
	h.WriteByte('{')
	if metadata != nil {
		h.WriteString(`"__metadata__":{`)
		for i, k := range slices.Sorted(maps.Keys(metadata)) {
			if i > 0 {
				h.WriteByte(',')
			}
			enc(k)
			h.WriteByte(':')
			enc(metadata[k])
		}
		h.WriteByte('}')
	}
	var off int64
	for i, t := range order {
		if i > 0 || metadata != nil {
			h.WriteByte(',')
		}
		enc(t.Name)
		shape := t.Shape
		if shape == nil {
			shape = []int64{}
		}
		fmt.Fprintf(&h, `:{"dtype":"%s","shape":`, t.DType)
		enc(shape)
		fmt.Fprintf(&h, `,"data_offsets":[%d,%d]}`, off, off+t.bytes())
		off += t.bytes()
	}
	h.WriteByte('}')
	for h.Len()%8 != 0 {
		h.WriteByte(' ')
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	binary.Write(bw, binary.LittleEndian, uint64(h.Len()))
	bw.Write(h.Bytes())
	var buf [4]byte
	for _, t := range order {
		for _, v := range t.Data {
			switch t.DType {
			case F32:
				binary.LittleEndian.PutUint32(buf[:], math.Float32bits(v))
				bw.Write(buf[:4])
			case F16:
				binary.LittleEndian.PutUint16(buf[:], onnxpb.Float16Bits(v))
				bw.Write(buf[:2])
			case BF16:
				binary.LittleEndian.PutUint16(buf[:], BF16Bits(v))
				bw.Write(buf[:2])
			}
		}
	}
	return bw.Flush()
}

// WriteFile writes ts to path (see Write).
func WriteFile(path string, ts []WriteTensor, metadata map[string]string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := Write(f, ts, metadata); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	return f.Close()
}

// PyTorchMetadata is the __metadata__ save_pretrained writes.
var PyTorchMetadata = map[string]string{"format": "pt"}

// WriteDir writes ts into dir as save_pretrained does: one
// model.safetensors, or, when they take more than maxShardBytes (0: no
// limit), shards model-0000i-of-0000n.safetensors cut in ts's order as
// huggingface_hub cuts them (a tensor larger than the limit alone in its
// shard) and model.safetensors.index.json naming each tensor's shard. It
// returns the files written, index last.
func WriteDir(dir string, ts []WriteTensor, maxShardBytes int64) ([]string, error) {
	var shards [][]WriteTensor
	var cur []WriteTensor
	var curBytes, total int64
	for _, t := range ts {
		n := t.bytes()
		total += n
		if maxShardBytes > 0 && n > maxShardBytes {
			shards = append(shards, []WriteTensor{t})
			continue
		}
		if maxShardBytes > 0 && curBytes+n > maxShardBytes {
			shards = append(shards, cur)
			cur, curBytes = nil, 0
		}
		cur = append(cur, t)
		curBytes += n
	}
	if len(cur) > 0 {
		shards = append(shards, cur)
	}
	if len(shards) <= 1 {
		path := filepath.Join(dir, SingleFile)
		return []string{path}, WriteFile(path, ts, PyTorchMetadata)
	}
	var files []string
	weightMap := map[string]string{}
	for i, s := range shards {
		name := fmt.Sprintf("model-%05d-of-%05d.safetensors", i+1, len(shards))
		path := filepath.Join(dir, name)
		if err := WriteFile(path, s, PyTorchMetadata); err != nil {
			return files, err
		}
		files = append(files, path)
		for _, t := range s {
			weightMap[t.Name] = name
		}
	}
	index := map[string]any{"metadata": map[string]any{"total_size": total}, "weight_map": weightMap}
	data, err := json.MarshalIndent(index, "", "  ") // json.dumps(indent=2, sort_keys=True)
	if err != nil {
		return files, err
	}
	path := filepath.Join(dir, IndexFile)
	files = append(files, path)
	return files, os.WriteFile(path, append(data, '\n'), 0o644)
}
