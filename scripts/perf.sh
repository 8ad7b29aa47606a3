#!/usr/bin/env bash
# Runs every optimized/naive benchmark pair in one `go test -bench`
# invocation and prints how many times faster the optimized side is
# (naive time ÷ optimized time, per operation). Both sides of a pair run
# in the same process on the same machine state, so the ratio is
# meaningful even where absolute times are not. The same run measures the
# goals in GOALS (figures a benchmark reports against a target) and prints
# one line each after the pairs.
#
# Add a pair with one line in PAIRS: package, optimized benchmark, naive
# benchmark. Add a goal with one line in GOALS: package|benchmark|metric
# (a unit the benchmark reports)|printf format of the line, given the
# metric's value. ONLY=<substring> keeps the pairs and goals whose
# package contains it; BENCHTIME sets -benchtime.
set -euo pipefail

PAIRS="
./harness/backends/onnx BenchmarkScoreCached     BenchmarkScoreNaive
./harness/backends/onnx BenchmarkGenerateCached  BenchmarkGenerateRecompute
./harness/suites/microbench/e2e BenchmarkMicrobenchBatched BenchmarkMicrobenchNaive
"

# The goals of issue #18: Featherbench's overhead over HTTP against a
# provider that answers in 200 ms (wall time above ceil(trials/16) × 200
# ms), and writing a finished run's summary and review page from 100,000
# records; both from the fastest of the BENCHTIME runs. Then feather
# against transformers.js (scripts/goldens/perf.mjs; needs node and that
# folder's pinned install) on the same μBench requests and Featherweight
# prompts, on the perf fixture and a SmolLM2-135M-shaped one, as speedups
# in CPU time with identical greedy text, each with the multiply-adds
# transformers.js does ÷ the least work's and the speedup the least work
# would give at ONNX Runtime's best measured rate (the ceiling); and a
# full μBench run ÷ the time to compute each of its distinct prefix
# tokens once on the same engine. Beside generation's floor (each step
# the more of reading the weights and its arithmetic) is an estimate with
# their sum, as ONNX Runtime's kernels measured on the SmolLM2 shape.
# Then each variant file's speed beside the float32 file's on the perf
# fixture (scoring and greedy generation, CPU time; above 1× is faster),
# figures without a goal. Last, feather beside llama.cpp on the
# SmolLM2-135M-shaped fixture (the same weights as ONNX and as GGUF F32
# and Q8_0, the same μBench requests and Featherweight prompts, one
# thread each, CPU time): llama.cpp driven directly through llamalib ÷
# the float32 ONNX file and ÷ the fastest quantized one, and the llamacpp
# backend beside the same library driven directly; then llama.cpp's own
# speeds and how far the two engines agree on the same weights.
GOALS="
./harness/suites/featherbench|BenchmarkFeatherbenchAPIOverhead|overhead-%|featherbench API overhead at concurrency 16: %.1f%% above the ideal wall time (goal < 2%%)
./harness/report|BenchmarkScaleSummaryHTML100k|best-s|summary + HTML from 100k records: %.1f s (goal < 5 s)
./harness/suites/microbench/e2e|BenchmarkVsTransformersJS6L|score-x-tjs|scoring vs transformers.js, 6L fixture: %.1f× (goal ≥ 6×)
./harness/suites/microbench/e2e|BenchmarkVsTransformersJS6L|gen-x-tjs|generation vs transformers.js, 6L fixture: %.1f× (goal ≥ 5×)
./harness/suites/microbench/e2e|BenchmarkVsTransformersJSSmolLM2|score-x-tjs|scoring vs transformers.js, SmolLM2-135M-shaped fixture: %.1f× (goal ≥ 6×)
./harness/suites/microbench/e2e|BenchmarkVsTransformersJSSmolLM2|gen-x-tjs|generation vs transformers.js, SmolLM2-135M-shaped fixture: %.1f× (goal ≥ 5×)
./harness/suites/microbench/e2e|BenchmarkVsTransformersJS6L|score-work-x|  (6L scoring: transformers.js does %.1f× the multiply-adds of the least work; equal speed per multiply-add would give that)
./harness/suites/microbench/e2e|BenchmarkVsTransformersJS6L|gen-work-x|  (6L generation: transformers.js does %.2f× feather's multiply-adds)
./harness/suites/microbench/e2e|BenchmarkVsTransformersJS6L|gmac-per-s|  (6L: ONNX Runtime's best measured rate on this model, one thread: %.1f G multiply-adds/s)
./harness/suites/microbench/e2e|BenchmarkVsTransformersJS6L|score-ceiling-x|  (6L scoring: the least work at ONNX Runtime's best measured rate on this model would give %.1f×)
./harness/suites/microbench/e2e|BenchmarkVsTransformersJS6L|gen-ceiling-x|  (6L generation: the least work at ONNX Runtime's best measured rate on this model would give %.1f×)
./harness/suites/microbench/e2e|BenchmarkVsTransformersJSSmolLM2|score-work-x|  (SmolLM2-shaped scoring: transformers.js does %.1f× the multiply-adds of the least work)
./harness/suites/microbench/e2e|BenchmarkVsTransformersJSSmolLM2|gen-work-x|  (SmolLM2-shaped generation: transformers.js does %.2f× feather's multiply-adds)
./harness/suites/microbench/e2e|BenchmarkVsTransformersJSSmolLM2|gmac-per-s|  (SmolLM2-shaped: ONNX Runtime's best measured rate on this model, one thread: %.1f G multiply-adds/s)
./harness/suites/microbench/e2e|BenchmarkVsTransformersJSSmolLM2|score-ceiling-x|  (SmolLM2-shaped scoring: the least work at ONNX Runtime's best measured rate on this model would give %.1f×)
./harness/suites/microbench/e2e|BenchmarkVsTransformersJSSmolLM2|gen-ceiling-x|  (SmolLM2-shaped generation: the least work at ONNX Runtime's best measured rate on this model would give %.1f×)
./harness/suites/microbench/e2e|BenchmarkVsTransformersJS6L|gen-floor-x|  (6L generation: the least time at that rate, each decoding step reading the weights once, would give %.1f×)
./harness/suites/microbench/e2e|BenchmarkVsTransformersJS6L|gen-serial-x|  (6L generation: the same with each step's read and arithmetic adding up instead, as ONNX Runtime's kernels measured on the SmolLM2 shape, would give %.1f×: an estimate, not a bound)
./harness/suites/microbench/e2e|BenchmarkVsTransformersJSSmolLM2|weight-read-ms|  (SmolLM2-shaped: reading the weights once takes %.1f ms, from the cheapest call)
./harness/suites/microbench/e2e|BenchmarkVsTransformersJSSmolLM2|gen-floor-x|  (SmolLM2-shaped generation: the least time at that rate, each decoding step reading the weights once, would give %.1f×)
./harness/suites/microbench/e2e|BenchmarkVsTransformersJSSmolLM2|gen-serial-x|  (SmolLM2-shaped generation: the same with each step's read and arithmetic adding up instead, as ONNX Runtime's kernels measured on this shape, would give %.1f×: an estimate, not a bound)
./harness/suites/microbench/e2e|BenchmarkMicrobenchBound|x-bound|μBench ÷ distinct-prefix bound: %.2f× (goal ≤ 1.1×)
./harness/backends/onnx|BenchmarkVariants|fp16-score-x|variant fp16, scoring speed ÷ fp32's on the perf fixture: %.2f×
./harness/backends/onnx|BenchmarkVariants|fp16-gen-x|variant fp16, generation speed ÷ fp32's on the perf fixture: %.2f×
./harness/backends/onnx|BenchmarkVariants|q4-score-x|variant q4 (MatMulNBits), scoring speed ÷ fp32's on the perf fixture: %.2f×
./harness/backends/onnx|BenchmarkVariants|q4-gen-x|variant q4 (MatMulNBits), generation speed ÷ fp32's on the perf fixture: %.2f×
./harness/backends/onnx|BenchmarkVariants|int8-score-x|variant int8 (dynamic), scoring speed ÷ fp32's on the perf fixture: %.2f×
./harness/backends/onnx|BenchmarkVariants|int8-gen-x|variant int8 (dynamic), generation speed ÷ fp32's on the perf fixture: %.2f×
./harness/backends/onnx|BenchmarkVariants|uint8-score-x|variant uint8 (dynamic), scoring speed ÷ fp32's on the perf fixture: %.2f×
./harness/backends/onnx|BenchmarkVariants|uint8-gen-x|variant uint8 (dynamic), generation speed ÷ fp32's on the perf fixture: %.2f×
./harness/suites/microbench/e2e|BenchmarkVsLlamaCpp|f32-x-score|scoring vs llama.cpp F32, SmolLM2-135M-shaped fixture, onnx fp32: %.2f× (goal ≥ 1.5×)
./harness/suites/microbench/e2e|BenchmarkVsLlamaCpp|f32-x-gen|generation vs llama.cpp F32, SmolLM2-135M-shaped fixture, onnx fp32: %.2f× (goal ≥ 1.5×)
./harness/suites/microbench/e2e|BenchmarkVsLlamaCpp|ckpt-f32-x-score|scoring vs llama.cpp F32, the same weights as a checkpoint (prefix-tree scoring): %.2f× (goal ≥ 1.5×)
./harness/suites/microbench/e2e|BenchmarkVsLlamaCpp|ckpt-f32-x-gen|generation vs llama.cpp F32, the same weights as a checkpoint: %.2f× (goal ≥ 1.5×)
./harness/suites/microbench/e2e|BenchmarkVsLlamaCpp|q8-x-score|scoring vs llama.cpp Q8_0, SmolLM2-135M-shaped fixture, the fastest quantized onnx model: %.2f× (goal ≥ 1×)
./harness/suites/microbench/e2e|BenchmarkVsLlamaCpp|q8-x-gen|generation vs llama.cpp Q8_0, SmolLM2-135M-shaped fixture, the fastest quantized onnx model: %.2f× (goal ≥ 1×)
./harness/suites/microbench/e2e|BenchmarkVsLlamaCpp|ckpt-int8-x-q8-score|  (onnx checkpoint, dtype int8, scoring ÷ llama.cpp Q8_0: %.2f×)
./harness/suites/microbench/e2e|BenchmarkVsLlamaCpp|ckpt-int8-x-q8-gen|  (onnx checkpoint, dtype int8, generation ÷ llama.cpp Q8_0: %.2f×)
./harness/suites/microbench/e2e|BenchmarkVsLlamaCpp|int8-x-q8-score|  (onnx int8 scoring ÷ llama.cpp Q8_0: %.2f×)
./harness/suites/microbench/e2e|BenchmarkVsLlamaCpp|int8-x-q8-gen|  (onnx int8 generation ÷ llama.cpp Q8_0: %.2f×)
./harness/suites/microbench/e2e|BenchmarkVsLlamaCpp|uint8-x-q8-score|  (onnx uint8 scoring ÷ llama.cpp Q8_0: %.2f×)
./harness/suites/microbench/e2e|BenchmarkVsLlamaCpp|uint8-x-q8-gen|  (onnx uint8 generation ÷ llama.cpp Q8_0: %.2f×)
./harness/suites/microbench/e2e|BenchmarkVsLlamaCpp|q4-x-q8-score|  (onnx q4 scoring ÷ llama.cpp Q8_0: %.2f×)
./harness/suites/microbench/e2e|BenchmarkVsLlamaCpp|q4-x-q8-gen|  (onnx q4 generation ÷ llama.cpp Q8_0: %.2f×)
./harness/suites/microbench/e2e|BenchmarkVsLlamaCpp|backend-f32-x-score|llamacpp backend scoring ÷ llama.cpp F32 driven directly: %.2f× (goal ≥ 0.9×)
./harness/suites/microbench/e2e|BenchmarkVsLlamaCpp|backend-f32-x-gen|llamacpp backend generation ÷ llama.cpp F32 driven directly: %.2f× (goal ≥ 0.9×)
./harness/suites/microbench/e2e|BenchmarkVsLlamaCpp|backend-q8-x-score|llamacpp backend scoring ÷ llama.cpp Q8_0 driven directly: %.2f× (goal ≥ 0.9×)
./harness/suites/microbench/e2e|BenchmarkVsLlamaCpp|backend-q8-x-gen|llamacpp backend generation ÷ llama.cpp Q8_0 driven directly: %.2f× (goal ≥ 0.9×)
./harness/suites/microbench/e2e|BenchmarkVsLlamaCpp|f32-prefill-tok-s|  (llama.cpp F32 driven directly, one thread: prefill %.0f tokens/s,
./harness/suites/microbench/e2e|BenchmarkVsLlamaCpp|f32-decode-tok-s|   decoding %.1f tokens/s,
./harness/suites/microbench/e2e|BenchmarkVsLlamaCpp|f32-score-req-s|   scoring %.1f requests/s)
./harness/suites/microbench/e2e|BenchmarkVsLlamaCpp|q8-prefill-tok-s|  (llama.cpp Q8_0 driven directly, one thread: prefill %.0f tokens/s,
./harness/suites/microbench/e2e|BenchmarkVsLlamaCpp|q8-decode-tok-s|   decoding %.1f tokens/s,
./harness/suites/microbench/e2e|BenchmarkVsLlamaCpp|q8-score-req-s|   scoring %.1f requests/s)
./harness/suites/microbench/e2e|BenchmarkVsLlamaCpp|f32-max-dlogprob|  (llama.cpp F32 and onnx fp32 on the same weights: requests' log-likelihoods differ by at most %.2g,
./harness/suites/microbench/e2e|BenchmarkVsLlamaCpp|f32-same-text|   %.0f of the 8 greedy texts are the same)
"

GO=${GO:-go}
BENCHTIME=${BENCHTIME:-3x}
PAIRS=$(awk -v only="${ONLY:-}" 'NF && index($1, only)' <<<"$PAIRS")
GOALS=$(awk -F'|' -v only="${ONLY:-}" 'NF && index($1, only)' <<<"$GOALS")
[ -n "$PAIRS$GOALS" ] || { echo "perf: no benchmark pair or goal matches ONLY=$ONLY" >&2; exit 2; }

pkgs=$({ awk 'NF {print $1}' <<<"$PAIRS"; awk -F'|' 'NF {print $1}' <<<"$GOALS"; } | sort -u | tr '\n' ' ')
names=$({ awk 'NF {print $2; print $3}' <<<"$PAIRS"; awk -F'|' 'NF {print $2}' <<<"$GOALS"; } | sort -u | paste -sd'|')

out=$(mktemp)
trap 'rm -f "$out"' EXIT
# -p 1 runs the packages one after another, so no pair shares the CPUs
# with another package's benchmarks.
# shellcheck disable=SC2086
"$GO" test -p 1 -run '^$' -bench "^(${names})\$" -benchtime "$BENCHTIME" -count 1 $pkgs | tee "$out"

# print_pairs prints each pair's speedup.
print_pairs() {
  echo
  printf '%-16s %-28s %-28s %9s %14s %14s %9s\n' package optimized naive metric "optimized/op" "naive/op" speedup
  while read -r pkg opt naive; do
    [ -n "$pkg" ] || continue
    # go test prints "pkg: <import path>" before a package's benchmarks and
    # "BenchmarkName-<procs>  N  T ns/op  [V unit]...". A pair whose sides
    # both report cpu-ns/op (CPU time, which a busy machine disturbs far less
    # than wall time) is compared on it, otherwise on ns/op.
    read -r metric to tn < <(awk -v want="${pkg#./}" -v o="$opt" -v n="$naive" '
      /^pkg: / { cur = $2; next }
      /^Benchmark/ && index(cur, want) == length(cur) - length(want) + 1 {
        name = $1; sub(/-[0-9]+$/, "", name)
        t = ""; c = ""
        for (i = 2; i < NF; i++) {
          if ($(i+1) == "ns/op") t = $i
          if ($(i+1) == "cpu-ns/op") c = $i
        }
        if (name == o) { ot = t; oc = c }
        if (name == n) { nt = t; nc = c }
      }
      END {
        if (oc != "" && nc != "") print "cpu", oc, nc
        else print "wall", (ot == "" ? "-" : ot), (nt == "" ? "-" : nt)
      }' "$out")
    if [ "$to" = "-" ] || [ "$tn" = "-" ]; then
      printf '%-16s %-28s %-28s %9s %14s %14s %9s\n' "${pkg#./harness/}" "$opt" "$naive" "$metric" "$to" "$tn" "missing"
      status=1
      continue
    fi
    printf '%-16s %-28s %-28s %9s %14s %14s %8.2fx\n' "${pkg#./harness/}" "$opt" "$naive" "$metric" "$to ns" "$tn ns" \
      "$(awk -v a="$tn" -v b="$to" 'BEGIN { print a / b }')"
  done <<<"$PAIRS"
}

# print_goals prints each goal's line with the figure measured.
print_goals() {
  echo
  while IFS='|' read -r pkg bench unit line; do
    [ -n "$pkg" ] || continue
    # The value before "<unit>" on the benchmark's line, in its package.
    value=$(awk -v want="${pkg#./}" -v b="$bench" -v u="$unit" '
      /^pkg: / { cur = $2; next }
      /^Benchmark/ && index(cur, want) == length(cur) - length(want) + 1 {
        name = $1; sub(/-[0-9]+$/, "", name)
        if (name != b) next
        for (i = 2; i < NF; i++) if ($(i+1) == u) v = $i
      }
      END { print (v == "" ? "-" : v) }' "$out")
    if [ "$value" = "-" ]; then
      echo "${pkg#./harness/} $bench: no $unit figure (missing)"
      status=1
      continue
    fi
    # shellcheck disable=SC2059
    printf "$line\n" "$value"
  done <<<"$GOALS"
}

status=0
[ -z "$PAIRS" ] || print_pairs
[ -z "$GOALS" ] || print_goals
exit $status
