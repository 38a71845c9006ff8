#!/usr/bin/env bash
# Runs NVIDIA's ptxas (CUDA 12.6, from the PyPI wheel nvidia-cuda-nvcc-cu12, installed into
# target/tmp/nvcc if absent; never committed) on every .ptx file of the corpus and prints one
# tab-separated line per entry: file (relative to the corpus), entry name, the sm_ ptxas compiled
# for, "Used N registers", and what was rewritten (or the first error line). Files without any
# `.entry` (device-function libraries) give no line.
#
# ptxas 12.6 accepts PTX ISA up to 8.5 and targets sm_50 … sm_90a, so each file is compiled from a
# temporary copy in which:
#   - `.target sm_10 … sm_37` becomes `sm_52` (the oldest Maxwell ptxas knows well), and the
#     `map_f64_to_f32` option is dropped (not supported for sm_52);
#   - `.target sm_100 and later` becomes `sm_90`;
#   - `.version` below 4.1 (what sm_52 needs) becomes 4.1, and above 8.5 becomes 8.5;
#   - in PTX 1.x files, `mad.f32` without a rounding mode (allowed before PTX 2.0) becomes
#     `mad.rn.f32`;
#   - a file calling extern functions it does not define (CUDA dynamic parallelism) is compiled
#     with `-c` (relocatable), the others whole-program as usual;
#   - everything else is untouched; the target option `debug` is kept and ptxas gets no -g.
# With PTXAS_GPU=sm_XX every file is compiled for that target instead (`--gpu-name sm_XX`; a
# `.target` above it, or an `a` target, is lowered to it; an older one is kept, as ptxas compiles
# PTX written for an older target for a newer one; a file using what the target lacks is refused),
# and the sm column says sm_XX.
# Usage: [PTXAS_GPU=sm_XX] scripts/ptxas-registers.sh [CORPUS_DIR] > ptxas.tsv
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
corpus="${1:-$root/../shared/corpus/ptx}"
nvcc_dir="$root/target/tmp/nvcc"
ptxas="$nvcc_dir/nvidia/cuda_nvcc/bin/ptxas"
if [ ! -x "$ptxas" ]; then
    mkdir -p "$nvcc_dir"
    (cd "$nvcc_dir" && python3 -m pip download --quiet --no-deps nvidia-cuda-nvcc-cu12==12.6.85 -d . \
        && unzip -o -q nvidia_cuda_nvcc_cu12-*.whl) >&2
fi
work="$root/target/tmp/ptxas-work${PTXAS_GPU:+-$PTXAS_GPU}"
mkdir -p "$work"
find "$corpus" -name '*.ptx' | sort | while read -r file; do
    rel="${file#"$corpus"/}"
    tmp="$work/$(echo "$rel" | tr '/' '_')"
    notes=$(python3 - "$file" "$tmp" <<'PY'
import os, re, sys
src = open(sys.argv[1], encoding="utf-8", errors="replace").read()
notes = []
def target(m):
    parts = [p.strip() for p in m.group(1).split(",")]
    arch = parts[0]
    num = int(re.sub(r"\D", "", arch) or 0)
    if num < 50:
        parts[0] = "sm_52"
    elif num >= 100:
        parts[0] = "sm_90"
    gpu = os.environ.get("PTXAS_GPU", "")
    if gpu and (int(re.sub(r"\D", "", parts[0]) or 0) > int(re.sub(r"\D", "", gpu)) or parts[0].endswith("a")):
        parts[0] = gpu
    if "map_f64_to_f32" in parts:
        parts.remove("map_f64_to_f32")
    new = ", ".join(parts)
    if new != m.group(1).strip():
        notes.append(f".target {m.group(1).strip()} -> {new}")
    return ".target " + new
src = re.sub(r"^\s*\.target\s+([^\n]*)", target, src, count=1, flags=re.M)
def version(m):
    major, minor = int(m.group(1)), int(m.group(2))
    v = (major, minor)
    new = max(min(v, (8, 5)), (4, 1)) if ".target sm_52" in src or v > (8, 5) else v
    if new != v:
        notes.append(f".version {major}.{minor} -> {new[0]}.{new[1]}")
    return f".version {new[0]}.{new[1]}"
old = re.search(r"^\s*\.version\s+1\.", src, flags=re.M) is not None
src = re.sub(r"^\s*\.version\s+(\d+)\.(\d+)", version, src, count=1, flags=re.M)
if old:
    src, n = re.subn(r"\bmad((?:\.sat)?)\.f32\b", r"mad.rn\1.f32", src)
    if n:
        notes.append(f"mad.f32 -> mad.rn.f32 ({n}x)")
open(sys.argv[2], "w").write(src)
print("; ".join(notes))
PY
)
    sm=$(grep -m1 -o '^\s*\.target\s*sm_[0-9]*a\?' "$tmp" | grep -o 'sm_[0-9]*a\?')
    sm="${PTXAS_GPU:-$sm}"
    flags=()
    if out=$("$ptxas" -v --gpu-name "$sm" "$tmp" -o /dev/null 2>&1) \
        || { echo "$out" | grep -q 'Unresolved extern' && flags=(-c) \
            && out=$("$ptxas" -c -v --gpu-name "$sm" "$tmp" -o /dev/null 2>&1); }; then
        [ ${#flags[@]} -gt 0 ] && notes="${notes:+$notes; }compiled with -c"
        echo "$out" | awk -v rel="$rel" -v sm="$sm" -v notes="$notes" '
            /Compiling entry function/ { match($0, /'"'"'[^'"'"']*'"'"'/); name = substr($0, RSTART + 1, RLENGTH - 2) }
            /Used [0-9]+ registers/ && name != "" { match($0, /Used [0-9]+ registers/); n = substr($0, RSTART + 5, RLENGTH - 15); print rel "\t" name "\t" sm "\t" n "\t" notes; name = "" }'
    else
        first=$(echo "$out" | grep -m1 -v '^ptxas info\|^ptxas warning' | sed "s#$work/##g" || true)
        printf '%s\t-\t%s\t-\t%s\n' "$rel" "$sm" "${notes:+$notes; }ptxas failed: ${first//$'\t'/ }"
    fi
done
