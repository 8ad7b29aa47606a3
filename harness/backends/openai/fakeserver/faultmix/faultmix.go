// Package faultmix turns a fakeserver into a flaky provider: every
// request draws one fault kind (or none) in a stated share of requests,
// from a seed, so a long run meets each way real providers fail in
// realistic proportions. It counts what it injected by kind and the
// ideal time the run needed for it: the provider's own pace plus the
// waits its faults impose, with no client overhead at all.
package faultmix

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/feather-eval/feather/harness/backends/openai/fakeserver"
)

// Kind is one way a provider fails a request.
type Kind string

// The kinds, in the order figures list them.
const (
	RateLimit  Kind = "429 with Retry-After"
	Status500  Kind = "500"
	Status503  Kind = "503 with Retry-After"
	Reset      Kind = "connection reset mid-stream"
	Hang       Kind = "stream hangs mid-way"
	Malformed  Kind = "malformed SSE chunk"
	SlowDrip   Kind = "slow drip"
	WrongUsage Kind = "wrong usage"
)

// Kinds lists every kind in order.
var Kinds = []Kind{RateLimit, Status500, Status503, Reset, Hang, Malformed, SlowDrip, WrongUsage}

// Retried reports whether a client retries the kind: an answer with a
// 429 or 5xx status and no token. The other kinds fail, or slow, a
// stream whose tokens have begun.
func (k Kind) Retried() bool { return k == RateLimit || k == Status500 || k == Status503 }

// Terminal reports whether the kind ends the request in an error after
// tokens arrived, which a client must not retry (they may be billed).
func (k Kind) Terminal() bool { return k == Reset || k == Hang || k == Malformed }

// Share is a kind and the fraction of requests that get it.
type Share struct {
	Kind     Kind
	Fraction float64
}

// Mix is a provider whose requests fail in stated shares.
type Mix struct {
	// Seed draws the kinds: the same seed, requests and attempts give the
	// same faults.
	Seed uint64
	// Shares of requests per kind; the rest are answered cleanly. They
	// must add up to at most 1.
	Shares []Share
	// Answer is the clean reply to a request.
	Answer fakeserver.Script
	// Pace is the pause between a clean answer's chunks, Drip a slow
	// drip's.
	Pace, Drip time.Duration
	// RetryAfter is what 429 and 503 answers ask the client to wait.
	RetryAfter time.Duration
	// Backoff is the client's mean wait before retrying a 500, which
	// sends no Retry-After (its first backoff), and Timeout its attempt
	// time limit: how long a hung stream holds a request.
	Backoff, Timeout time.Duration

	mu       sync.Mutex
	injected map[Kind]int
	garbled  int
	requests int
	ideal    time.Duration
}

// Script is the mix as a fakeserver script.
func (m *Mix) Script() fakeserver.Script {
	return func(r fakeserver.Request) fakeserver.Reply {
		kind, draw := m.pick(r)
		rep, garbled := m.reply(kind, draw, m.Answer(r))
		m.count(kind, rep, garbled)
		return rep
	}
}

// pick draws the request's kind ("" for none), and a second draw for the
// kind's variant, from the seed, the body and the attempt.
func (m *Mix) pick(r fakeserver.Request) (Kind, uint64) {
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], m.Seed)
	h.Write(b[:])
	h.Write([]byte(r.Path))
	h.Write(r.Body)
	binary.LittleEndian.PutUint64(b[:], uint64(r.Attempt))
	h.Write(b[:])
	sum := h.Sum64()
	u := float64(sum>>11) / (1 << 53)
	for _, s := range m.Shares {
		if u < s.Fraction {
			return s.Kind, sum
		}
		u -= s.Fraction
	}
	return "", sum
}

// usages are the wrong usage objects sent, by draw: counts as floats or
// strings (a careful client reads them), or garbage (it cannot).
var usages = []struct {
	json     string
	readable bool
}{
	{`{"prompt_tokens": %d.0, "completion_tokens": %d.0, "total_tokens": 0}`, true},
	{`{"prompt_tokens": "%d", "completion_tokens": "%d"}`, true},
	{`{"prompt_tokens": null, "completion_tokens": -1}`, false},
	{`"n/a"`, false},
}

