//! Rodinia leukocyte (the compression paper's kernels) as a user pastes them: the corpus's GICOV
//! (two texture references) and IMGVF (`float**` pointer tables) run with the launch RegLab
//! proposes, given a small input of their own, and match plain reference computations written
//! from the kernels' source (Rodinia's `find_ellipse_kernel.cu`, `track_ellipse_kernel.cu`).

use reglab_tests::corpus_dir;
use sim_core::exec::{propose, run, BufferSpec, Init, ParamSpec, ScalarSpec, ScalarValue, Value};

const GICOV: &str = "_Z12GICOV_kerneliPf";
const IMGVF: &str = "_Z12IMGVF_kernelPPfS0_PiS1_fffif";

fn corpus(name: &str) -> Option<String> {
    std::fs::read_to_string(corpus_dir().join("gpuocelot").join(name)).ok()
}

fn f32s(values: &[f32]) -> Vec<Value> {
    values.iter().map(|&v| Value::Single(v)).collect()
}

fn floats(out: &[Value]) -> Vec<f32> {
    out.iter()
        .map(|v| match v {
            Value::Single(x) => *x,
            Value::Float(x) => *x as f32,
            Value::UInt(x) => *x as f32,
            Value::Int(x) => *x as f32,
            Value::Text(t) => t.parse().unwrap_or(f32::NAN),
        })
        .collect()
}

/// IMGVF's input: two cells (3 × 4 and 4 × 2), initial IMGVF and image values in [0, 1).
struct Cells {
    dims: [(usize, usize); 2],
    imgvf: [Vec<f32>; 2],
    image: [Vec<f32>; 2],
}

fn cells() -> Cells {
    let dims = [(3, 4), (4, 2)];
    let gen = |m: usize, n: usize, a: usize, b: usize| (0..m * n).map(|i| ((i * a) % b) as f32 / b as f32).collect();
    Cells { dims, imgvf: [gen(3, 4, 7, 11), gen(4, 2, 3, 7)], image: [gen(3, 4, 5, 13), gen(4, 2, 2, 5)] }
}

/// The IMGVF update of `track_ellipse_kernel.cu` in `f64`: every element from the previous
/// iteration's values (the cells are smaller than a warp, so the kernel's threads all read
/// before any writes), `iterations` times.
fn imgvf_reference(
    v: &[f32],
    image: &[f32],
    m: usize,
    n: usize,
    (vx, vy, e): (f64, f64, f64),
    iterations: usize,
) -> Vec<f64> {
    let heaviside = |x: f64| x.atan() / std::f64::consts::PI + 0.5;
    let mut cur: Vec<f64> = v.iter().map(|&x| f64::from(x)).collect();
    for _ in 0..iterations {
        let old = cur.clone();
        for i in 0..m {
            for j in 0..n {
                let at = |r: usize, c: usize| old[r * n + c];
                let o = at(i, j);
                let (up, down) = (i.saturating_sub(1), (i + 1).min(m - 1));
                let (left, right) = (j.saturating_sub(1), (j + 1).min(n - 1));
                let d = [
                    (at(up, j) - o, -vy),
                    (at(down, j) - o, vy),
                    (at(i, left) - o, -vx),
                    (at(i, right) - o, vx),
                    (at(up, right) - o, vx - vy),
                    (at(down, right) - o, vx + vy),
                    (at(up, left) - o, -vx - vy),
                    (at(down, left) - o, -vx + vy),
                ];
                let flow: f64 = d.iter().map(|&(diff, dir)| heaviside(diff * dir / e) * diff).sum();
                let mut new = o + 0.1 * flow;
                let vi = f64::from(image[i * n + j]);
                new -= 0.2 * vi * (new - vi);
                cur[i * n + j] = new;
            }
        }
    }
    cur
}

