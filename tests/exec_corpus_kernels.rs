//! Corpus kernels whose results are easy to state, against plain Rust: the Volta `wmma` kernel
//! (GPGPU-Sim's tensor_core_wmma, sm_70: `wmma.load.a.row`, `wmma.load.b.col`, `wmma.mma`,
//! `wmma.store.d.col`, `%clock` and a `vprintf` call) and gpuocelot's indirect-call test (lanes of
//! one warp calling four different functions through one `call` instruction).

use reglab_tests::corpus_dir;
use sim_core::exec::launch::buffer_bytes;
use sim_core::exec::{run, BufferSpec, ElemType, Init, LaunchSetup};

#[test]
fn corpus_wmma_kernel_multiplies_a_16x16_tile() {
    let src = std::fs::read_to_string(corpus_dir().join("gpgpu-sim/tensor_core_wmma._cuobjdump_1.sm_70.ptx"));
    let module = sim_core::ptx::compile(&src.unwrap_or_default());
    assert!(module.is_ok());
    let Ok(module) = module else { return };
    let setup = LaunchSetup::from_json(
        r#"{"kernel": "_Z12wmma_exampleP6__halfS0_Pfiiiff", "block": [32],
            "params": [{"buffer": {"type": "f16", "len": 256, "init": "random:1"}},
                       {"buffer": {"type": "f16", "len": 256, "init": "random:2"}},
                       {"buffer": {"type": "f32", "len": 256}},
                       {"scalar": {"type": "s32", "value": 16}}, {"scalar": {"type": "s32", "value": 16}},
                       {"scalar": {"type": "s32", "value": 16}}, {"scalar": {"type": "f32", "value": 1.0}},
                       {"scalar": {"type": "f32", "value": 0.0}}],
            "outputs": [2]}"#,
    );
    assert!(setup.is_ok(), "{setup:?}");
    let Ok(setup) = setup else { return };
    let result = run(&module, &setup);
    assert!(result.is_ok(), "{:?}", result.as_ref().err().map(ToString::to_string));
    let Ok(result) = result else { return };
    let half = |seed| {
        let spec =
            BufferSpec { ty: ElemType::F16, len: Some(256), init: Some(Init::Random(seed)), data: None, offset: None };
        let bytes = buffer_bytes(&spec, 256).unwrap_or_default();
        bytes
            .chunks_exact(2)
            .map(|c| ElemType::F16.float_value(u64::from(u16::from_le_bytes([c[0], c[1]]))))
            .collect::<Vec<f64>>()
    };
    let (a, b) = (half(1), half(2));
    // A row-major (lda 16), B column-major (ldb 16), C stored column-major (ldc 16).
    let mut want = vec![0u64; 256];
    for i in 0..16 {
        for j in 0..16 {
            let d: f64 = (0..16).map(|k| a[i * 16 + k] * b[j * 16 + k]).sum();
            want[j * 16 + i] = u64::from((d as f32).to_bits());
        }
    }
    let got: Vec<u64> = result.outputs[&2].iter().map(|v| v.to_bits(ElemType::F32).unwrap_or(u64::MAX)).collect();
    assert_eq!(got, want);
}

#[test]
fn corpus_indirect_calls_diverge_and_reconverge() {
    let src = std::fs::read_to_string(corpus_dir().join("gpuocelot/ocelot_test__indirectCall.ptx"));
    let module = sim_core::ptx::compile(&src.unwrap_or_default());
    assert!(module.is_ok());
    let Ok(module) = module else { return };
    let setup = LaunchSetup::from_json(
        r#"{"kernel": "kernelEntry", "grid": [2], "block": [48],
            "params": [{"buffer": {"type": "s32", "len": 96}}, {"scalar": {"type": "u32", "value": 5}}]}"#,
    );
    assert!(setup.is_ok(), "{setup:?}");
    let Ok(setup) = setup else { return };
    let result = run(&module, &setup);
    assert!(result.is_ok(), "{:?}", result.as_ref().err().map(ToString::to_string));
    let Ok(result) = result else { return };
    let got: Vec<u64> = result.outputs[&0].iter().map(|v| v.to_bits(ElemType::S32).unwrap_or(u64::MAX)).collect();
    let want: Vec<u64> = (0..96u64).map(|i| i * (2 + ((i + 5) & 3))).collect();
    assert_eq!(got, want);
}
