package checkers

import (
	"context"
	"fmt"
	"strings"
)

func init() { Register("all", compileAll) }

// all: every sub-check passes. Every sub-check runs, so a failure names
// each bar that was missed, by label.
func compileAll(s *Spec) (Func, error) {
	checks := s.Checks("checks")
	if s.Err() != nil {
		return nil, s.Err()
	}
	return func(ctx context.Context, r Response) (bool, string, error) {
		var misses []string
		for _, c := range checks {
			ok, detail, err := c.Func(ctx, r)
			if err != nil {
				return false, "", fmt.Errorf("%s: %w", c.Label, err)
			}
			if !ok {
				misses = append(misses, c.Label+": "+detail)
			}
		}
		if len(misses) > 0 {
			return false, fmt.Sprintf("%d of %d checks failed: %s", len(misses), len(checks), strings.Join(misses, "; ")), nil
		}
		return true, fmt.Sprintf("all %d checks passed", len(checks)), nil
	}, nil
}
