#!/usr/bin/env python3
"""RegMutex beside the baseline (and FineReg's comparators) on the kernels of docs/fidelity/finereg.md.

Usage: scripts/fidelity-regmutex.py [table|sweep] (from the repository root, after
`cargo build --release -p reglab-cli`; REGLAB_CORPUS or ../shared/corpus/ptx for the corpus kernels).
`table` prints the measured rows (maxwell-gtx980, one SM, default parameters); `sweep` runs
`reglab sweep` over srp_fraction on each kernel and prints the best split.
IPC is the baseline's warp instructions over the scheme's cycles (the inserted acquire/release
are not counted as work)."""
import json, os, subprocess, sys, tempfile

REGLAB = "target/release/reglab"
CORPUS = os.environ.get("REGLAB_CORPUS", "../shared/corpus/ptx")
EX = "static/examples"
KERNELS = [
    ("vector_add", f"{EX}/vector_add.ptx", f"{EX}/vector_add.launch.json", None),
    ("saxpy", f"{EX}/saxpy.ptx", f"{EX}/saxpy.launch.json", None),
    ("histogram", f"{EX}/histogram.ptx", f"{EX}/histogram.launch.json", None),
    ("matmul_tiled", f"{EX}/matmul_tiled.ptx", f"{EX}/matmul_tiled.launch.json", None),
    ("reduction", f"{EX}/reduction.ptx", f"{EX}/reduction.launch.json", None),
    ("hotspot", f"{EX}/hotspot.ptx", f"{EX}/hotspot.launch.json", None),
    ("imgvf", f"{EX}/imgvf.ptx", f"{EX}/imgvf.launch.json", None),
    ("hotspot_r64", f"{EX}/hotspot.ptx", f"{EX}/hotspot.launch.json", 64),
    ("imgvf_r52", f"{EX}/imgvf.ptx", f"{EX}/imgvf.launch.json", 52),
    ("pr146_bfs.1.sm_30", f"{CORPUS}/gpgpu-sim/pr146_bfs.1.sm_30.ptx", None, None),
    ("rodinia__srad_kernel", f"{CORPUS}/gpuocelot/rodinia__srad_kernel.ptx", None, None),
]
FLAGS = ["--gpu", "maxwell-gtx980", "--sms", "1"]
SPLITS = [0.05, 0.1, 0.15, 0.2, 0.25, 0.28, 0.3, 0.35, 0.4, 0.5, 0.6]


def launch_of(ptx, launch):
    if launch:
        return launch
    out = subprocess.run([REGLAB, "exec", ptx, "--propose"], capture_output=True, text=True, check=True).stdout
    f = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
    f.write(out)
    f.close()
    return f.name


def run(ptx, launch, regs, schemes):
    cmd = [REGLAB, "run", ptx, "--launch", launch, *FLAGS, "--json"]
    for s in schemes:
        cmd += ["--scheme", s]
    if regs:
        cmd += ["--registers", str(regs)]
    return json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)["reports"]


def counter(r, name):
    return next((c["value"] for c in r["register_file"]["scheme"].get("counters", []) if c["name"] == name), 0)


def mean_ctas(r):
    s = [x for x in r["occupancy_over_time"]["samples"] if x["resident_ctas"] > 0]
    if not s:
        return 0.0, 0.0
    return sum(x["resident_ctas"] for x in s) / len(s), sum(x["active_ctas"] for x in s) / len(s)


def table():
    print("| kernel | regs (BRS) | CTAs/SM (limit) | scheme | cycles | IPC | vs baseline | mean resident / active CTAs | CTA switches | acquire wait % | acquires | DRAM bytes |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, ptx, launch, regs in KERNELS:
        rs = run(ptx, launch_of(ptx, launch), regs, ["baseline", "virtual-thread", "regmutex", "regmutex:virtual_thread=false"])
        work = rs[0]["warp_instructions"]
        for r in rs:
            k = r["kernels"][0]
            ipc = work / r["cycles"]
            wait = r["stalls"].get("acquire_wait", 0) / max(1, sum(r["stalls"].values()))
            res, act = mean_ctas(r)
            print(f"| {name} | {k['registers_per_thread']} | {k['ctas_per_sm']} ({','.join(k['limited_by'])}) | {r['scheme']} "
                  f"| {r['cycles']} | {ipc:.3f} | {100 * (rs[0]['cycles'] / r['cycles'] - 1):+.1f}% | {res:.1f} / {act:.1f} "
                  f"| {counter(r, 'cta_switches')} "
                  f"| {100 * wait:.1f} | {counter(r, 'acquires')} | {r['memory']['dram_bytes']} |")


def sweep():
    for name, ptx, launch, regs in KERNELS:
        specs = ["baseline"] + [f"regmutex:srp_fraction={f}" for f in SPLITS]
        rs = run(ptx, launch_of(ptx, launch), regs, specs)
        base = rs[0]["cycles"]
        pts = [(f, r["cycles"], r["kernels"][0]["ctas_per_sm"]) for f, r in zip(SPLITS, rs[1:])]
        best = min(pts, key=lambda p: (p[1], p[0]))
        row = " ".join(f"{f}:{c}({n})" for f, c, n in pts)
        print(f"{name}: baseline {base}; best srp_fraction {best[0]} ({best[1]} cycles, {100 * (base / best[1] - 1):+.1f}%); {row}")


if __name__ == "__main__":
    {"table": table, "sweep": sweep}[sys.argv[1] if len(sys.argv) > 1 else "table"]()
