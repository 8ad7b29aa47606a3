// Package parallel runs a batch's items concurrently with a bound on how
// many are in flight, as the API backends do with their requests.
package parallel

import "sync"

// For runs f(0..n-1) with at most limit calls in flight (at least one) and
// returns when all have returned. Calls start in index order. With one
// call in flight at a time (a batch of one, as Featherbench sends every
// trial, or a limit of one) they run on the caller's goroutine: starting
// and then waiting for a goroutine would put two scheduler hand-offs on
// every request's path, and a panic reaches the caller's recover.
func For(n, limit int, f func(i int)) {
	limit = max(limit, 1)
	if n == 1 || limit == 1 {
		for i := range n {
			f(i)
		}
		return
	}
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		sem <- struct{}{}
		wg.Add(1)
		go func(i int) {
			defer func() { <-sem; wg.Done() }()
			f(i)
		}(i)
	}
	wg.Wait()
}
