#!/usr/bin/env python3
"""Measures the rfc-ob figures of docs/fidelity/rfc-ob.md (Wyse Fig. 5, 6/7): per kernel, reads
saved (% of OB source reads served by the RFC) and IPC relative to 8 entries over RFC sizes
2 … 512 (`reglab sweep`), IPC of baseline, no-bank-conflicts, rfc-ob and rfc-ob without bank
conflicts, and Wyse's Fig. 8/9 study: wavefronts (warps) per CU (SM) and IPC with twice the
registers (`2x-registers`) (`reglab run`). Prints markdown tables; needs a release build (`cargo build --release
-p reglab-cli`).

Usage: scripts/fidelity-rfc-ob.py [CORPUS_DIR] [--gpu PRESET] [--sms N]
Launches: the bundled examples' own; corpus kernels get `reglab exec --propose`, their grid capped
at GRID_CAP CTAs along x (1 along y, z) and a functional budget of BUDGET warp-instructions.
"""

import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REGLAB = os.path.join(ROOT, "target", "release", "reglab")
SIZES = [2, 4, 8, 16, 32, 64, 128, 256, 512]
GRID_CAP = 16
BUDGET = 2_000_000
EXAMPLES = ["hotspot", "imgvf", "reduction", "matmul_tiled", "histogram", "saxpy", "vector_add"]
# Rodinia and Parboil kernels (Gebhart et al.'s suites; Wyse's AMD applications are not in the
# corpus), from the gpuocelot and gpgpu-sim collections.
CORPUS = [
    "gpuocelot/rodinia__backprop_cuda_kernel.ptx",
    "gpuocelot/rodinia__hotspot.ptx",
    "gpuocelot/rodinia__lud_kernel.ptx",
    "gpuocelot/rodinia__needle_kernel.ptx",
    "gpuocelot/rodinia__srad_kernel.ptx",
    "gpuocelot/rodinia__hwt.ptx",
    "gpuocelot/rodinia__find_ellipse_kernel.ptx",
    "gpuocelot/parboil__mri-q.ptx",
    "gpuocelot/parboil__spmv-main.ptx",
    "gpuocelot/parboil__sad4.ptx",
    "gpuocelot/parboil__tpacf.ptx",
    "gpuocelot/parboil__cuenergy_pre8_coalesce.ptx",
    "gpgpu-sim/pr146_backprop.1.sm_30.ptx",
    "gpgpu-sim/pr146_bfs.1.sm_30.ptx",
    "gpgpu-sim/pr146_streamcluster_sc_gpu.1.sm_30.ptx",
]


