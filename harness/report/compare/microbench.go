package compare

import (
	"fmt"
	"math"

	"github.com/feather-eval/feather/harness/stats"
	"github.com/feather-eval/feather/harness/suites/microbench"
)

// ScoreDiff is one μBench score (a task, a domain, the index) of both
// sides over what both scored, with B − A and its paired standard error.
type ScoreDiff struct {
	ID, Name string
	// A and B are the scores (0–100) over the paired units: the recorded
	// scores when both sides scored the same items.
	A, B, Diff, SE float64
	// Units is how many units (tasks: scoring units or documents) were
	// paired.
	Units int
}

// Significant reports whether the difference is outside ±1.96 standard
// errors (a two-sided test at Alpha).
func (s ScoreDiff) Significant() bool {
	return s.Diff != 0 && math.Abs(s.Diff) >= stats.Z95*s.SE
}

// MicrobenchDiff is μBench's task, domain and index differences. Every
// standard error is paired: it comes from the per-unit differences
// (per-document for bits per byte), so what both models find hard or
// easy cancels, and tasks are combined as independent, as the suite
// combines them.
type MicrobenchDiff struct {
	Tasks []ScoreDiff
	// Domains lists the domains whose every task was compared.
	Domains []ScoreDiff
	// Index is nil unless all six domains were compared.
	Index *ScoreDiff
	// RecordedA and RecordedB are the indexes the runs recorded (nil:
	// incomplete runs have none).
	RecordedA, RecordedB *float64
	Warnings             []string
}

func microbenchDiff(ra, rb *microbench.Result) *MicrobenchDiff {
	m := &MicrobenchDiff{RecordedA: ra.Index, RecordedB: rb.Index}
	if ra.ItemsSHA256 != rb.ItemsSHA256 {
		m.Warnings = append(m.Warnings, fmt.Sprintf("the two results drew different items (items_sha256 %s and %s): scores are compared over the items both have", short12(ra.ItemsSHA256), short12(rb.ItemsSHA256)))
	}
	tasksB := map[string]microbench.TaskResult{}
	for _, t := range rb.Tasks {
		tasksB[t.ID] = t
	}
	byTask := map[string]ScoreDiff{}
	for _, ta := range ra.Tasks {
		if _, ok := tasksB[ta.ID]; !ok {
			continue
		}
		var d ScoreDiff
		if ta.Reduction == microbench.BitsPerByte {
			d = documentsDiff(ta, ra.Documents, rb.Documents)
		} else {
			d = choiceTaskDiff(ta, ra, rb)
		}
		if d.Units == 0 {
			continue
		}
		byTask[ta.ID] = d
		m.Tasks = append(m.Tasks, d)
	}
	var dv, dA, dB, dse, dw []float64
	for _, dom := range microbench.Domains {
		var va, vb, vd, se []float64
		complete := true
		for _, ta := range ra.Tasks {
			if ta.Domain != dom.ID {
				continue
			}
			d, ok := byTask[ta.ID]
			if !ok {
				complete = false
				break
			}
			va, vb, vd, se = append(va, d.A), append(vb, d.B), append(vd, d.Diff), append(se, d.SE)
		}
		if !complete || len(vd) == 0 {
			continue
		}
		w := make([]float64, len(vd))
		for i := range w {
			w[i] = 1 / float64(len(vd))
		}
		diff, s := microbench.Combine(vd, se, w)
		a, _ := microbench.Combine(va, se, w)
		b, _ := microbench.Combine(vb, se, w)
		m.Domains = append(m.Domains, ScoreDiff{ID: dom.ID, Name: dom.Name, A: a, B: b, Diff: diff, SE: s, Units: len(vd)})
		dv, dA, dB, dse, dw = append(dv, diff), append(dA, a), append(dB, b), append(dse, s), append(dw, dom.Weight)
	}
	if len(dv) == len(microbench.Domains) {
		diff, s := microbench.Combine(dv, dse, dw)
		a, _ := microbench.Combine(dA, dse, dw)
		b, _ := microbench.Combine(dB, dse, dw)
		m.Index = &ScoreDiff{ID: "index", Name: microbench.Name + " Intelligence Index", A: a, B: b, Diff: diff, SE: s, Units: len(dv)}
	}
	return m
}

func short12(s string) string {
	if len(s) > 12 {
		return s[:12] + "…"
	}
	return s
}

