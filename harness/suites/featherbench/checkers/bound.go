package checkers

import (
	"fmt"
	"math"
)

// bound is what a number read from an answer must satisfy: at least min,
// at most max, or within tolerance of value.
type bound struct {
	min, max, value, tol     float64
	hasMin, hasMax, hasValue bool
}

// readBound reads min, max, value, abs_tol and rel_tol. example shows a
// node that sets one, for the error when none is set.
func readBound(s *Spec, example string) bound {
	var b bound
	var abs, rel float64
	b.hasMin = s.Decode("min", &b.min)
	b.hasMax = s.Decode("max", &b.max)
	b.hasValue = s.Decode("value", &b.value)
	hasAbs := s.Decode("abs_tol", &abs)
	hasRel := s.Decode("rel_tol", &rel)
	if s.Err() != nil {
		return b
	}
	switch {
	case !b.hasMin && !b.hasMax && !b.hasValue:
		s.Errorf("", `set "max", "min" or both (a bound), or "value" with "abs_tol" or "rel_tol" (a target), e.g. %s`, example)
	case b.hasValue && (b.hasMin || b.hasMax):
		s.Errorf("value", `is a target; set it or "min"/"max", not both`)
	case (hasAbs || hasRel) && !b.hasValue:
		field := "abs_tol"
		if !hasAbs {
			field = "rel_tol"
		}
		s.Errorf(field, `is the tolerance around "value"; set "value" too, or drop it and use "min"/"max"`)
	case abs < 0 || rel < 0:
		negativeTol(s, abs, rel)
	case b.hasMin && b.hasMax && b.min > b.max:
		s.Errorf("min", "is %s, above max %s; swap them", fmtNum(b.min), fmtNum(b.max))
	}
	b.tol = math.Max(abs, rel*math.Abs(b.value))
	return b
}

// negativeTol reports a negative abs_tol or rel_tol (rel_tol when both
// are), the one rule every checker with a tolerance shares. It returns the
// error, or nil when neither is negative.
func negativeTol(s *Spec, abs, rel float64) error {
	switch {
	case rel < 0:
		return s.Errorf("rel_tol", "must be a non-negative number, not %s", fmtNum(rel))
	case abs < 0:
		return s.Errorf("abs_tol", "must be a non-negative number, not %s", fmtNum(abs))
	}
	return nil
}

func (b bound) ok(v float64) bool {
	const eps = 1e-9
	switch {
	case b.hasValue:
		return math.Abs(v-b.value) <= b.tol+eps
	case b.hasMin && v < b.min-eps:
		return false
	case b.hasMax && v > b.max+eps:
		return false
	}
	return true
}

// String is the bound in words: "at most 30", "between 5 and 30", "42 ± 0.5".
func (b bound) String() string {
	return b.format(fmtNum)
}

func (b bound) format(num func(float64) string) string {
	switch {
	case b.hasValue:
		return fmt.Sprintf("%s ± %s", num(b.value), num(b.tol))
	case b.hasMin && b.hasMax:
		return fmt.Sprintf("between %s and %s", num(b.min), num(b.max))
	case b.hasMax:
		return "at most " + num(b.max)
	}
	return "at least " + num(b.min)
}
