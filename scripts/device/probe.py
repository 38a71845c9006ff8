"""Device probe for RegLab's fidelity report (run on the GPU machine).

Part A: every entry kernel of the corpus and the bundled examples is JIT-compiled by the driver
for the device; records registers, local (spill) bytes, static shared bytes, max threads per block,
and the driver's occupancy (blocks per SM) at block sizes 32..1024.
Part B: each bundled example runs with its launch setup (buffers initialised as RegLab does:
splitmix64), its outputs are compared with RegLab's executor outputs, and each launch is timed
with CUDA events (mean of N launches after warm-up). With a second argument the scaled launches
(scaled/) are timed the same way; with `cold` as third argument each scaled launch is timed alone
after flushing the L2, beside an empty kernel timed the same way (the floor).
Used for docs/fidelity/hardware.md; see scripts/device/prepare.sh.
"""
import ctypes as C
import glob
import json
import os
import re
import struct
import sys
import time

OUT = os.environ.get("OUT", "/tmp/out")
HERE = os.path.dirname(os.path.abspath(__file__))
cu = C.CDLL("libcuda.so.1")


def check(err, what):
    if err != 0:
        s = C.c_char_p()
        cu.cuGetErrorString(err, C.byref(s))
        raise RuntimeError(f"{what}: {err} {s.value.decode() if s.value else ''}")


check(cu.cuInit(0), "cuInit")
dev = C.c_int()
check(cu.cuDeviceGet(C.byref(dev), 0), "cuDeviceGet")
ctx = C.c_void_p()
check(cu.cuDevicePrimaryCtxRetain(C.byref(ctx), dev), "ctx")
check(cu.cuCtxSetCurrent(ctx), "setcurrent")
name = C.create_string_buffer(256)
cu.cuDeviceGetName(name, 256, dev)


def dattr(a):
    v = C.c_int()
    cu.cuDeviceGetAttribute(C.byref(v), a, dev)
    return v.value


# 16 MP count, 75/76 CC major/minor, 82 regs per SM, 81 smem per SM, 39 max threads per SM,
# 106 max blocks per SM, 97 max smem per block optin, 13 clock rate kHz
info = {
    "name": name.value.decode(),
    "sms": dattr(16),
    "cc": f"{dattr(75)}.{dattr(76)}",
    "regs_per_sm": dattr(82),
    "smem_per_sm": dattr(81),
    "threads_per_sm": dattr(39),
    "blocks_per_sm": dattr(106),
    "clock_khz": dattr(13),
}
drv = C.c_int()
cu.cuDriverGetVersion(C.byref(drv))
info["driver_cuda"] = drv.value
print("DEVICE", json.dumps(info), flush=True)


def load(text):
    """JIT a PTX text; returns (module or None, info log, error log)."""
    n = 1 << 16
    ilog = C.create_string_buffer(n)
    elog = C.create_string_buffer(n)
    opts = (C.c_int * 5)(3, 4, 5, 6, 12)
    vals = (C.c_void_p * 5)(C.cast(ilog, C.c_void_p), C.c_void_p(n), C.cast(elog, C.c_void_p), C.c_void_p(n), C.c_void_p(1))
    mod = C.c_void_p()
    err = cu.cuModuleLoadDataEx(C.byref(mod), C.c_char_p(text.encode()), 5, opts, vals)
    return (mod if err == 0 else None), err, ilog.value.decode(errors="replace"), elog.value.decode(errors="replace")


ENTRY = re.compile(r"\.entry\s+([A-Za-z_$%][\w$.%]*)")


