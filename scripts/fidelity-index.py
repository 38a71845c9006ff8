#!/usr/bin/env python3
"""Writes docs/fidelity/README.md, the index of the fidelity report: each check with RegLab's
figure and its reference at a glance, read from the pages under docs/fidelity/ and from the
outputs scripts/fidelity.sh keeps in target/tmp/fidelity/ (argument 1). A figure that cannot be
found says so instead of guessing. Run by scripts/fidelity.sh; standard library only.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = os.path.join(ROOT, "docs", "fidelity")
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "target", "tmp", "fidelity")


def read(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError:
        return ""


def row(page, first_cell):
    """The cells of the first table row of docs/fidelity/PAGE whose first cell starts with FIRST_CELL."""
    rows = rows_of(page, first_cell)
    return rows[0] if rows else None


def cell(page, first_cell, index, missing="not measured yet"):
    """Cell `index` of the row starting with `first_cell` (negative: from the end, as in Python)."""
    r = row(page, first_cell)
    return r[index] if r and -len(r) <= index < len(r) else missing


def registers():
    r = row("registers.md", "ours (registers per thread)")
    if not r or len(r) < 6:
        return "not measured yet (regenerate registers.md)"
    text = f"median ours/ptxas {r[1]}; within ±15%: {r[4]}; within ±25%: {r[5]}"
    d = row("registers.md", "ours for sm_90 vs the driver")
    if d and len(d) > 4:
        text += f" (vs the driver's JIT on an H200: median {d[1]}, ±15% {d[4]})"
    targets = [t for t in rows_of("registers.md", "sm_") if len(t) > 4]
    if targets:
        text += "; per target (the corpus compiled for each), within ±15%: " + ", ".join(
            f"{t[0].split(' ')[0]} {t[4].split(' ')[0]}" for t in targets)
    largest = re.search(r"Largest estimate: (\d+) registers", read(os.path.join(DOCS, "registers.md")))
    if largest:
        text += f"; largest {largest.group(1)}, never above 255"
    return text


def rows_of(page, first_cell):
    """Every table row of docs/fidelity/PAGE whose first cell starts with FIRST_CELL, in order."""
    out = []
    for line in read(os.path.join(DOCS, page)).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells and cells[0].startswith(first_cell):
            out.append(cells)
    return out


def quick():
    """Quick mode's mean IPC error as it is used (refined samples), on the examples' table and the
    corpus table of quick.md, with the first sample's for contrast."""
    refined = rows_of("quick.md", "refined, all sampled runs")
    first = rows_of("quick.md", "first sample, all sampled runs")
    if len(refined) < 2 or len(first) < 2:
        return "not measured yet (regenerate quick.md)"
    names = ("examples and Rodinia backprop", "runnable corpus kernels")
    parts = [
        f"{name}: mean IPC error {r[2]} over {r[1]} sampled runs (first sample alone {f[2]})"
        for name, r, f in zip(names, refined, first)
    ]
    return "; ".join(parts)


def cycles():
    rows = [l for l in read(os.path.join(DOCS, "gpgpu-sim.md")).splitlines() if l.startswith("| backprop") or l.startswith("| BFS")]
    if not rows:
        return "not measured yet"
    parts = []
    for l in rows:
        c = [x.strip() for x in l.strip("|").split("|")]
        same = "equal" if c[4] == c[5] else f"{c[4]} vs {c[5]}"
        name = c[0].split(" (")[0].replace("backprop ", "").replace("_Z22bpnn_", "").replace("_Z24bpnn_", "")
        parts.append(f"{name.split('P')[0] if name.startswith('layer') or name.startswith('adjust') else name}: {c[3]}× cycles, instructions {same}")
    return "; ".join(parts)


def occupancy():
    m = re.search(r"(\d+) vectors agree with NVIDIA", read(os.path.join(OUT, "occupancy_reference.txt")))
    return f"{m.group(1)} of {m.group(1)} vectors agree exactly" if m else "not measured in this run"


def functional():
    text = read(os.path.join(OUT, "functional.txt"))
    # cargo's "test result: ok. N passed; M failed" and the file-test harness's "file tests: N
    # passed; M failed" (one cargo test running the whole harness is not counted twice).
    lines = [l for l in text.splitlines() if not l.startswith("file_tests: test result")]
    passed = sum(int(n) for l in lines for n in re.findall(r"(\d+) passed", l))
    failed = sum(int(n) for l in lines for n in re.findall(r"(\d+) failed", l))
    cases = len([f for f in os.listdir(os.path.join(ROOT, "tests", "cases", "exec")) if f.endswith(".ptx")])
    if not text:
        return f"{cases} exec file tests (not run in this run)"
    return f"{passed} tests pass, {failed} fail ({cases} exec file tests with hand-worked outputs, examples, BFS, corpus kernels)"


def corners():
    rows = [l for l in read(os.path.join(DOCS, "ptx-corners.md")).splitlines() if l.startswith("| ") and "| supported" in l]
    return f"{len(rows)} corners supported, each with a file test" if rows else "see page"


