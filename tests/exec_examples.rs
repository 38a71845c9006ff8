//! The bundled example kernels (`static/examples/*.ptx`) against plain Rust reference
//! computations, bit for bit. Each reference follows the PTX's
//! own operation order (its `fma`s, its reduction tree, its atomics in the executor's defined
//! order), with `ex2.approx` defined as the executor defines it (`libm::exp2` in `f64`, rounded).

use std::collections::BTreeMap;

use sim_core::exec::launch::buffer_bytes;
use sim_core::exec::{run, BufferSpec, ElemType, Init, LaunchSetup, ParamSpec, ScalarSpec, ScalarValue, Value};

fn module(name: &str) -> sim_core::ir::Module {
    let path = reglab_tests::repo_root().join("static").join("examples").join(format!("{name}.ptx"));
    let src = std::fs::read_to_string(&path).unwrap_or_default();
    let m = sim_core::ptx::compile(&src);
    assert!(m.is_ok(), "{}: {:?}", path.display(), m.as_ref().err());
    m.unwrap_or_default()
}

fn random_f32(len: u64, seed: u64) -> BufferSpec {
    BufferSpec { ty: ElemType::F32, len: Some(len), init: Some(Init::Random(seed)), data: None, offset: None }
}

fn zeros(ty: ElemType, len: u64) -> BufferSpec {
    BufferSpec { ty, len: Some(len), init: Some(Init::Zeros), data: None, offset: None }
}

