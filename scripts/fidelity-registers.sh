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
# Every target the presets simulate (and the other common ones): the whole corpus compiled for it.
targets=()
for sm in sm_52 sm_61 sm_70 sm_75 sm_80 sm_86 sm_89 sm_90; do
    PTXAS_GPU=$sm "$root/scripts/ptxas-registers.sh" "$corpus" > "$root/target/tmp/ptxas-$sm.tsv"
    targets+=(--per-target "$root/target/tmp/ptxas-$sm.tsv")
done
cargo run --quiet --release -p reglab-cli -- analyze --fidelity-table "$root/target/tmp/ptxas.tsv" "${device[@]}" \
    "${targets[@]}" "$corpus" \
    > "$root/docs/fidelity/registers.md"
sed -n '/^| estimate/,/^$/p' "$root/docs/fidelity/registers.md"
