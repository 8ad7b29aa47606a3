package local

import "slices"

// SortByTokens orders n token sequences (tokens(i) is sequence i's) by
// their tokens, ties in index order, so that those beginning alike are
// neighbours: in this order a sequence shares no more leading tokens
// with any earlier one than with the one just before it. common[k] is
// how many order[k] shares with order[k-1] (0 for the first). Both
// engines find their shared prefixes in this order.
func SortByTokens(n int, tokens func(i int) []int) (order, common []int) {
	order = make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return slices.Compare(tokens(a), tokens(b)) })
	common = make([]int, n)
	for k := 1; k < n; k++ {
		common[k] = commonPrefix(tokens(order[k-1]), tokens(order[k]))
	}
	return order, common
}

func commonPrefix(a, b []int) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}
