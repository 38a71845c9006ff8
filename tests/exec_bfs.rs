//! Rodinia BFS from the corpus (GPGPU-Sim's pr219 build, sm_20) on its SampleGraph input: the two
//! kernels iterated until the stop flag stays zero give exactly the expected cost file. The
//! per-launch thread-instruction counts (active lanes whose guard holds) equal GPGPU-Sim's
//! `gpu_sim_insn` for the launches its log excerpt lists.

#![allow(clippy::print_stderr, reason = "the test reports the instruction counts beside GPGPU-Sim's")]

use reglab_tests::bfs::{parse_costs, parse_log, sample_setup};
use reglab_tests::corpus_dir;
use sim_core::exec::{run, ElemType};

#[test]
fn bfs_sample_graph_gives_the_expected_costs() {
    let dir = corpus_dir().join("gpgpu-sim");
    let src = std::fs::read_to_string(dir.join("pr219_bfs.1.sm_20.ptx")).unwrap_or_default();
    let module = sim_core::ptx::compile(&src).unwrap_or_default();
    let setup = sample_setup(&corpus_dir());
    assert!(setup.is_some(), "SampleGraph not found in {}", dir.display());
    let Some(setup) = setup else { return };
    let result = run(&module, &setup).map_err(|mut e| {
        e.locate(&src);
        e.to_string()
    });
    assert!(result.is_ok(), "BFS failed: {}", result.as_ref().err().cloned().unwrap_or_default());
    let Ok(result) = result else { return };
    let got: Vec<i64> =
        result.outputs[&5].iter().map(|v| v.to_bits(ElemType::S32).unwrap_or(0) as u32 as i32 as i64).collect();
    let want = parse_costs(&std::fs::read_to_string(dir.join("pr219_bfs.result_SampleGraph.txt")).unwrap_or_default());
    assert_eq!(got, want, "BFS costs");
    assert!(result.rounds >= 2, "BFS needs several rounds, ran {}", result.rounds);

    let log = parse_log(&std::fs::read_to_string(dir.join("pr219_bfs.gpgpusim_log_excerpt.txt")).unwrap_or_default());
    for ((kernel, insn), ours) in log.iter().zip(&result.launches) {
        assert_eq!(kernel, &ours.kernel);
        eprintln!(
            "{kernel}: GPGPU-Sim gpu_sim_insn {insn}, RegLab thread-instructions {} (warp-instructions {})",
            ours.thread_instructions, ours.warp_instructions
        );
        assert_eq!(ours.thread_instructions, *insn, "{kernel}: thread-instructions differ from GPGPU-Sim's");
    }
}
