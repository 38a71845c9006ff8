#!/usr/bin/env bash
# Prints the size of the built web app's WebAssembly bundle, raw and gzipped (gzip -9), after
# `trunk build --release`. Usage: scripts/wasm-size.sh [dist-dir]   (default: dist)
set -euo pipefail
dist="${1:-dist}"
shopt -s nullglob
files=("$dist"/*.wasm)
if [ ${#files[@]} -eq 0 ]; then
  echo "wasm-size: no .wasm in $dist/ (run trunk build --release first)" >&2
  exit 1
fi
for f in "${files[@]}"; do
  raw=$(wc -c <"$f")
  gz=$(gzip -9 -c "$f" | wc -c)
  awk -v name="$(basename "$f")" -v raw="$raw" -v gz="$gz" 'BEGIN {
    printf "wasm bundle %s: %d bytes raw (%.1f KiB), %d bytes gzip -9 (%.1f KiB)\n", name, raw, raw / 1024, gz, gz / 1024
  }'
done
