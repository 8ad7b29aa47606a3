#!/usr/bin/env bash
# Runs every fuzz target in the module, one after another, for FUZZTIME each
# (default 5m) with one worker, so the machine stays usable, and at most 10s
# minimizing each new input, so a slow target keeps fuzzing. ONLY=<FuzzName>
# runs just that one. A failing input stops the loop; it is saved under the
# package's testdata/fuzz/<FuzzName>/ and becomes a regression seed that
# plain `go test` runs from then on.
#
# Go 1.26's fuzz coordinator can fail a target with a bare "context deadline
# exceeded" when -fuzztime runs out while a worker is busy (go.dev/issue/75804,
# fixed in Go 1.27): no input is written then, and the seeds are replayed to
# confirm it, so that case is reported and not counted as a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
FUZZTIME=${FUZZTIME:-5m}
found=0
failed=0
while IFS= read -r pkg; do
  dir=$($GO list -f '{{.Dir}}' "$pkg")
  for target in $($GO test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
    if [ -n "${ONLY:-}" ] && [ "$target" != "$ONLY" ]; then
      continue
    fi
    found=1
    corpus="$dir/testdata/fuzz/$target"
    before=$(ls "$corpus" 2>/dev/null | sort || true)
    echo "== $pkg $target ($FUZZTIME)"
    log=$(mktemp)
    if $GO test -run '^$' -fuzz "^${target}\$" -fuzztime "$FUZZTIME" -fuzzminimizetime 10s -parallel 1 "$pkg" 2>&1 | tee "$log"; then
      rm -f "$log"
      continue
    fi
    after=$(ls "$corpus" 2>/dev/null | sort || true)
    if [ "$before" = "$after" ] && grep -q 'context deadline exceeded' "$log" &&
      $GO test -count=1 -run "^${target}\$" "$pkg" >/dev/null; then
      echo "fuzz: $target: the coordinator's end-of-fuzztime race (go.dev/issue/75804), no failing input; seeds replayed clean"
    else
      echo "fuzz: $target failed; a failing input is in $corpus" >&2
      failed=1
    fi
    rm -f "$log"
    [ "$failed" = 0 ] || exit 1
  done
done < <($GO list ./...)
if [ "$found" = 0 ]; then
  echo "fuzz: no fuzz target${ONLY:+ named $ONLY}" >&2
  exit 1
fi