def part_a():
    rows = ["file\tkernel\tstatus\tregs\tlocal_bytes\tstatic_smem\tmax_threads\tocc_32\tocc_64\tocc_128\tocc_256\tocc_512\tocc_1024\tnote"]
    files = sorted(glob.glob(os.path.join(HERE, "corpus", "**", "*.ptx"), recursive=True))
    files += sorted(glob.glob(os.path.join(HERE, "examples", "*.ptx")))
    for path in files:
        rel = os.path.relpath(path, HERE)
        text = open(path, encoding="utf-8", errors="replace").read()
        names = ENTRY.findall(text)
        if not names:
            continue
        note = ""
        mod, err, ilog, elog = load(text)
        if mod is None:
            # A target newer than the device (sm_100, sm_120): JIT for the device instead.
            t2 = re.sub(r"(\.target\s+)sm_\d+a?", r"\1sm_90", text)
            if t2 != text:
                mod, err2, ilog, elog2 = load(t2)
                note = "retargeted to sm_90" if mod is not None else f"load failed: {err} / {err2}: {elog2.strip()[:160]}"
            else:
                note = f"load failed: {err}: {elog.strip()[:160]}"
        if mod is None:
            for k in names:
                rows.append(f"{rel}\t{k}\tload_error\t\t\t\t\t\t\t\t\t\t\t{note.replace(chr(9), ' ').replace(chr(10), ' ')}")
            continue
        for k in names:
            f = C.c_void_p()
            e = cu.cuModuleGetFunction(C.byref(f), mod, k.encode())
            if e != 0:
                rows.append(f"{rel}\t{k}\tno_function\t\t\t\t\t\t\t\t\t\t\t{e}")
                continue
            a = {}
            for key, code in (("max", 0), ("smem", 1), ("local", 3), ("regs", 4)):
                v = C.c_int()
                cu.cuFuncGetAttribute(C.byref(v), code, f)
                a[key] = v.value
            occ = []
            for bs in (32, 64, 128, 256, 512, 1024):
                if bs > a["max"]:
                    occ.append("")
                    continue
                nb = C.c_int()
                e2 = cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(C.byref(nb), f, bs, C.c_size_t(0))
                occ.append(str(nb.value) if e2 == 0 else f"err{e2}")
            rows.append(f"{rel}\t{k}\tok\t{a['regs']}\t{a['local']}\t{a['smem']}\t{a['max']}\t" + "\t".join(occ) + f"\t{note}")
        cu.cuModuleUnload(mod)
    with open(os.path.join(OUT, "device_kernels.tsv"), "w") as fh:
        fh.write("# " + json.dumps(info) + "\n")
        fh.write("\n".join(rows) + "\n")
    ok = sum(1 for r in rows[1:] if "\tok\t" in r)
    print(f"PART_A kernels={len(rows) - 1} ok={ok}", flush=True)


# ---- Part B ----------------------------------------------------------------------------------
SIZES = {"u8": 1, "s8": 1, "u16": 2, "s16": 2, "f16": 2, "bf16": 2, "u32": 4, "s32": 4, "b32": 4, "f32": 4,
         "u64": 8, "s64": 8, "b64": 8, "f64": 8}
M64 = (1 << 64) - 1


def splitmix(seed):
    s = seed & M64
    while True:
        s = (s + 0x9E3779B97F4A7C15) & M64
        z = s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        yield z ^ (z >> 31)


def pack(ty, v):
    fmt = {"u8": "<B", "s8": "<b", "u16": "<H", "s16": "<h", "u32": "<I", "s32": "<i", "b32": "<I", "f32": "<f",
           "u64": "<Q", "s64": "<q", "b64": "<Q", "f64": "<d"}[ty]
    if fmt[1] in "BHIQ":
        v = int(v) & ((1 << (8 * struct.calcsize(fmt))) - 1)
    return struct.pack(fmt, v)


def buffer_bytes(spec):
    ty = spec["type"]
    data = spec.get("data", [])
    n = spec.get("len", len(data))
    init = spec.get("init", "zeros")
    if init == "zeros" and not data:
        return bytes(n * SIZES[ty])
    if init.startswith("random:") and not data and ty in ("f32", "u8", "u32", "s32"):
        import numpy as np
        seed = np.uint64(int(init.split(":")[1]))
        with np.errstate(over="ignore"):
            z = seed + (np.arange(1, n + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15))
            z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
            z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
            z = z ^ (z >> np.uint64(31))
        if ty == "f32":
            return ((z >> np.uint64(40)).astype(np.float32) * np.float32(1.0 / 16777216.0)).astype("<f4").tobytes()
        return z.astype({"u8": "<u1", "u32": "<u4", "s32": "<u4"}[ty]).tobytes()
    out = bytearray()
    rng = splitmix(int(init.split(":")[1])) if init.startswith("random:") else None
    for i in range(n):
        if i < len(data):
            out += pack(ty, data[i])
        elif init == "zeros":
            out += bytes(SIZES[ty])
        elif init == "iota":
            out += pack(ty, float(i) if ty.startswith("f") else i)
        elif init.startswith("const:"):
            out += pack(ty, float(init[6:]) if ty.startswith("f") else int(init[6:], 0))
        else:
            r = next(rng)
            if ty == "f32":
                out += struct.pack("<f", (r >> 40) * (1.0 / 16777216.0))
            elif ty == "f64":
                out += struct.pack("<d", (r >> 11) * 2.0 ** -53)
            else:
                out += (r & M64).to_bytes(8, "little")[: SIZES[ty]]
    return bytes(out)


