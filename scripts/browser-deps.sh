#!/usr/bin/env bash
# Installs the system packages the tests need beyond Go, when they are
# missing and we are root or have sudo:
#   - Debian's chromium, for the HTML report browser tests;
#   - bubblewrap (bwrap), which harness/suites/featherbench/sandbox uses to contain
#     model-written code (python_tests). Without it the sandbox falls back
#     to bare namespaces where the kernel allows them, and otherwise refuses
#     to run such code.
# Without root or sudo it says what to install and exits 0: the browser
# tests then skip with the same advice. Idempotent: with both present it
# touches neither apt nor the network.
set -euo pipefail

packages=()

browser=""
for b in "${CHROME:-}" chromium chromium-browser google-chrome google-chrome-stable; do
  if [ -n "$b" ] && command -v "$b" >/dev/null 2>&1; then
    browser=$(command -v "$b")
    break
  fi
done
if [ -n "$browser" ]; then
  echo "browser-deps: $browser already installed"
else
  packages+=(chromium)
fi

if command -v bwrap >/dev/null 2>&1; then
  echo "browser-deps: $(command -v bwrap) already installed"
else
  packages+=(bubblewrap)
fi

if [ ${#packages[@]} -eq 0 ]; then
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "browser-deps: ${packages[*]} missing and no apt-get; install them yourself (for the browser, setting CHROME to a Chromium's path also does)" >&2
  exit 0
fi

as_root=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    as_root=(sudo -n)
  else
    echo "browser-deps: ${packages[*]} missing and installing needs root: run 'sudo apt-get install -y ${packages[*]}' (until then the report browser tests skip, and the sandbox uses bare namespaces or refuses to run model-written code)" >&2
    exit 0
  fi
fi

echo "browser-deps: installing ${packages[*]} with apt-get"
export DEBIAN_FRONTEND=noninteractive
if ! "${as_root[@]}" apt-get install -y --no-install-recommends "${packages[@]}" >/dev/null; then
  "${as_root[@]}" apt-get update >/dev/null
  "${as_root[@]}" apt-get install -y --no-install-recommends "${packages[@]}" >/dev/null
fi
for p in "${packages[@]}"; do
  case "$p" in
    chromium) echo "browser-deps: $(command -v chromium || echo chromium) installed" ;;
    bubblewrap) echo "browser-deps: $(command -v bwrap || echo bubblewrap) installed" ;;
  esac
done
