package ckpt

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"runtime"
	"sync"
	"unsafe"

	pb "github.com/feather-eval/feather/harness/backends/onnx/onnxpb"
	"github.com/feather-eval/feather/harness/backends/safetensors"
)

// placed is a weight and where its converted data goes.
type placed struct {
	p      param
	t      *safetensors.Tensor
	linear bool // stored [out, in]: written transposed
	// q writes a linear weight as int8, one scale per output column
	// (Options.Int8); convert fills scale.
	q      bool
	scale  []float32
	off    int64
	length int64
}

// align is the converted file's tensor alignment: a page, so ONNX
// Runtime maps the data rather than copying it.
const align = pb.ExternalAlign

// layout places each weight in the converted file, page-aligned, and
// returns the file's size.
func layout(ws []*placed, elem int64) int64 {
	var end int64
	for _, w := range ws {
		w.off = (end + align - 1) &^ (align - 1)
		w.length = w.t.Elements() * elem
		if w.q {
			w.length = w.t.Elements()
		}
		end = w.off + w.length
	}
	return end
}

// convert writes every weight into path, widened to float32 (float16 with
// half) and in the decoder's layout (a torch Linear weight transposed),
// at the places layout gave. The checkpoint's files are read through
// mmap, each tensor's pages released once it is written, and the
// conversion runs on every core; memory stays at a few buffers.
func convert(path string, files []*safetensors.File, ws []*placed, size int64, half bool) (err error) {
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := out.Close(); err == nil {
			err = cerr
		}
	}()
	if err := out.Truncate(size); err != nil {
		return err
	}
	maps := map[string]*safetensors.Mapping{}
	defer func() {
		for _, m := range maps {
			m.Close()
		}
	}()
	for _, f := range files {
		m, err := f.Map()
		if err != nil {
			return err
		}
		maps[f.Path] = m
	}
	work := make(chan *placed)
	errs := make(chan error, len(ws))
	var wg sync.WaitGroup
	for range min(runtime.NumCPU(), len(ws)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var s scratch
			for w := range work {
				m := maps[w.t.File]
				err := writeWeight(out, w, m.Bytes(w.t), half, &s)
				m.Release(w.t)
				if err != nil {
					errs <- fmt.Errorf("writing the converted %s: %w", w.t.Name, err)
				}
			}
		}()
	}
	for _, w := range ws {
		work <- w
	}
	close(work)
	wg.Wait()
	close(errs)
	return <-errs // nil when none
}

// chunkValues bounds a conversion buffer (4 MB of float32).
const chunkValues = 1 << 20

// scratch is one worker's buffers, reused from weight to weight.
type scratch struct {
	vals []float32 // converted values
	tile []float32 // a tile of stored values, widened
	out  []byte    // the bytes written
}

// writeWeight converts src, w's stored bytes, into out at w.off.
func writeWeight(out *os.File, w *placed, src []byte, half bool, s *scratch) error {
	n := int(w.t.Elements())
	in := int(w.t.DType.Size())
	off := w.off
	if w.q {
		w.scale = columnScales(w, src, s)
	}
	flush := func(vals []float32) error {
		var b []byte
		if w.q {
			b = s.quantized(vals, w.scale)
		} else {
			b = s.bytes(vals, half)
		}
		_, err := out.WriteAt(b, off)
		off += int64(len(b))
		return err
	}
	if !w.linear {
		for start := 0; start < n; start += chunkValues {
			end := min(n, start+chunkValues)
			vals := grow(&s.vals, end-start)
			safetensors.Widen(w.t.DType, src[start*in:end*in], vals)
			if err := flush(vals); err != nil {
				return err
			}
		}
		return nil
	}
	// Transposed: output row r is stored column r. A block of output rows
	// is filled tile by tile, each tile of stored values widened first,
	// so both its reads and its writes stay within a few cache lines.
	rows, cols := int(w.t.Shape[0]), int(w.t.Shape[1])
	block := max(1, chunkValues/rows)
	t := grow(&s.tile, tile*tile)
	for r0 := 0; r0 < cols; r0 += block {
		r1 := min(cols, r0+block)
		vals := grow(&s.vals, (r1-r0)*rows)
		for c0 := 0; c0 < rows; c0 += tile {
			c1 := min(rows, c0+tile)
			for k0 := r0; k0 < r1; k0 += tile {
				k1 := min(r1, k0+tile)
				for c := c0; c < c1; c++ {
					safetensors.Widen(w.t.DType, src[(c*cols+k0)*in:(c*cols+k1)*in], t[(c-c0)*tile:(c-c0)*tile+k1-k0])
				}
				for k := k0; k < k1; k++ {
					row := vals[(k-r0)*rows+c0 : (k-r0)*rows+c1]
					for ci := range row {
						row[ci] = t[ci*tile+k-k0]
					}
				}
			}
		}
		if err := flush(vals); err != nil {
			return err
		}
	}
	return nil
}

// tile is the side of the square a transposition moves at a time.
const tile = 64

// columnScales is the int8 scale of each output column of w, a linear
// weight stored [out, in]: the largest magnitude of its stored row over
// 127 (1 for a row of zeros), as symmetric per-channel quantization
// takes it.
func columnScales(w *placed, src []byte, s *scratch) []float32 {
	rows, cols := int(w.t.Shape[0]), int(w.t.Shape[1])
	in := int(w.t.DType.Size())
	scale := make([]float32, rows)
	row := grow(&s.vals, cols)
	for r := range scale {
		safetensors.Widen(w.t.DType, src[r*cols*in:(r+1)*cols*in], row)
		var m float32
		for _, v := range row {
			m = max(m, float32(math.Abs(float64(v))))
		}
		scale[r] = 1
		if m > 0 {
			scale[r] = m / 127
		}
	}
	return scale
}

// quantized encodes vals, whole rows of an [in, out] weight, as int8:
// each value divided by its column's scale, rounded to even.
func (s *scratch) quantized(vals []float32, scale []float32) []byte {
	b := growBytes(&s.out, len(vals))
	for i, v := range vals {
		q := math.RoundToEven(float64(v / scale[i%len(scale)]))
		b[i] = byte(int8(max(-127, min(127, q))))
	}
	return b
}

// bytes encodes vals as little-endian float32 (float16 with half).
func (s *scratch) bytes(vals []float32, half bool) []byte {
	if half {
		b := growBytes(&s.out, 2*len(vals))
		for i, v := range vals {
			binary.LittleEndian.PutUint16(b[2*i:], pb.Float16Bits(v))
		}
		return b
	}
	if littleEndian {
		return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(vals))), 4*len(vals))
	}
	b := growBytes(&s.out, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return b
}

// littleEndian says float32 values' memory is their little-endian bytes.
var littleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

func grow(b *[]float32, n int) []float32 {
	if cap(*b) < n {
		*b = make([]float32, n)
	}
	return (*b)[:n]
}

func growBytes(b *[]byte, n int) []byte {
	if cap(*b) < n {
		*b = make([]byte, n)
	}
	return (*b)[:n]
}
