package decoder

import (
	"math"

	pb "github.com/feather-eval/feather/harness/backends/onnx/onnxpb"
)

// This file writes attention as onnxruntime's fused GroupQueryAttention
// (domain com.microsoft), the layout of exports made with
// onnxruntime-genai's model builder and of many onnx-community
// repositories (Phi, Qwen, Gemma, Llama). Such a graph reads the attention
// mask only as per-row lengths (seqlens_k = Σmask − 1) and the total
// length, and assumes every row's tokens come first: padding on the left,
// or padding inside a row carried over from an earlier call, silently
// computes the wrong thing. Without a position_ids input (the genai
// builder's CPU export) the operator also applies rotary embeddings
// itself, from cos/sin tables, at the positions those lengths imply.

// MSDomain is the domain of onnxruntime's contrib operators, and the
// opset version a model importing it declares.
const (
	MSDomain  = "com.microsoft"
	MSVersion = 1
)

// gqaInputs are the per-call tensors every GroupQueryAttention node of a
// pass reads: seqlens_k [batch] int32 and total_sequence_length, an int32
// scalar.
type gqaInputs struct{ seqlensK, total string }

func (p *Pass) gqaLengths() gqaInputs {
	b := p.B
	mask := "attention_mask"
	sum := p.Attr("ReduceSum", []pb.Attribute{pb.AttrInt("keepdims", 0)}, mask, b.Ints(1))
	seqlens := p.cast(p.Op("Sub", sum, b.Int(1)), pb.Int32)
	total := p.cast(p.Op("Gather", p.Op("Shape", mask), b.Int(1)), pb.Int32)
	return gqaInputs{seqlensK: seqlens, total: total}
}

// rotaryCaches are GroupQueryAttention's cos_cache and sin_cache
// [max_positions, head_dim/2]: cos and sin of position × inverse
// frequency, as the genai builder stores them.
func (p *Pass) rotaryCaches() (cos, sin string) {
	c := p.c
	half := c.HeadDim / 2
	inv := InvFreq(c)
	cv := make([]float32, c.MaxPositions*half)
	sv := make([]float32, c.MaxPositions*half)
	for pos := 0; pos < c.MaxPositions; pos++ {
		for i, f := range inv {
			// float32 product, then cos/sin, as torch computes the tables
			a := float64(float32(pos) * f)
			cv[pos*half+i], sv[pos*half+i] = float32(math.Cos(a)), float32(math.Sin(a))
		}
	}
	dims := []int64{int64(c.MaxPositions), int64(half)}
	return p.B.Const(pb.FloatTensor("", dims, cv)), p.B.Const(pb.FloatTensor("", dims, sv))
}

// GroupQueryAttention attends layer i's projected queries, keys and values
// ([batch, seq, n·head_dim] each) with the fused operator and returns the
// output [batch, seq, heads·head_dim] and the present key and value. r
// rotates queries and keys first when the export takes position_ids;
// otherwise the operator rotates them (do_rotary).
func (p *Pass) GroupQueryAttention(i int, r ropeTables, q, k, v string) (out, presentK, presentV string) {
	c := p.c
	inner := p.RotaryInAttention()
	if !inner {
		q = p.flat(r.rotate(p, p.Heads(q, c.Heads)), c.Heads)
		k = p.flat(r.rotate(p, p.Heads(k, c.KVHeads)), c.KVHeads)
	}
	pastK, pastV := "", ""
	if p.past {
		pastK, pastV = pastName(i, "key"), pastName(i, "value")
		if p.e.Half {
			pastK, pastV = p.cast(pastK, pb.Float), p.cast(pastV, pb.Float)
		}
	}
	in := []string{q, k, v, pastK, pastV, p.gqa.seqlensK, p.gqa.total}
	doRotary := int64(0)
	if inner {
		in = append(in, p.gqaCos, p.gqaSin)
		doRotary = 1
	}
	attrs := []pb.Attribute{
		pb.AttrInt("num_heads", int64(c.Heads)),
		pb.AttrInt("kv_num_heads", int64(c.KVHeads)),
		pb.AttrInt("do_rotary", doRotary),
		pb.AttrInt("rotary_interleaved", 0),
	}
	outs := p.B.OpDomainOuts(MSDomain, "GroupQueryAttention", 3, attrs, in...)
	return outs[0], outs[1], outs[2]
}