#[test]
fn imgvf_runs_with_the_proposed_pointer_tables_and_matches_the_reference() {
    let Some(src) = corpus("rodinia__track_ellipse_kernel.ptx") else { return };
    let module = sim_core::ptx::compile(&src).unwrap_or_default();
    let mut setup = propose(&module, IMGVF).setup;
    // The proposal: two pointer tables (IMGVF_array, I_array) and per-cell sizes filled with 1.
    for t in 0..2 {
        assert!(matches!(&setup.params[t], ParamSpec::Pointers(list) if list.len() == 64), "{:?}", setup.params[t]);
    }
    for s in 2..4 {
        assert!(matches!(&setup.params[s], ParamSpec::Buffer(b) if b.init == Some(Init::Const(Value::UInt(1)))));
    }
    assert_eq!(setup.outputs, Some(vec![0]));
    let c = cells();
    setup.grid = vec![2, 1, 1];
    for (t, data) in [(0, &c.imgvf), (1, &c.image)] {
        if let ParamSpec::Pointers(list) = &mut setup.params[t] {
            for (k, values) in data.iter().enumerate() {
                list[k].data = Some(f32s(values));
            }
        }
    }
    let ints = |v: [usize; 2]| Some(v.iter().map(|&x| Value::UInt(x as u64)).collect());
    if let ParamSpec::Buffer(b) = &mut setup.params[2] {
        b.data = ints([c.dims[0].0, c.dims[1].0]);
    }
    if let ParamSpec::Buffer(b) = &mut setup.params[3] {
        b.data = ints([c.dims[0].1, c.dims[1].1]);
    }
    let (vx, vy, e, iterations) = (1.0f32, -0.5f32, 0.5f32, 3usize);
    let scalar = |ty, v| ParamSpec::Scalar(ScalarSpec { ty, value: ScalarValue::One(v) });
    use sim_core::exec::ElemType::{F32, S32};
    setup.params[4] = scalar(F32, Value::Single(vx));
    setup.params[5] = scalar(F32, Value::Single(vy));
    setup.params[6] = scalar(F32, Value::Single(e));
    setup.params[7] = scalar(S32, Value::UInt(iterations as u64));
    // cutoff 0: the mean change is never below it, so exactly `iterations` iterations run.
    setup.params[8] = scalar(F32, Value::Single(0.0));
    let result = run(&module, &setup);
    assert!(result.is_ok(), "{:?}", result.err().map(|e| e.to_string()));
    let Ok(result) = result else { return };
    let tables = result.pointees.get(&0).cloned().unwrap_or_default();
    assert_eq!(tables.len(), 64);
    for (k, &(m, n)) in c.dims.iter().enumerate() {
        let want = imgvf_reference(&c.imgvf[k], &c.image[k], m, n, (vx.into(), vy.into(), e.into()), iterations);
        let got = floats(&tables[k][..m * n]);
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!((f64::from(*g) - w).abs() < 1e-5, "cell {k} element {i}: RegLab {g}, reference {w}");
        }
        // The untouched rest of the entry keeps its zeros.
        assert!(floats(&tables[k][m * n..]).iter().all(|&x| x == 0.0));
    }
    // Entries of cells not launched are not written.
    assert!(floats(&tables[2]).iter().all(|&x| x == 0.0));
}

/// GICOV's constant tables: 150 sample angles, and for each of 7 circles of radius 1 to 7 the
/// offsets of its sample points.
struct Tables {
    cos: Vec<f32>,
    sin: Vec<f32>,
    tx: Vec<i32>,
    ty: Vec<i32>,
}

fn tables() -> Tables {
    let angle = |n: usize| 2.0 * std::f64::consts::PI * n as f64 / 150.0;
    let cos: Vec<f32> = (0..150).map(|n| angle(n).cos() as f32).collect();
    let sin: Vec<f32> = (0..150).map(|n| angle(n).sin() as f32).collect();
    let off = |f: fn(f64) -> f64| -> Vec<i32> {
        (0..7).flat_map(|k| (0..150).map(move |n| ((k + 1) as f64 * f(angle(n))).round() as i32)).collect()
    };
    Tables { cos, sin, tx: off(f64::cos), ty: off(f64::sin) }
}

/// The module with its `__constant__` tables given values (RegLab's launch format fills buffers
/// and textures; `.const` variables take their initialisers).
fn with_tables(src: &str, t: &Tables) -> String {
    let list = |v: Vec<String>| v.join(", ");
    let f = |v: &[f32]| list(v.iter().map(|x| format!("0f{:08X}", x.to_bits())).collect());
    let i = |v: &[i32]| list(v.iter().map(i32::to_string).collect());
    src.replace(
        ".const .align 4 .b8 c_sin_angle[600];",
        &format!(".const .align 4 .f32 c_sin_angle[150] = {{{}}};", f(&t.sin)),
    )
    .replace(
        ".const .align 4 .b8 c_cos_angle[600];",
        &format!(".const .align 4 .f32 c_cos_angle[150] = {{{}}};", f(&t.cos)),
    )
    .replace(".const .align 4 .b8 c_tX[4200];", &format!(".const .align 4 .s32 c_tX[1050] = {{{}}};", i(&t.tx)))
    .replace(".const .align 4 .b8 c_tY[4200];", &format!(".const .align 4 .s32 c_tY[1050] = {{{}}};", i(&t.ty)))
}

