package testmodel

import (
	"fmt"
	"strings"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/feather-eval/feather/harness/backends/onnx/decoder"
)

// RunGraph runs a float32 decoder graph (decoder.Graph's model,
// marshaled) in ONNX Runtime over one unpadded sequence, as a backend
// drives it: the first calls[0] tokens in one call, then the next
// calls[1], and so on, each call's present keys and values fed back as
// the next one's past. A graph without a cache takes one call. It returns
// each position's logits. ONNX Runtime must be loaded (orttest.Require).
func RunGraph(model []byte, c decoder.Config, ids []int, calls ...int) ([][]float32, error) {
	ins, outs, err := ort.GetInputOutputInfoWithONNXData(model)
	if err != nil {
		return nil, err
	}
	names := func(infos []ort.InputOutputInfo) []string {
		var out []string
		for _, i := range infos {
			out = append(out, i.Name)
		}
		return out
	}
	sess, err := ort.NewDynamicAdvancedSessionWithONNXData(model, names(ins), names(outs), nil)
	if err != nil {
		return nil, err
	}
	defer sess.Destroy()

	past := make([][]float32, 2*c.Layers) // key, value per layer: [1, kv_heads, done, head_dim]
	var rows [][]float32
	done := 0
	for _, n := range calls {
		logits, present, err := runCall(sess, ins, outs, c, ids[done:done+n], done, past)
		if err != nil {
			return nil, err
		}
		rows = append(rows, logits...)
		if present != nil {
			past = present
		} else if done+n < len(ids) {
			return nil, fmt.Errorf("testmodel: the graph has no cache; run it in one call")
		}
		done += n
	}
	if done != len(ids) {
		return nil, fmt.Errorf("testmodel: calls of %v tokens do not cover the %d ids", calls, len(ids))
	}
	return rows, nil
}

// runCall feeds one call's ids at positions from done and returns its
// logits and the present cache (nil when the graph has none).
func runCall(sess *ort.DynamicAdvancedSession, ins, outs []ort.InputOutputInfo, c decoder.Config, ids []int, done int, past [][]float32) ([][]float32, [][]float32, error) {
	seq, total := len(ids), done+len(ids)
	var values []ort.Value
	defer func() {
		for _, v := range values {
			v.Destroy()
		}
	}()
	ints := func(n int, f func(i int) int64) []int64 {
		out := make([]int64, n)
		for i := range out {
			out[i] = f(i)
		}
		return out
	}
	inputs := make([]ort.Value, len(ins))
	for i, in := range ins {
		var v ort.Value
		var err error
		switch name := in.Name; {
		case name == "input_ids":
			v, err = ort.NewTensor(ort.NewShape(1, int64(seq)), ints(seq, func(i int) int64 { return int64(ids[i]) }))
		case name == "attention_mask":
			v, err = ort.NewTensor(ort.NewShape(1, int64(total)), ints(total, func(int) int64 { return 1 }))
		case name == "position_ids":
			v, err = ort.NewTensor(ort.NewShape(1, int64(seq)), ints(seq, func(i int) int64 { return int64(done + i) }))
		case name == "use_cache_branch":
			v, err = ort.NewTensor(ort.NewShape(1), []bool{done > 0})
		case name == "logits_to_keep" || name == "num_logits_to_keep":
			v, err = ort.NewScalar(int64(0))
		case strings.HasPrefix(name, "past_key_values."):
			var layer int
			var kv string
			if _, err := fmt.Sscanf(name, "past_key_values.%d.%s", &layer, &kv); err != nil {
				return nil, nil, fmt.Errorf("testmodel: input %s: %w", name, err)
			}
			which := 0
			if kv == "value" {
				which = 1
			}
			v, err = ort.NewTensor(ort.NewShape(1, int64(c.KVHeads), int64(done), int64(c.HeadDim)), past[2*layer+which])
		default:
			return nil, nil, fmt.Errorf("testmodel: no value for the graph's input %s", name)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("testmodel: input %s: %w", in.Name, err)
		}
		values = append(values, v)
		inputs[i] = v
	}
	outputs := make([]ort.Value, len(outs))
	for i, o := range outs {
		shape := ort.NewShape(1, int64(c.KVHeads), int64(total), int64(c.HeadDim))
		if o.Name == "logits" {
			shape = ort.NewShape(1, int64(seq), int64(c.Vocab))
		}
		v, err := ort.NewEmptyTensor[float32](shape)
		if err != nil {
			return nil, nil, err
		}
		values = append(values, v)
		outputs[i] = v
	}
	if err := sess.Run(inputs, outputs); err != nil {
		return nil, nil, err
	}
	var logits, present [][]float32
	for i, o := range outs {
		data := append([]float32(nil), outputs[i].(*ort.Tensor[float32]).GetData()...)
		if o.Name == "logits" {
			for p := 0; p < seq; p++ {
				logits = append(logits, data[p*c.Vocab:(p+1)*c.Vocab])
			}
			continue
		}
		present = append(present, data)
	}
	return logits, present, nil
}
