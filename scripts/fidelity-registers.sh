#!/usr/bin/env bash
# Regenerates docs/fidelity/registers.md: runs ptxas 12.6 on the corpus (scripts/ptxas-registers.sh,
# which installs ptxas into target/tmp if needed) and compares with RegLab's registers-per-thread
# estimate (`reglab analyze --fidelity-table`).
# Usage: scripts/fidelity-registers.sh [CORPUS_DIR]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
corpus="${1:-$root/../shared/corpus/ptx}"
mkdir -p "$root/target/tmp" "$root/docs/fidelity"
"$root/scripts/ptxas-registers.sh" "$corpus" > "$root/target/tmp/ptxas.tsv"
cargo run --quiet --release -p reglab-cli -- analyze --fidelity-table "$root/target/tmp/ptxas.tsv" "$corpus" \
    > "$root/docs/fidelity/registers.md"
sed -n '/^| estimate/,/^$/p' "$root/docs/fidelity/registers.md"
