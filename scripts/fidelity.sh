#!/usr/bin/env bash
# Regenerates the fidelity report, docs/fidelity/: every check of RegLab against its reference,
# then the index docs/fidelity/README.md (scripts/fidelity-index.py) with each check's figure and
# reference at a glance. Release builds throughout; the heavy runs take tens of minutes.
#
#   registers vs ptxas 12.6   docs/fidelity/registers.md   (generated: scripts/fidelity-registers.sh)
#   cycles vs GPGPU-Sim       docs/fidelity/gpgpu-sim.md   (generated: tests/gpgpusim_cycles.rs)
#   occupancy vs NVIDIA       tests/occupancy_reference.rs (cuda_occupancy.h, CUDA 12.6)
#   functional vs expected    file tests (tests/cases), examples, BFS, corpus kernels
#   schemes vs their papers   each page's own measurement (rfc-ob, demo, finereg, gilani,
#                             launch proposals); their pages are written by their authors from
#                             these outputs, which are kept in target/tmp/fidelity/ to compare.
#
# Usage: scripts/fidelity.sh [CORPUS_DIR]     (FIDELITY_QUICK=1 skips the scheme measurements)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
corpus="$(cd "${1:-$root/../shared/corpus/ptx}" && pwd)"
out="$root/target/tmp/fidelity"
mkdir -p "$out"
export REGLAB_CORPUS="$corpus"
cd "$root"
cargo build --quiet --release -p reglab-cli

step() { echo "== $1" >&2; }
# Runs a test target in release, keeping everything it prints in $out/NAME.txt.
release_test() {
    local name="$1"; shift
    cargo test --quiet --release -p reglab-tests --test "$name" -- "$@" > "$out/$name.txt" 2>&1 \
        || { echo "FAILED: $name (see $out/$name.txt)" >&2; return 1; }
}

step "registers vs ptxas"
scripts/fidelity-registers.sh "$corpus" > "$out/registers.txt"

step "cycles vs GPGPU-Sim"
REGLAB_GPGPUSIM_PAGE="$root/docs/fidelity/gpgpu-sim.md" \
    release_test gpgpusim_cycles --include-ignored --nocapture

step "occupancy vs NVIDIA's calculator"
release_test occupancy_reference --nocapture

step "functional outputs vs expected"
: > "$out/functional.txt"
for t in file_tests exec_examples exec_bfs exec_corpus_kernels; do
    release_test "$t" --nocapture
    grep -h "^test result\|^file tests:" "$out/$t.txt" | sed "s/^/$t: /" >> "$out/functional.txt"
done

if [ -z "${FIDELITY_QUICK:-}" ]; then
    step "schemes vs their papers"
    python3 scripts/fidelity-rfc-ob.py "$corpus" > "$out/rfc-ob.txt"
    python3 scripts/fidelity-rfc-ob.py "$corpus" --gpu gcn3-cu --sms 1 > "$out/rfc-ob-gcn3.txt"
    release_test timing_demo --ignored --nocapture
    release_test gilani_fidelity --ignored --nocapture
    release_test quick_fidelity --ignored --nocapture
    release_test timing_finereg --nocapture
    release_test launch_proposals --nocapture
fi

step "index"
python3 scripts/fidelity-index.py "$out" > docs/fidelity/README.md
cat docs/fidelity/README.md