/// GICOV of `find_ellipse_kernel.cu` in `f32` with the kernel's operations (a running mean and
/// variance, fused multiply-adds where the PTX has them): for pixel (i, j), the largest
/// mean² / variance over the circles of the gradient's projection on each sample direction.
fn gicov_reference(gx: &[f32], gy: &[f32], t: &Tables, grad_m: i32, i: i32, j: i32) -> f32 {
    let mut best = 0.0f32;
    for k in 0..7 {
        let (mut sum, mut m2, mut mean) = (0.0f32, 0.0f32, 0.0f32);
        for n in 0..150 {
            let idx = ((t.tx[k * 150 + n] + j) * grad_m + t.ty[k * 150 + n] + i) as usize;
            let p = t.sin[n].mul_add(gy[idx], t.cos[n] * gx[idx]);
            sum += p;
            let delta = p - mean;
            mean += delta / (n + 1) as f32;
            m2 = delta.mul_add(p - mean, m2);
        }
        let mu = sum / 150.0;
        let g = mu * mu / (m2 / 149.0);
        if g > best {
            best = g;
        }
    }
    best
}

#[test]
fn gicov_runs_with_the_proposed_textures_and_matches_the_reference() {
    let Some(src) = corpus("rodinia__find_ellipse_kernel.ptx") else { return };
    let t = tables();
    let module = sim_core::ptx::compile(&with_tables(&src, &t));
    assert!(module.is_ok(), "{:?}", module.err());
    let Ok(module) = module else { return };
    let mut setup = propose(&module, GICOV).setup;
    // The proposal binds both texture references and sizes the output from the scalar.
    assert_eq!(setup.textures.keys().collect::<Vec<_>>(), ["t_grad_x", "t_grad_y"]);
    assert_eq!(setup.outputs, Some(vec![1]));
    let grad_m = 40i32;
    let texels = (grad_m * grad_m) as usize;
    let gx: Vec<f32> = (0..texels).map(|k| ((k * 37) % 101) as f32 / 101.0 - 0.5).collect();
    let gy: Vec<f32> = (0..texels).map(|k| ((k * 53) % 97) as f32 / 97.0 - 0.5).collect();
    for (name, data) in [("t_grad_x", &gx), ("t_grad_y", &gy)] {
        if let Some(tex) = setup.textures.get_mut(name) {
            tex.width = texels as u32;
            tex.data = Some(f32s(data));
            tex.init = None;
        }
    }
    setup.grid = vec![2, 1, 1];
    setup.block = vec![8, 1, 1];
    setup.params[0] = ParamSpec::Scalar(ScalarSpec {
        ty: sim_core::exec::ElemType::S32,
        value: ScalarValue::One(Value::UInt(grad_m as u64)),
    });
    setup.params[1] = ParamSpec::Buffer(BufferSpec {
        ty: sim_core::exec::ElemType::F32,
        len: Some(texels as u64),
        init: None,
        data: None,
        offset: None,
    });
    let result = run(&module, &setup);
    assert!(result.is_ok(), "{:?}", result.err().map(|e| e.to_string()));
    let Ok(result) = result else { return };
    let out = floats(&result.outputs[&1]);
    let mut written = 0;
    for (k, &g) in out.iter().enumerate() {
        let (row, col) = (k as i32 / grad_m, k as i32 % grad_m);
        let (i, j) = (col - 22, row - 22);
        if (0..8).contains(&i) && (0..2).contains(&j) {
            let want = gicov_reference(&gx, &gy, &t, grad_m, col, row);
            assert_eq!(g.to_bits(), want.to_bits(), "pixel ({col}, {row}): RegLab {g}, reference {want}");
            assert!(g > 0.0);
            written += 1;
        } else {
            assert_eq!(g, 0.0, "element {k} is not written by the kernel");
        }
    }
    assert_eq!(written, 16);
}
