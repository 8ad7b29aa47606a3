package onnx

// kvCache holds the attention cache of a batch: for every layer a key and a
// value tensor of shape [rows, kvHeads, length, headDim], stored as raw
// bytes so float16 caches pass through without conversion. Row r of every
// buffer is one contiguous block, which makes selecting rows a copy of
// blocks.
type kvCache struct {
	rows, length int
	heads, dim   int
	elem         int
	bufs         [][]byte // key0, value0, key1, value1, …
}

func newKVCache(spec *ioSpec) *kvCache {
	return &kvCache{heads: spec.kvHeads, dim: spec.headDim, elem: spec.kvElem(), bufs: make([][]byte, 2*spec.layers)}
}

// rowBytes is the size of one row of one buffer.
func (c *kvCache) rowBytes() int { return c.heads * c.length * c.dim * c.elem }

// resize sets the shape, reusing the buffers' memory where it suffices.
func (c *kvCache) resize(rows, length int) {
	c.rows, c.length = rows, length
	n := rows * c.rowBytes()
	for i := range c.bufs {
		c.bufs[i] = grow(c.bufs[i], n)
	}
}

// gather makes dst hold rows idx of c (a row may repeat), reusing dst's
// memory.
func (c *kvCache) gather(dst *kvCache, idx []int) {
	dst.heads, dst.dim, dst.elem = c.heads, c.dim, c.elem
	if len(dst.bufs) != len(c.bufs) {
		dst.bufs = make([][]byte, len(c.bufs))
	}
	dst.resize(len(idx), c.length)
	rb := c.rowBytes()
	for i, src := range c.bufs {
		d := dst.bufs[i]
		for j, r := range idx {
			copy(d[j*rb:(j+1)*rb], src[r*rb:(r+1)*rb])
		}
	}
}

// placeRow makes row dst of c hold row srcRow of src in its first
// src.length slots (c may be longer) and zeros in the rest: all zeros when
// src is nil. Masked slots hold zeros, not a former call's values, so
// nothing non-finite can reach attention's weighted sum.
func (c *kvCache) placeRow(dst int, src *kvCache, srcRow int) {
	hb := c.length * c.dim * c.elem // one head of one row
	for i, buf := range c.bufs {
		row := buf[dst*c.heads*hb : (dst+1)*c.heads*hb]
		if src == nil {
			clear(row)
			continue
		}
		sb := src.length * src.dim * src.elem
		from := src.bufs[i][srcRow*c.heads*sb:]
		for h := 0; h < c.heads; h++ {
			n := copy(row[h*hb:(h+1)*hb], from[h*sb:(h+1)*sb])
			clear(row[h*hb+n : (h+1)*hb])
		}
	}
}