// reply is the clean answer with the kind's fault in it; garbled says
// that a wrong usage carries no readable counts.
func (m *Mix) reply(kind Kind, draw uint64, clean fakeserver.Reply) (rep fakeserver.Reply, garbled bool) {
	retryAfter := strconv.FormatFloat(m.RetryAfter.Seconds(), 'f', -1, 64)
	switch kind {
	case RateLimit:
		return fakeserver.Reply{Status: 429, RetryAfter: retryAfter, ErrorMessage: "rate limited: slow down"}, false
	case Status500:
		return fakeserver.Reply{Status: 500, ErrorMessage: "internal server error"}, false
	case Status503:
		return fakeserver.Reply{Status: 503, RetryAfter: retryAfter, ErrorMessage: "overloaded"}, false
	case Reset:
		clean.Chunks = half(clean)
		clean.Truncate, clean.Reset = true, true
	case Hang:
		clean.Chunks = half(clean)
		clean.Stall = true
	case Malformed:
		clean.Malformed = "data: {\"choices\": [{\"delta\": {\"cont\n\n"
	case SlowDrip:
		clean.ChunkDelay = m.Drip
	case WrongUsage:
		u := usages[(draw>>3)%uint64(len(usages))]
		if !u.readable {
			clean.Usage = json.RawMessage(u.json)
			return clean, true
		}
		clean.Usage = json.RawMessage(fmt.Sprintf(u.json, clean.PromptTokens, clean.CompletionTokens))
	}
	return clean, false
}

// half is the first half of the reply's content pieces.
func half(r fakeserver.Reply) []string {
	p := pieces(r)
	return p[:(len(p)+1)/2]
}

func pieces(r fakeserver.Reply) []string {
	if r.Chunks != nil {
		return r.Chunks
	}
	return fakeserver.Tokenize(r.Text)
}

// count books the request: its kind, and the time it needs at the least.
func (m *Mix) count(kind Kind, rep fakeserver.Reply, garbled bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.injected == nil {
		m.injected = map[Kind]int{}
	}
	m.requests++
	if kind != "" {
		m.injected[kind]++
	}
	if garbled {
		m.garbled++
	}
	m.ideal += m.cost(kind, rep)
}

// cost is the least time a request takes the client: the server's
// pauses between events, and the wait the answer imposes after it.
func (m *Mix) cost(kind Kind, rep fakeserver.Reply) time.Duration {
	pace := m.Pace
	n := len(pieces(rep))
	switch kind {
	case RateLimit, Status503:
		return m.RetryAfter
	case Status500:
		return m.Backoff
	case Reset:
		return time.Duration(n) * pace // the role chunk, then the pieces
	case Hang:
		return m.Timeout
	case Malformed:
		return time.Duration(n/2) * pace // the client stops at the bad chunk
	case SlowDrip:
		pace = m.Drip
	}
	return time.Duration(n+2) * pace // role, pieces, finish, usage
}

// Stats is what a mix has served.
type Stats struct {
	Requests int
	Injected map[Kind]int
	// Garbled is how many wrong usages carried no readable counts.
	Garbled int
	// Ideal is the sum of the requests' least times.
	Ideal time.Duration
}

// Stats are the counts so far.
func (m *Mix) Stats() Stats {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := Stats{Requests: m.requests, Injected: map[Kind]int{}, Garbled: m.garbled, Ideal: m.ideal}
	for k, n := range m.injected {
		out.Injected[k] = n
	}
	return out
}

// Sub is the difference of two snapshots: what was served in between.
func (s Stats) Sub(before Stats) Stats {
	out := Stats{Requests: s.Requests - before.Requests, Injected: map[Kind]int{}, Garbled: s.Garbled - before.Garbled, Ideal: s.Ideal - before.Ideal}
	for _, k := range Kinds {
		if n := s.Injected[k] - before.Injected[k]; n != 0 {
			out.Injected[k] = n
		}
	}
	return out
}

// IdealWall is the least wall time for the requests at concurrency c:
// their least times spread perfectly over c slots.
func (s Stats) IdealWall(c int) time.Duration {
	return time.Duration(math.Ceil(float64(s.Ideal) / float64(c)))
}

// Check reports a mix whose shares cannot be drawn.
func (m *Mix) Check() error {
	total := 0.0
	for _, s := range m.Shares {
		if s.Fraction < 0 || !slices.Contains(Kinds, s.Kind) {
			return fmt.Errorf("faultmix: share %v of %q", s.Fraction, s.Kind)
		}
		total += s.Fraction
	}
	if total > 1 {
		return fmt.Errorf("faultmix: the shares add up to %v, more than 1", total)
	}
	return nil
}
