package lm

// Window is one call of a rolling log-likelihood: Tokens conditioned on
// and scored, of which the last Scored are scored.
type Window struct {
	Tokens []int
	Scored int
}

// RollingWindows is how every scorer splits a document for
// RollingLogLikelihood: lm-eval's get_rolling_token_windows with
// context_len 1 followed by make_disjoint_window, for sequences of at most
// window tokens (the conditioning tokens included). The first window is
// the prefix token and the first window-1 tokens; each later one predicts
// the next window-1 tokens (fewer at the end) given the tokens just before
// them. Every token is scored exactly once, in order.
func RollingWindows(tokens []int, prefix, window int) []Window {
	if len(tokens) == 0 {
		return nil
	}
	predLen := window - 1
	first := min(predLen, len(tokens))
	out := []Window{{Tokens: append([]int{prefix}, tokens[:first]...), Scored: first}}
	for done := first; done < len(tokens); {
		n := min(len(tokens)-done, predLen)
		end := done + n
		out = append(out, Window{Tokens: tokens[end-window : end], Scored: n})
		done = end
	}
	return out
}
