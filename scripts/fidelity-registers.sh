#!/usr/bin/env bash
# Regenerates docs/fidelity/registers.md: runs ptxas 12.6 on the corpus (scripts/ptxas-registers.sh,
# which installs ptxas into target/tmp if needed) and compares with RegLab's registers-per-thread
# estimate (`reglab analyze --fidelity-table`), with the driver JIT's counts of
# docs/fidelity/device-regs.tsv as a second reference when that file is there.
# Usage: scripts/fidelity-registers.sh [CORPUS_DIR]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
corpus="${1:-$root/../shared/corpus/ptx}"
mkdir -p "$root/target/tmp" "$root/docs/fidelity"
"$root/scripts/ptxas-registers.sh" "$corpus" > "$root/target/tmp/ptxas.tsv"
device=()
# Register counts from the CUDA driver's JIT on a real GPU (sm_90), when present.
[ -f "$root/docs/fidelity/device-regs.tsv" ] && device=(--device-regs "$root/docs/fidelity/device-regs.tsv")
cargo run --quiet --release -p reglab-cli -- analyze --fidelity-table "$root/target/tmp/ptxas.tsv" "${device[@]}" "$corpus" \
    > "$root/docs/fidelity/registers.md"
sed -n '/^| estimate/,/^$/p' "$root/docs/fidelity/registers.md"