// choiceTaskDiff compares a choice task over the scoring units both sides
// scored whole: a unit's accuracy difference is d ∈ {−1, 0, 1}, and the
// chance-normalised score difference carries the standard error of their
// mean, √((Σd²/n − d̄²)/n) (the suite's binomial error, paired), through
// the normalisation as the suite does: 100·se/(1 − chance).
func choiceTaskDiff(t microbench.TaskResult, ra, rb *microbench.Result) ScoreDiff {
	type member struct{ a, b *microbench.ItemRecord }
	var order []string
	units := map[string][]member{}
	unitOf := func(it *microbench.ItemRecord) string {
		if t.Grouped && it.Group != "" {
			return "g\x00" + it.Group
		}
		return "i\x00" + it.ID
	}
	index := map[string]int{}
	for side, r := range []*microbench.Result{ra, rb} {
		for i := range r.Items {
			it := &r.Items[i]
			if it.Task != t.ID {
				continue
			}
			u := unitOf(it)
			if _, ok := units[u]; !ok {
				order = append(order, u)
				units[u] = nil
			}
			k, ok := index[u+"\x00"+it.ID]
			if !ok {
				k = len(units[u])
				index[u+"\x00"+it.ID] = k
				units[u] = append(units[u], member{})
			}
			if side == 0 {
				units[u][k].a = it
			} else {
				units[u][k].b = it
			}
		}
	}
	var n, onlyA, onlyB, bothRight int
	chance := 0.0
	for _, u := range order {
		whole, rightA, rightB, pChance := true, true, true, 1.0
		for _, m := range units[u] {
			if m.a == nil || m.b == nil || m.a.Error != "" || m.b.Error != "" {
				whole = false
				break
			}
			rightA = rightA && m.a.Correct
			rightB = rightB && m.b.Correct
			pChance /= float64(len(m.a.Choices))
		}
		if !whole {
			continue
		}
		n++
		chance += pChance
		switch {
		case rightA && rightB:
			bothRight++
		case rightA:
			onlyA++
		case rightB:
			onlyB++
		}
	}
	d := ScoreDiff{ID: t.ID, Name: t.Name, Units: n}
	if n == 0 {
		return d
	}
	nf := float64(n)
	chance /= nf
	accA, accB := float64(bothRight+onlyA)/nf, float64(bothRight+onlyB)/nf
	d.A, d.B = microbench.ChanceNormalised(accA, chance), microbench.ChanceNormalised(accB, chance)
	d.Diff = d.B - d.A
	mean := float64(onlyB-onlyA) / nf
	se := math.Sqrt(math.Max(0, float64(onlyA+onlyB)/nf-mean*mean) / nf)
	d.SE = microbench.ChanceNormalisedSE(se, chance)
	return d
}

// documentsDiff compares the bits-per-byte task over the documents both
// sides scored. Its standard error is the delta method's for the
// difference of the two scores, 100/ln 5 · (ln bpb_A − ln bpb_B), with
// each ratio linearised per document as the suite's own error is:
// u_i = 100/ln 5 · (r_i^A/bpb_A − r_i^B/bpb_B), r_i = (bits_i − bpb·bytes_i)/Σbytes,
// se = √(n/(n−1)·Σu_i²).
func documentsDiff(t microbench.TaskResult, docsA, docsB []microbench.DocumentRecord) ScoreDiff {
	byID := map[string]microbench.DocumentRecord{}
	for _, doc := range docsB {
		if doc.Task == t.ID && doc.Error == "" {
			byID[doc.ID] = doc
		}
	}
	var bitsA, bitsB, bytes []float64
	var sumA, sumB, sumBytes float64
	for _, da := range docsA {
		db, ok := byID[da.ID]
		if da.Task != t.ID || da.Error != "" || !ok || db.Bytes != da.Bytes {
			continue
		}
		bitsA, bitsB, bytes = append(bitsA, da.Bits), append(bitsB, db.Bits), append(bytes, float64(da.Bytes))
		sumA, sumB, sumBytes = sumA+da.Bits, sumB+db.Bits, sumBytes+float64(da.Bytes)
	}
	d := ScoreDiff{ID: t.ID, Name: t.Name, Units: len(bytes)}
	if d.Units == 0 || sumBytes == 0 {
		d.Units = 0
		return d
	}
	bpbA, bpbB := sumA/sumBytes, sumB/sumBytes
	d.A, d.B = microbench.BPBScore(bpbA), microbench.BPBScore(bpbB)
	d.Diff = d.B - d.A
	if n := len(bytes); n >= 2 && bpbA > 0 && bpbB > 0 {
		k := 100 / math.Log(microbench.BPBFloor/microbench.BPBCeiling)
		ss := 0.0
		for i := range bytes {
			u := k * ((bitsA[i]-bpbA*bytes[i])/(bpbA*sumBytes) - (bitsB[i]-bpbB*bytes[i])/(bpbB*sumBytes))
			ss += u * u
		}
		d.SE = math.Sqrt(float64(n) / float64(n-1) * ss)
	}
	return d
}