def unpack(ty, raw):
    fmt = {"u8": "B", "s8": "b", "u16": "H", "s16": "h", "u32": "I", "s32": "i", "b32": "I", "f32": "f",
           "u64": "Q", "s64": "q", "b64": "Q", "f64": "d"}[ty]
    n = len(raw) // SIZES[ty]
    return list(struct.unpack("<" + fmt * n, raw))


def scalar_obj(ty, v):
    ctor = {"u8": C.c_uint8, "s8": C.c_int8, "u16": C.c_uint16, "s16": C.c_int16, "u32": C.c_uint32,
            "s32": C.c_int32, "b32": C.c_uint32, "f32": C.c_float, "u64": C.c_uint64, "s64": C.c_int64,
            "b64": C.c_uint64, "f64": C.c_double}[ty]
    return ctor(v)


COLD = False
SCRATCH = None
EMPTY = """.version 7.8
.target sm_90
.address_size 64
.visible .entry empty()
{
ret;
}
"""


def flush_l2():
    global SCRATCH
    n = 512 << 20
    if SCRATCH is None:
        SCRATCH = C.c_uint64()
        check(cu.cuMemAlloc_v2(C.byref(SCRATCH), C.c_size_t(n)), "scratch")
    check(cu.cuMemsetD8_v2(SCRATCH, C.c_ubyte(1), C.c_size_t(n)), "memset")


def time_once(f, g, b, smem, arr):
    e0, e1 = C.c_void_p(), C.c_void_p()
    cu.cuEventCreate(C.byref(e0), 0)
    cu.cuEventCreate(C.byref(e1), 0)
    cu.cuEventRecord(e0, None)
    check(cu.cuLaunchKernel(f, g[0], g[1], g[2], b[0], b[1], b[2], smem, None, arr, None), "launch")
    cu.cuEventRecord(e1, None)
    check(cu.cuEventSynchronize(e1), "evsync")
    ms = C.c_float()
    cu.cuEventElapsedTime(C.byref(ms), e0, e1)
    cu.cuEventDestroy_v2(e0)
    cu.cuEventDestroy_v2(e1)
    return ms.value * 1000.0