fn f32s(spec: &BufferSpec) -> Vec<f32> {
    let bytes = buffer_bytes(spec, spec.len.unwrap_or(0)).unwrap_or_default();
    bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn scalar_u32(v: u64) -> ParamSpec {
    ParamSpec::Scalar(ScalarSpec { ty: ElemType::U32, value: ScalarValue::One(Value::UInt(v)) })
}

fn scalar_f32(v: f32) -> ParamSpec {
    ParamSpec::Scalar(ScalarSpec { ty: ElemType::F32, value: ScalarValue::One(Value::Single(v)) })
}

fn setup(kernel: &str, grid: Vec<u32>, block: Vec<u32>, params: Vec<ParamSpec>) -> LaunchSetup {
    LaunchSetup {
        kernel: Some(kernel.into()),
        grid,
        block,
        dynamic_smem: 0,
        params,
        outputs: None,
        launches: Vec::new(),
        repeat: None,
        budget: None,
        textures: Default::default(),
    }
}

/// Runs and returns each output buffer's bits.
fn outputs(m: &sim_core::ir::Module, s: &LaunchSetup) -> BTreeMap<usize, Vec<u64>> {
    let r = run(m, s);
    assert!(r.is_ok(), "{:?}", r.as_ref().err().map(ToString::to_string));
    let r = r.unwrap_or_else(|_| sim_core::exec::RunResult {
        outputs: BTreeMap::new(),
        warp_instructions: 0,
        thread_instructions: 0,
        launches: Vec::new(),
        rounds: 0,
        warnings: Vec::new(),
        notices: Vec::new(),
        pointees: BTreeMap::new(),
    });
    let ty = |i: usize| match &s.params[i] {
        ParamSpec::Buffer(b) => b.ty,
        ParamSpec::Scalar(_) | ParamSpec::Pointers(_) | ParamSpec::Texture(_) | ParamSpec::Struct(_) => ElemType::U32,
    };
    r.outputs.iter().map(|(&i, v)| (i, v.iter().map(|x| x.to_bits(ty(i)).unwrap_or(u64::MAX)).collect())).collect()
}

fn bits(v: &[f32]) -> Vec<u64> {
    v.iter().map(|x| u64::from(x.to_bits())).collect()
}

#[test]
fn vector_add() {
    let m = module("vector_add");
    let n = 10_000u64;
    let (a, b) = (random_f32(n, 1), random_f32(n, 2));
    let s = setup(
        "_Z6vecAddPKfS0_Pfi",
        vec![40],
        vec![256],
        vec![
            ParamSpec::Buffer(a.clone()),
            ParamSpec::Buffer(b.clone()),
            ParamSpec::Buffer(zeros(ElemType::F32, n)),
            scalar_u32(n),
        ],
    );
    let want: Vec<f32> = f32s(&a).iter().zip(f32s(&b)).map(|(x, y)| y + x).collect();
    assert_eq!(outputs(&m, &s)[&2], bits(&want));
}

#[test]
fn saxpy() {
    let m = module("saxpy");
    let n = 10_000u64;
    let (x, y) = (random_f32(n, 3), random_f32(n, 4));
    let a = 2.5f32;
    let s = setup(
        "_Z5saxpyifPKfPf",
        vec![16],
        vec![256],
        vec![scalar_u32(n), scalar_f32(a), ParamSpec::Buffer(x.clone()), ParamSpec::Buffer(y.clone())],
    );
    let want: Vec<f32> = f32s(&x).iter().zip(f32s(&y)).map(|(xv, yv)| xv.mul_add(a, yv)).collect();
    assert_eq!(outputs(&m, &s)[&3], bits(&want));
}

#[test]
fn matmul_tiled() {
    let m = module("matmul_tiled");
    let n = 64usize;
    let (a, b) = (random_f32((n * n) as u64, 5), random_f32((n * n) as u64, 6));
    let s = setup(
        "_Z11matmulTiledPKfS0_Pfi",
        vec![4, 4],
        vec![16, 16],
        vec![
            ParamSpec::Buffer(a.clone()),
            ParamSpec::Buffer(b.clone()),
            ParamSpec::Buffer(zeros(ElemType::F32, (n * n) as u64)),
            scalar_u32(n as u64),
        ],
    );
    let (av, bv) = (f32s(&a), f32s(&b));
    let mut want = vec![0f32; n * n];
    for row in 0..n {
        for col in 0..n {
            want[row * n + col] = (0..n).fold(0f32, |acc, k| av[row * n + k].mul_add(bv[k * n + col], acc));
        }
    }
    assert_eq!(outputs(&m, &s)[&2], bits(&want));
}

#[test]
fn histogram() {
    let m = module("histogram");
    let n = 20_000u64;
    let data = BufferSpec { ty: ElemType::U8, len: Some(n), init: Some(Init::Random(7)), data: None, offset: None };
    let s = setup(
        "_Z12histogram256PKhPji",
        vec![8],
        vec![256],
        vec![ParamSpec::Buffer(data.clone()), ParamSpec::Buffer(zeros(ElemType::U32, 256)), scalar_u32(n)],
    );
    let mut want = vec![0u64; 256];
    for b in buffer_bytes(&data, n).unwrap_or_default() {
        want[b as usize] += 1;
    }
    assert_eq!(outputs(&m, &s)[&1], want);
}

#[test]
fn hotspot() {
    let m = module("hotspot");
    let (cols, rows) = (64usize, 48usize);
    let len = (cols * rows) as u64;
    let (power, tin) = (random_f32(len, 8), random_f32(len, 9));
    let (cap, rx, ry, rz, amb) = (0.5f32, 0.1, 0.2, 0.05, 80.0);
    let s = setup(
        "_Z11hotspotStepPKfS0_Pfiifffff",
        vec![4, 3],
        vec![16, 16],
        vec![
            ParamSpec::Buffer(power.clone()),
            ParamSpec::Buffer(tin.clone()),
            ParamSpec::Buffer(zeros(ElemType::F32, len)),
            scalar_u32(cols as u64),
            scalar_u32(rows as u64),
            scalar_f32(cap),
            scalar_f32(rx),
            scalar_f32(ry),
            scalar_f32(rz),
            scalar_f32(amb),
        ],
    );
    let (p, t) = (f32s(&power), f32s(&tin));
    let mut want = vec![0f32; cols * rows];
    for r in 0..rows {
        for c in 0..cols {
            let idx = r * cols + c;
            let n = if r > 0 { idx - cols } else { idx };
            let s = if r < rows - 1 { idx + cols } else { idx };
            let w = if c > 0 { idx - 1 } else { idx };
            let e = if c < cols - 1 { idx + 1 } else { idx };
            let tv = t[idx];
            let twice = tv + tv;
            let f13 = ((t[s] + t[n]) - twice).mul_add(ry, p[idx]);
            let f18 = ((t[e] + t[w]) - twice).mul_add(rx, f13);
            let f20 = (amb - tv).mul_add(rz, f18);
            want[idx] = f20.mul_add(cap, tv);
        }
    }
    assert_eq!(outputs(&m, &s)[&2], bits(&want));
}

/// `ex2.approx.f32` as the executor defines it.
fn ex2(x: f32) -> f32 {
    libm::exp2(f64::from(x)) as f32
}

#[test]
fn imgvf() {
    let m = module("imgvf");
    let (w, h) = (40usize, 24usize);
    let len = (w * h) as u64;
    let (img, vin) = (random_f32(len, 10), random_f32(len, 11));
    let (vx, vy, mu, lambda_inv, eps) = (0.3f32, -0.7, 0.5, 0.2, 4.0);
    let s = setup(
        "_Z9imgvfStepPKfS0_Pfiifffff",
        vec![3, 2],
        vec![16, 16],
        vec![
            ParamSpec::Buffer(img.clone()),
            ParamSpec::Buffer(vin.clone()),
            ParamSpec::Buffer(zeros(ElemType::F32, len)),
            scalar_u32(w as u64),
            scalar_u32(h as u64),
            scalar_f32(vx),
            scalar_f32(vy),
            scalar_f32(mu),
            scalar_f32(lambda_inv),
            scalar_f32(eps),
        ],
    );
    let (iv, v) = (f32s(&img), f32s(&vin));
    let heavi = |k: f32, d: f32| 1.0f32 / (ex2(k * d * eps * f32::from_bits(0xBFB8_AA3B)) + 1.0);
    let mut want = vec![0f32; w * h];
    for y in 0..h {
        for x in 0..w {
            let (xm, xp) = (x.saturating_sub(1), (x + 1).min(w - 1));
            let (ym, yp) = (y.saturating_sub(1), (y + 1).min(h - 1));
            let c = v[y * w + x];
            let d = [
                v[ym * w + x],
                v[yp * w + x],
                v[y * w + xm],
                v[y * w + xp],
                v[ym * w + xp],
                v[yp * w + xp],
                v[ym * w + xm],
                v[yp * w + xm],
            ]
            .map(|n| n - c);
            let k = [-vy, vy, -vx, vx, vx - vy, vx + vy, -vx - vy, vy - vx];
            let mut acc = heavi(k[0], d[0]) * d[0];
            for i in 1..8 {
                acc = heavi(k[i], d[i]).mul_add(d[i], acc);
            }
            let vn = mu.mul_add(acc, c);
            let i = iv[y * w + x];
            want[y * w + x] = vn - (lambda_inv * i) * (vn - i);
        }
    }
    assert_eq!(outputs(&m, &s)[&2], bits(&want));
}

#[test]
fn reduction_two_kernels() {
    let m = module("reduction");
    let n = 5000usize;
    let input = random_f32(n as u64, 12);
    let (shared_grid, block, warp_grid) = (n.div_ceil(512), 256usize, 4usize);
    let mut s = setup(
        "",
        vec![1],
        vec![block as u32],
        vec![
            ParamSpec::Buffer(input.clone()),
            ParamSpec::Buffer(zeros(ElemType::F32, shared_grid as u64)),
            scalar_u32(n as u64),
            ParamSpec::Buffer(zeros(ElemType::F32, 1)),
        ],
    );
    s.kernel = None;
    s.launches = vec![
        sim_core::exec::LaunchStep {
            kernel: "_Z12reduceSharedPKfPfi".into(),
            grid: Some(vec![shared_grid as u32]),
            block: None,
            dynamic_smem: None,
            args: Some(vec![0, 1, 2]),
        },
        sim_core::exec::LaunchStep {
            kernel: "_Z17reduceWarpShufflePKfPfi".into(),
            grid: Some(vec![warp_grid as u32]),
            block: None,
            dynamic_smem: None,
            args: Some(vec![0, 3, 2]),
        },
    ];
    let x = f32s(&input);
    let at = |i: usize| if i < n { x[i] } else { 0.0 };
    // reduceShared: v = in[i] + in[i + blockDim], then a tree sdata[t] = sdata[t] + sdata[t + s].
    let mut per_block = Vec::new();
    for b in 0..shared_grid {
        let mut sdata: Vec<f32> = (0..block)
            .map(|t| {
                let i = b * block * 2 + t;
                let v = if i < n { x[i] } else { 0.0 };
                if i + block < n {
                    v + x[i + block]
                } else {
                    v
                }
            })
            .collect();
        let mut stride = block / 2;
        while stride > 0 {
            for t in 0..stride {
                sdata[t] += sdata[t + stride];
            }
            stride /= 2;
        }
        per_block.push(sdata[0]);
    }
    // reduceWarpShuffle: grid-stride sums, a shfl.down tree per warp, one atomic per warp in
    // CTA, warp order.
    let total_threads = warp_grid * block;
    let mut sum = 0f32;
    for w in 0..total_threads / 32 {
        let mut lanes: Vec<f32> = (0..32)
            .map(|l| {
                let mut v = 0f32;
                let mut i = w * 32 + l;
                while i < n {
                    v += at(i);
                    i += total_threads;
                }
                v
            })
            .collect();
        for off in [16, 8, 4, 2, 1] {
            let prev = lanes.clone();
            for l in 0..32 {
                let src = if l + off <= 31 { l + off } else { l };
                lanes[l] = prev[l] + prev[src];
            }
        }
        sum += lanes[0];
    }
    let out = outputs(&m, &s);
    assert_eq!(out[&1], bits(&per_block));
    assert_eq!(out[&3], bits(&[sum]));
}

/// The fingerprint `sim-core/tests/wasm_exec_bench.rs` checks in the browser: FNV-1a over the
/// outputs and counts of a 128 x 128 matmul. Equal natively and in WebAssembly: determinism.
#[test]
fn matmul_fingerprint_matches_the_browser_test() {
    let m = module("matmul_tiled");
    let setup = LaunchSetup::from_json(
        r#"{"kernel": "_Z11matmulTiledPKfS0_Pfi", "grid": [8, 8], "block": [16, 16],
  "params": [{"buffer": {"type": "f32", "len": 16384, "init": "random:1"}},
             {"buffer": {"type": "f32", "len": 16384, "init": "random:2"}},
             {"buffer": {"type": "f32", "len": 16384}}, {"scalar": {"type": "s32", "value": 128}}],
  "outputs": [2]}"#,
    );
    assert!(setup.is_ok());
    let Ok(setup) = setup else { return };
    let r = run(&m, &setup);
    assert!(r.is_ok());
    let Ok(r) = r else { return };
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut mix = |v: u64| {
        for b in v.to_le_bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    for v in r.outputs.values().flatten() {
        mix(v.to_bits(ElemType::F32).unwrap_or(0));
    }
    mix(r.warp_instructions);
    mix(r.thread_instructions);
    assert_eq!(h, MATMUL_FINGERPRINT, "{h:#x}");
}

const MATMUL_FINGERPRINT: u64 = 0xc47d_f044_8e78_8d40;

/// The launch setups proposed for the bundled examples (`tests/cases/exec/examples/*.launch.json`,
/// the sizes each example suggests, used by `reglab bench`) fit their kernels.
#[test]
fn example_launch_files_fit_their_kernels() {
    let dir = reglab_tests::exec_case::cases_dir().join("examples");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
        let path = entry.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()).and_then(|n| n.strip_suffix(".launch.json")) else {
            continue;
        };
        let setup = LaunchSetup::from_json(&std::fs::read_to_string(&path).unwrap_or_default());
        assert!(setup.is_ok(), "{name}: {setup:?}");
        let Ok(setup) = setup else { continue };
        let plan = sim_core::exec::plan::plan(&module(name), &setup);
        assert!(plan.is_ok(), "{name}: {plan:?}");
        checked += 1;
    }
    assert_eq!(checked, 7);
}

/// What the app offers for a bundled example before the user edits anything: the proposed setup
/// of every kernel runs to the end without a fault.
#[test]
fn proposed_setups_of_the_examples_run() {
    for name in ["vector_add", "matmul_tiled", "reduction", "hotspot", "imgvf", "histogram", "saxpy"] {
        let m = module(name);
        for kernel in sim_core::exec::plan::kernel_names(&m) {
            let setup = sim_core::exec::propose_launch(&m, &kernel);
            let r = run(&m, &setup);
            assert!(r.is_ok(), "{name}/{kernel}: {:?}\n{}", r.as_ref().err().map(ToString::to_string), setup.to_json());
        }
    }
}
