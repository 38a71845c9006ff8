#!/usr/bin/env bash
# Prepares .devwork/ (ignored by git) for the device probe of docs/fidelity/hardware.md:
# the shared corpus, the bundled examples with RegLab's executor outputs, the scaled launches
# and probe.py. Then, on a machine with an NVIDIA GPU and its driver (Python 3 with numpy):
#   cd .devwork && python3 probe.py 2000            # outputs + warm timings, registers, occupancy
#   cd .devwork && python3 probe.py 2000 200        # + warm timings of the scaled launches
#   cd .devwork && python3 probe.py 200 1 cold      # cold (L2 flushed) timings of the scaled launches
# Results go to $OUT (default /tmp/out).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
corpus="${REGLAB_CORPUS:-$root/../shared/corpus/ptx}"
dev="$root/.devwork"
mkdir -p "$dev/examples" "$dev/expected" "$dev/scaled"
rm -rf "$dev/corpus" && cp -r "$corpus" "$dev/corpus"
cp "$root"/static/examples/* "$dev/examples/"
cp "$root"/scripts/device/scaled/*.json "$dev/scaled/"
cp "$root"/scripts/device/probe.py "$dev/"
(cd "$root" && cargo build --release -q -p reglab-cli)
for f in "$root"/static/examples/*.launch.json; do
  id="$(basename "$f" .launch.json)"
  "$root/target/release/reglab" exec "$root/static/examples/$id.ptx" --launch "$f" --json >"$dev/expected/$id.json"
done
exclude="$(cd "$root" && git rev-parse --git-path info/exclude)"
mkdir -p "$(dirname "$exclude")"
grep -qx '/.devwork/' "$exclude" 2>/dev/null || echo '/.devwork/' >>"$exclude"
echo "prepared $dev"
