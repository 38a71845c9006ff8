//! The dynamic instruction stream for the timing model: CTA by CTA, each warp's records with
//! masks, per-lane addresses and (on request) value summaries, barriers marked; one CTA at a time; the
//! same stream on every run; and the launch examples in the docs parse.

use reglab_tests::repo_root;
use sim_core::exec::{LaunchSetup, RecordKind, Run, RunOptions, TraceOptions};

fn traced(name: &str, launch: &str, values: bool) -> (Vec<sim_core::exec::CtaTrace>, u64) {
    let src = std::fs::read_to_string(repo_root().join("static/examples").join(name)).unwrap_or_default();
    let module = sim_core::ptx::compile(&src).unwrap_or_default();
    let setup = LaunchSetup::from_json(launch);
    assert!(setup.is_ok(), "{setup:?}");
    let Ok(setup) = setup else { return (Vec::new(), 0) };
    let options = RunOptions { budget: None, trace: TraceOptions { enabled: true, values, first_values: false } };
    let run = Run::new(&module, &setup, options);
    assert!(run.is_ok());
    let Ok(mut run) = run else { return (Vec::new(), 0) };
    let mut ctas = Vec::new();
    loop {
        let next = run.next_cta();
        assert!(next.is_ok(), "{next:?}");
        match next {
            Ok(Some(t)) => ctas.push(t),
            _ => break,
        }
    }
    (ctas, run.counters().warp)
}

const MATMUL: &str = r#"{"kernel": "_Z11matmulTiledPKfS0_Pfi", "grid": [2, 2], "block": [16, 16],
  "params": [{"buffer": {"type": "f32", "len": 1024, "init": "random:1"}},
             {"buffer": {"type": "f32", "len": 1024, "init": "random:2"}},
             {"buffer": {"type": "f32", "len": 1024}}, {"scalar": {"type": "s32", "value": 32}}]}"#;

#[test]
fn streams_come_cta_by_cta_with_masks_addresses_and_barriers() {
    let (ctas, executed) = traced("matmul_tiled.ptx", MATMUL, false);
    assert_eq!(ctas.len(), 4);
    assert_eq!(ctas.iter().map(|c| c.cta).collect::<Vec<_>>(), vec![[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]]);
    let records: usize = ctas.iter().map(|c| c.warp_instructions()).sum();
    assert_eq!(records as u64, executed, "every executed warp-instruction is recorded");
    for cta in &ctas {
        assert_eq!(cta.warps.len(), 8);
        assert_eq!(cta.functions.len(), 1);
        let barriers: Vec<usize> =
            cta.warps.iter().map(|w| w.records.iter().filter(|r| r.kind == RecordKind::Barrier).count()).collect();
        assert!(barriers.iter().all(|&b| b == 4), "two barriers per tile, two tiles: {barriers:?}");
        for w in &cta.warps {
            for r in &w.records {
                assert_eq!(r.executed & !r.active, 0);
                if matches!(r.kind, RecordKind::Load | RecordKind::Store) {
                    assert_eq!(r.addr_count, r.executed.count_ones(), "one address per executing lane");
                    assert!(r.bytes == 4 || r.bytes == 8, "{r:?}");
                } else {
                    assert_eq!(r.addr_count, 0);
                }
                assert_eq!(r.value_start, u32::MAX);
            }
        }
    }
    let first_ld = ctas[0].warps[0].records.iter().find(|r| r.kind == RecordKind::Load && r.space.is_none());
    let shared_st = ctas[0].warps[0].records.iter().find(|r| r.kind == RecordKind::Store);
    assert!(first_ld.is_none(), "the kernel's loads are all .global or .shared");
    assert!(shared_st.is_some_and(|r| r.space == Some(sim_core::exec::Space::Shared)));
}

#[test]
fn values_on_request_and_the_same_stream_every_time() {
    let (a, _) = traced("matmul_tiled.ptx", MATMUL, true);
    let (b, _) = traced("matmul_tiled.ptx", MATMUL, true);
    assert_eq!(a, b);
    let w = &a[0].warps[0];
    let with_values = w.records.iter().filter(|r| r.value_start != u32::MAX).count();
    assert!(with_values > w.records.len() / 2, "{with_values} of {}", w.records.len());
    // `mov.u32 %r2, %tid.x` gives lane l the value l % 16 (a 16×16 block): not uniform, 15 needs
    // 4 bits, 5 signed; one 32-bit unit.
    let mov = w.records.iter().find(|r| r.value_start != u32::MAX && r.pc == 4);
    assert!(mov.is_some());
    let Some(mov) = mov else { return };
    assert_eq!(mov.value_units, 1);
    let s = w.values[mov.value_start as usize];
    assert_eq!((s.uniform(), s.unsigned_bits(), s.signed_bits()), (false, 4, 5));
}

#[test]
fn launch_examples_in_the_docs_parse() {
    let doc = std::fs::read_to_string(repo_root().join("docs/launch-format.md")).unwrap_or_default();
    let blocks: Vec<&str> = doc.split("```json\n").skip(1).filter_map(|b| b.split("```").next()).collect();
    let setups: Vec<&&str> = blocks.iter().filter(|b| b.contains("\"params\"")).collect();
    assert!(setups.len() >= 2);
    for b in setups {
        assert!(LaunchSetup::from_json(b).is_ok(), "{b}");
    }
}
