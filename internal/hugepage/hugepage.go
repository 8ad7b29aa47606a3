// Package hugepage backs a process's large, resident, private anonymous
// memory with transparent huge pages.
//
// ONNX Runtime allocates a model's weights (its packed copies of them)
// through malloc, which on Linux's default transparent-huge-page mode
// ("madvise") gets 4 KiB pages. Decoding a token streams every weight
// once, and with 4 KiB pages the address translations cost as much as the
// arithmetic: in a virtual machine, whose page walks are two-dimensional,
// a SmolLM2-sized decode ran up to twice as fast on huge pages, and how
// fast it ran on small ones depended on where the allocations landed.
// Collapse asks the kernel for huge pages after the weights exist, for
// all such memory but the Go heap's mapping, which the Go runtime pages
// itself.
package hugepage

// Result says what Collapse did.
type Result struct {
	// Advised is how many bytes were asked to become huge pages;
	// Collapsed how many of them the kernel collapsed.
	Advised, Collapsed int64
	// Err is the first refusal, when any (an older kernel, transparent
	// huge pages switched off, no free huge pages); Collapse is advice,
	// and the memory works as before either way.
	Err error
}