def hardware():
    text = read(os.path.join(DOCS, "hardware.md"))
    occ = re.search(r"\*\*(\d+) of (\d+)\*\*", text)
    times = re.search(r"model lands at ([\d.]+–[\d.]+) times the GPU's time", text)
    if not occ:
        return "not measured yet"
    return (f"occupancy equal to the driver's in {occ.group(1)} of {occ.group(2)} (kernel, block size) pairs; "
            f"kernel times {times.group(1) if times else '?'}× the measured ones on 7 scaled examples")


CHECKS = [
    ("Registers per thread", "[registers.md](registers.md)", registers, "ptxas 12.6 `-v` on every corpus kernel it accepts; driver JIT (sm_90)"),
    ("Occupancy", "(tests/occupancy_reference.rs)", occupancy, "NVIDIA's `cuda_occupancy.h` (CUDA 12.6), cc 3.0–9.0"),
    ("Functional outputs", "(tests/cases/exec)", functional, "values worked out from the PTX ISA; Rodinia BFS result file; plain Rust"),
    ("PTX ISA corners", "[ptx-corners.md](ptx-corners.md)", corners, "the PTX ISA document"),
    ("Cycles", "[gpgpu-sim.md](gpgpu-sim.md)", cycles, "GPGPU-Sim logs in the corpus (V100 and regression configs)"),
    ("A real GPU", "[hardware.md](hardware.md)", hardware,
     "an NVIDIA H200: the driver's JIT and occupancy API, outputs and CUDA-event kernel times (scripts/device)"),
    ("Launch proposals", "[launch-proposals.md](launch-proposals.md)",
     lambda: "corpus kernels that run as pasted: " + cell("launch-proposals.md", "ran", -1), "issue 25's \"paste and run\""),
    ("Banks on allocated registers", "[physical-registers.md](physical-registers.md)",
     lambda: "reports with banks on allocated vs virtual registers, per example", "real banks hold allocated registers"),
    ("rfc-ob (RFC + operand buffer)", "[rfc-ob.md](rfc-ob.md)",
     lambda: "reads saved at 512 entries: " + cell("rfc-ob.md", "Fig. 5, reads saved at 512", 2),
     "Wyse Fig. 5: " + cell("rfc-ob.md", "Fig. 5, reads saved at 512", 1, "see page")),
    ("DeMO (direct memory operands)", "[demo.md](demo.md)",
     lambda: "single-use share of RF accesses: " + cell("demo.md", "single-use share of RF accesses", 2),
     "Mohammadpur-Fard et al. Fig. 1: " + cell("demo.md", "single-use share of RF accesses", 1, "see page")),
    ("FineReg", "[finereg.md](finereg.md)",
     lambda: "IPC vs baseline: " + cell("finereg.md", "FineReg IPC vs baseline", 2),
     "Oh et al.: " + cell("finereg.md", "FineReg IPC vs baseline", 1, "see page")),
    ("Gilani composite / scalar / sliced", "[gilani.md](gilani.md)",
     lambda: (lambda r: f"savings, {r[0]} (composite, scalar, sliced, all): " + ", ".join(r[1:]))(
         row("gilani.md", "all ") or ["all kernels", "?"]),
     "Gilani §8 Fig. 8: " + ", ".join((row("gilani.md", "paper (Gilani") or ["", "see page"])[1:])),
    ("Static compression (Angerd)", "[compression.md](compression.md)",
     lambda: "IMGVF (corpus, fermi-gtx480), perfect quality: registers "
     + cell("compression.md", "registers per thread before", 2).split(" ")[0] + " → "
     + cell("compression.md", "registers after, perfect", 2) + ", CTAs/SM "
     + cell("compression.md", "CTAs per SM (occupancy) before", 2) + " → "
     + cell("compression.md", "CTAs per SM after", 2).split(" / ")[0] + ", thread IPC "
     + cell("compression.md", "thread IPC before", 2) + " → "
     + cell("compression.md", "thread IPC after", 2).split(" / ")[0]
     + " (this PTX computes in f64, out of the model's reach; see page); imgvf example: registers "
     + cell("compression.md", "baseline", 1) + " → " + cell("compression.md", "compression (perfect", 1) + ", CTAs/SM "
     + cell("compression.md", "baseline", 2) + " → " + cell("compression.md", "compression (perfect", 2),
     "Angerd et al. Table 1 (IMGVF, float-only build): registers 52 → 29, occupancy 21 % → 62.5 %, IPC 196 → 352"),
    ("Quick mode (sampled timing)", "[quick.md](quick.md)", quick,
     "full runs of the same launches, every scheme"),
]


def main():
    print("# Fidelity report\n")
    print("Every figure RegLab shows rests on these checks. Regenerate everything with")
    print("`scripts/fidelity.sh` (release builds; `FIDELITY_QUICK=1` skips the scheme measurements);")
    print("this index is written by `scripts/fidelity-index.py` from the pages below and the outputs")
    print("the script keeps in `target/tmp/fidelity/`. Each page says how it was measured and why the")
    print("figures differ from the reference; no constant was tuned to hit a reference figure.\n")
    print("| check | RegLab | reference | page |")
    print("|---|---|---|---|")
    for name, page, figure, reference in CHECKS:
        print(f"| {name} | {figure()} | {reference} | {page} |")


main()
