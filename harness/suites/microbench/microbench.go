// Package microbench is Supra-μBench v0.2.0: about 1060 English items in 18
// tasks and six domains, scored by the log-likelihood a base model gives each
// choice's continuation, chance-normalised, plus one bits-per-byte task, all
// rolled into the μBench Intelligence Index. It speaks only lm.Scorer: any
// backend that can score continuations can be evaluated.
//
// The set is built from seeded generators (seed 1234, an independent random
// stream per task) and hand-written items read from a folder
// (testdata/microbench in this repository): see Load.
package microbench

// Version is the Supra-μBench version this package implements.
const Version = "0.2.0"

// Name is the suite's display name.
const Name = "Supra-μBench"

// Seed is the generation seed the spec prescribes.
const Seed = 1234

// MaxLength is the context every μBench sequence is left-truncated to.
const MaxLength = 512

// Domain is one of the six groups of tasks the index averages.
type Domain struct {
	ID     string  `json:"id"`
	Name   string  `json:"name"`
	Weight float64 `json:"weight"`
}

// Domains are the spec's six domains with their index weights (sum 1).
var Domains = []Domain{
	{"D1", "Linguistic Competence", 0.15},
	{"D2", "Lexicon & Semantics", 0.15},
	{"D3", "World Knowledge", 0.15},
	{"D4", "Context Use & Reading", 0.20},
	{"D5", "Elementary Reasoning", 0.20},
	{"D6", "Coherence, Common Sense & LM", 0.15},
}