def cold_times(funcs, reps=25):
    out = []
    for k, f, g, b, smem, arr, objs in funcs:
        ts = []
        for _ in range(reps):
            flush_l2()
            check(cu.cuCtxSynchronize(), "sync")
            ts.append(time_once(f, g, b, smem, arr))
        ts.sort()
        out.append({"kernel": k, "grid": g, "block": b, "cold_us_median": ts[len(ts) // 2], "cold_us_min": ts[0]})
    return out


def empty_floor():
    mod, err, ilog, elog = load(EMPTY)
    f = C.c_void_p()
    check(cu.cuModuleGetFunction(C.byref(f), mod, b"empty"), "empty")
    arr = (C.c_void_p * 1)()
    ts = []
    for _ in range(50):
        flush_l2()
        check(cu.cuCtxSynchronize(), "sync")
        ts.append(time_once(f, [1, 1, 1], [32, 1, 1], 0, arr))
    ts.sort()
    print("EMPTY_FLOOR", json.dumps({"median_us": ts[25], "min_us": ts[0]}), flush=True)
    return ts[25]


def part_b(reps, folder="examples", compare=True):
    results = []
    for lpath in sorted(glob.glob(os.path.join(HERE, folder, "*.launch.json"))):
        ex = os.path.basename(lpath)[: -len(".launch.json")]
        setup = json.load(open(lpath))
        text = open(os.path.join(HERE, "examples", ex + ".ptx")).read()
        mod, err, ilog, elog = load(text)
        if mod is None:
            print("PART_B", ex, "load error", err, elog[:300], flush=True)
            continue
        params = setup["params"]
        bufs = {}
        for i, p in enumerate(params):
            if "buffer" in p:
                raw = buffer_bytes(p["buffer"])
                d = C.c_uint64()
                check(cu.cuMemAlloc_v2(C.byref(d), C.c_size_t(max(len(raw), 1))), "alloc")
                check(cu.cuMemcpyHtoD_v2(d, raw, C.c_size_t(len(raw))), "htod")
                bufs[i] = (d, raw, p["buffer"]["type"])
        launches = setup.get("launches") or [{"kernel": setup["kernel"], "grid": setup["grid"], "args": list(range(len(params)))}]
        block = setup.get("block", [1, 1, 1])
        timed = []
        funcs = []
        for L in launches:
            f = C.c_void_p()
            check(cu.cuModuleGetFunction(C.byref(f), mod, L["kernel"].encode()), "getfunc " + L["kernel"])
            objs = []
            for a in L.get("args", list(range(len(params)))):
                p = params[a]
                if "buffer" in p:
                    objs.append(C.c_uint64(bufs[a][0].value))
                else:
                    s = p["scalar"]
                    objs.append(scalar_obj(s["type"], s["value"]))
            arr = (C.c_void_p * len(objs))(*[C.cast(C.pointer(o), C.c_void_p) for o in objs])
            g = (L.get("grid", setup.get("grid")) + [1, 1])[:3]
            b = (L.get("block", block) + [1, 1])[:3]
            smem = L.get("dynamic_smem", setup.get("dynamic_smem", 0))
            funcs.append((L["kernel"], f, g, b, smem, arr, objs))
        # One functional run, in order, then compare outputs.
        for k, f, g, b, smem, arr, objs in funcs:
            check(cu.cuLaunchKernel(f, g[0], g[1], g[2], b[0], b[1], b[2], smem, None, arr, None), "launch " + k)
        check(cu.cuCtxSynchronize(), "sync")
        expected = json.load(open(os.path.join(HERE, "expected", ex + ".json")))["outputs"] if compare else {}
        cmp = {}
        for idx, exp in expected.items():
            d, raw, ty = bufs[int(idx)]
            host = C.create_string_buffer(len(raw))
            check(cu.cuMemcpyDtoH_v2(host, d, C.c_size_t(len(raw))), "dtoh")
            got = unpack(ty, host.raw)
            if ty == "f32":
                exp = [struct.unpack("<f", struct.pack("<f", float(x)))[0] if isinstance(x, (int, float)) else float("nan") for x in exp]
            n = min(len(got), len(exp))
            exact = sum(1 for i in range(n) if got[i] == exp[i] or (got[i] != got[i] and exp[i] != exp[i]))
            maxrel = 0.0
            for i in range(n):
                e, g2 = float(exp[i]), float(got[i])
                if e != g2:
                    maxrel = max(maxrel, abs(e - g2) / max(abs(e), 1e-30))
            cmp[idx] = {"n": n, "exact": exact, "max_rel": maxrel}
        if COLD:
            timed = cold_times(funcs)
            results.append({"example": ex, "cold": True, "launches": timed})
            print("PART_D", folder, json.dumps(results[-1]), flush=True)
            for d, raw, ty in bufs.values():
                cu.cuMemFree_v2(d)
            cu.cuModuleUnload(mod)
            continue
        # Timing: each launch alone, warm-up then `reps` launches between two events.
        e0, e1 = C.c_void_p(), C.c_void_p()
        cu.cuEventCreate(C.byref(e0), 0)
        cu.cuEventCreate(C.byref(e1), 0)
        for k, f, g, b, smem, arr, objs in funcs:
            for _ in range(5):
                cu.cuLaunchKernel(f, g[0], g[1], g[2], b[0], b[1], b[2], smem, None, arr, None)
            cu.cuEventRecord(e0, None)
            for _ in range(reps):
                cu.cuLaunchKernel(f, g[0], g[1], g[2], b[0], b[1], b[2], smem, None, arr, None)
            cu.cuEventRecord(e1, None)
            check(cu.cuEventSynchronize(e1), "evsync")
            ms = C.c_float()
            cu.cuEventElapsedTime(C.byref(ms), e0, e1)
            # Mean per launch, back to back: includes the gap between launches (no floor taken).
            timed.append({"kernel": k, "grid": g, "block": b, "us_per_launch": ms.value * 1000.0 / reps})
        results.append({"example": ex, "outputs": cmp, "launches": timed})
        print("PART_B", folder, json.dumps(results[-1]), flush=True)
        for d, raw, ty in bufs.values():
            cu.cuMemFree_v2(d)
        cu.cuModuleUnload(mod)
    with open(os.path.join(OUT, f"device_{folder}.json"), "w") as fh:
        json.dump({"device": info, "reps": reps, "examples": results}, fh, indent=1)


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    t = time.time()
    try:
        part_b(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
    except Exception as e:  # keep part A's data even if B fails
        print("PART_B failed:", repr(e), flush=True)
    print("B took", time.time() - t, flush=True)
    if len(sys.argv) > 3 and sys.argv[3] == "cold":
        COLD = True
        empty_floor()
        part_b(1, "scaled", False)
        empty_floor()
    elif len(sys.argv) > 2:
        part_b(int(sys.argv[2]), "scaled", False)
    else:
        part_a()
    print("total", time.time() - t, flush=True)
