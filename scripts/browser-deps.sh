#!/usr/bin/env bash
# Installs Debian's chromium for the HTML report browser tests when it is
# missing and we are root or have sudo. Without either it says so and exits
# 0: the browser tests then skip with the same advice. Idempotent: with a
# browser present it touches neither apt nor the network.
set -euo pipefail

for b in "${CHROME:-}" chromium chromium-browser google-chrome google-chrome-stable; do
  if [ -n "$b" ] && command -v "$b" >/dev/null 2>&1; then
    echo "browser-deps: $(command -v "$b") already installed"
    exit 0
  fi
done

if ! command -v apt-get >/dev/null 2>&1; then
  echo "browser-deps: no chromium and no apt-get; install Chromium yourself (or set CHROME to its path) to run the report browser tests" >&2
  exit 0
fi

as_root=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    as_root=(sudo -n)
  else
    echo "browser-deps: chromium is missing and installing it needs root: run 'sudo apt-get install -y chromium' (the report browser tests skip until then)" >&2
    exit 0
  fi
fi

echo "browser-deps: installing chromium with apt-get"
export DEBIAN_FRONTEND=noninteractive
if ! "${as_root[@]}" apt-get install -y --no-install-recommends chromium >/dev/null; then
  "${as_root[@]}" apt-get update >/dev/null
  "${as_root[@]}" apt-get install -y --no-install-recommends chromium >/dev/null
fi
echo "browser-deps: $(command -v chromium) installed"