def reglab(args, timeout=600):
    p = subprocess.run([REGLAB] + args, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def kernels_of(corpus, rel):
    with open(os.path.join(corpus, "MANIFEST.tsv")) as f:
        for line in f:
            cols = line.rstrip("\n").split("\t")
            if cols and cols[0] == rel and len(cols) > 7:
                return [k for k in cols[7].split(",") if k]
    return []


def proposed_launch(ptx, kernel, tmp):
    code, out, _ = reglab(["exec", ptx, "--propose", "--kernel", kernel])
    if code != 0:
        return None
    setup = json.loads(out)
    grid = setup.get("grid", [1, 1, 1])
    setup["grid"] = [min(grid[0] if grid else 1, GRID_CAP), 1, 1]
    setup["budget"] = BUDGET
    path = os.path.join(tmp, kernel[:80] + ".launch.json")
    with open(path, "w") as f:
        json.dump(setup, f)
    return path


def measure(label, ptx, launch, gpu, sms):
    common = [ptx, "--launch", launch, "--gpu", gpu, "--sms", str(sms), "--max-cycles", "5000000"]
    values = ",".join(str(s) for s in SIZES)
    code, out, err = reglab(["sweep"] + common + ["--scheme", "rfc-ob", "--param", "rfc_entries",
                                                   "--values", values, "--reference", "8"])
    if code != 0:
        return None, err.strip().splitlines()[-1:] or ["failed"]
    points = [json.loads(l) for l in out.splitlines() if l.strip()]
    if any(p["outcome"].get("state") != "finished" for p in points):
        return None, ["did not finish"]
    schemes = ["baseline", "no-bank-conflicts", "rfc-ob", "rfc-ob:bank_conflicts=false", "2x-registers"]
    args = ["run"] + common + sum((["--scheme", s] for s in schemes), []) + ["--json"]
    code, out, err = reglab(args)
    if code != 0:
        return None, err.strip().splitlines()[-1:] or ["failed"]
    reports = json.loads(out)["reports"]
    ipc = {r["scheme"]: r["ipc"]["warp_instructions_per_cycle"] for r in reports}
    warps = {r["scheme"]: (r["kernels"][0]["warps_per_sm"] if r.get("kernels") else None) for r in reports}
    return {"label": label, "points": points, "ipc": ipc, "warps": warps}, None


def pct(x):
    return "—" if x is None else f"{100 * x:.1f}"


def tables(rows):
    head = "| kernel | " + " | ".join(str(s) for s in SIZES) + " | monotone |"
    sep = "|---|" + "---|" * (len(SIZES) + 1)
    print("### Reads saved (% of OB source reads served by the RFC) per RFC size\n")
    print(head)
    print(sep)
    for r in rows:
        saved = [p["reads_saved"] for p in r["points"]]
        nums = [s for s in saved if s is not None]
        mono = "yes" if all(a <= b + 1e-12 for a, b in zip(nums, nums[1:])) else "**no**"
        print(f"| {r['label']} | " + " | ".join(pct(s) for s in saved) + f" | {mono} |")
    print("\n### IPC relative to 8 entries\n")
    print("| kernel | " + " | ".join(str(s) for s in SIZES) + " |")
    print("|---|" + "---|" * len(SIZES))
    for r in rows:
        rel = [p["relative_ipc"] for p in r["points"]]
        print(f"| {r['label']} | " + " | ".join("—" if x is None else f"{x:.3f}" for x in rel) + " |")
    print("\n### IPC: banked vs conflict-free, without and with RFC + OB\n")
    print("| kernel | baseline | no-bank-conflicts | rfc-ob | rfc-ob, no conflicts | rfc-ob / its conflict-free | baseline / no-bank-conflicts |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        i = r["ipc"]
        b, n, o, of = (i.get(k, 0.0) for k in ["baseline", "no-bank-conflicts", "rfc-ob", "rfc-ob:bank_conflicts=false"])
        ratio = lambda a, c: f"{a / c:.3f}" if c else "—"
        print(f"| {r['label']} | {b:.3f} | {n:.3f} | {o:.3f} | {of:.3f} | {ratio(o, of)} | {ratio(b, n)} |")
    print("\n### Twice the registers (Wyse Fig. 8/9): warps (wavefronts) per SM (CU) and IPC\n")
    print("| kernel | warps per SM, baseline | with 2x registers | IPC baseline | IPC 2x | IPC 2x / baseline |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        w, i = r["warps"], r["ipc"]
        b, d = i.get("baseline", 0.0), i.get("2x-registers", 0.0)
        print(f"| {r['label']} | {w.get('baseline')} | {w.get('2x-registers')} | {b:.3f} | {d:.3f} | {d / b if b else 0:.3f} |")


def main():
    args = sys.argv[1:]
    gpu, sms = "fermi-gtx480", 4
    if "--gpu" in args:
        gpu = args[args.index("--gpu") + 1]
    if "--sms" in args:
        sms = int(args[args.index("--sms") + 1])
    positional = [a for i, a in enumerate(args) if not a.startswith("--") and (i == 0 or not args[i - 1].startswith("--"))]
    corpus = positional[0] if positional else os.path.join(ROOT, "..", "shared", "corpus", "ptx")
    rows, skipped = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for ex in EXAMPLES:
            ptx = os.path.join(ROOT, "static", "examples", ex + ".ptx")
            row, why = measure(ex, ptx, os.path.join(ROOT, "static", "examples", ex + ".launch.json"), gpu, sms)
            (rows.append(row) if row else skipped.append((ex, why)))
        for rel in CORPUS:
            ptx = os.path.join(corpus, rel)
            for k in kernels_of(corpus, rel):
                label = os.path.basename(rel).replace(".ptx", "") + "::" + k[:40]
                launch = proposed_launch(ptx, k, tmp)
                if not launch:
                    skipped.append((label, ["no launch proposed"]))
                    continue
                row, why = measure(label, ptx, launch, gpu, sms)
                (rows.append(row) if row else skipped.append((label, why)))
                print(f"measured {label}", file=sys.stderr)
    print(f"GPU {gpu}, {sms} SMs; rfc-ob defaults (OB 4, banked) but rfc_entries.\n")
    tables(rows)
    if skipped:
        print("\nNot measured: " + "; ".join(f"{l} ({' '.join(w)})" for l, w in skipped))


if __name__ == "__main__":
    main()
