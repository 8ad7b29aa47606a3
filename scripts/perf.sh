#!/usr/bin/env bash
# Runs every optimized/naive benchmark pair in one `go test -bench`
# invocation and prints how many times faster the optimized side is
# (naive time ÷ optimized time, per operation). Both sides of a pair run
# in the same process on the same machine state, so the ratio is
# meaningful even where absolute times are not.
#
# Add a pair with one line in PAIRS: package, optimized benchmark, naive
# benchmark. ONLY=<substring> keeps the pairs whose package contains it;
# BENCHTIME sets -benchtime.
set -euo pipefail

PAIRS="
./harness/backends/onnx BenchmarkScoreCached     BenchmarkScoreNaive
./harness/backends/onnx BenchmarkGenerateCached  BenchmarkGenerateRecompute
./harness/suites/microbench/e2e BenchmarkMicrobenchBatched BenchmarkMicrobenchNaive
"

GO=${GO:-go}
BENCHTIME=${BENCHTIME:-3x}
PAIRS=$(awk -v only="${ONLY:-}" 'NF && index($1, only)' <<<"$PAIRS")
[ -n "$PAIRS" ] || { echo "perf: no benchmark pair matches ONLY=$ONLY" >&2; exit 2; }

pkgs=$(awk 'NF {print $1}' <<<"$PAIRS" | sort -u | tr '\n' ' ')
names=$(awk 'NF {print $2; print $3}' <<<"$PAIRS" | sort -u | paste -sd'|')

out=$(mktemp)
trap 'rm -f "$out"' EXIT
# -p 1 runs the packages one after another, so no pair shares the CPUs
# with another package's benchmarks.
# shellcheck disable=SC2086
"$GO" test -p 1 -run '^$' -bench "^(${names})\$" -benchtime "$BENCHTIME" -count 1 $pkgs | tee "$out"

echo
printf '%-16s %-28s %-28s %9s %14s %14s %9s\n' package optimized naive metric "optimized/op" "naive/op" speedup
status=0
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
exit $status
