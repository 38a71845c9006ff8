//! All 20 ZLUDA unit kernels of the corpus through the executor: exact expected outputs, bit for
//! bit (the io files were transcribed from ZLUDA's test harness).

use reglab_tests::corpus_dir;
use reglab_tests::units::unit_cases;
use sim_core::exec::run;

#[test]
fn every_unit_kernel_gives_the_expected_output() {
    let cases = unit_cases(&corpus_dir());
    assert_eq!(cases.len(), 20, "expected 20 unit cases under {}", corpus_dir().display());
    let mut failures = Vec::new();
    for case in &cases {
        let src = std::fs::read_to_string(&case.ptx).unwrap_or_default();
        let module = match sim_core::ptx::compile(&src) {
            Ok(m) => m,
            Err(d) => {
                failures.push(format!("{}: does not compile: {d:?}", case.name));
                continue;
            }
        };
        let nparams = module.functions.values().find(|f| f.name == case.kernel).map_or(0, |f| f.params.len());
        let setup = case.setup(nparams);
        let result = match run(&module, &setup) {
            Ok(r) => r,
            Err(mut e) => {
                e.locate(&src);
                failures.push(format!("{}: {e}", case.name));
                continue;
            }
        };
        let (ty, _) = case.output;
        let got: Vec<u64> = result
            .outputs
            .values()
            .next_back()
            .map(|v| v.iter().map(|x| x.to_bits(ty).unwrap_or(u64::MAX)).collect())
            .unwrap_or_default();
        let want = case.expected_bits();
        if got != want {
            let show = |v: &[u64]| v.iter().take(12).map(|b| format!("{b:#x}")).collect::<Vec<_>>().join(" ");
            failures.push(format!("{}: got [{}], want [{}]", case.name, show(&got), show(&want)));
        }
    }
    assert!(failures.is_empty(), "{} of {} unit kernels failed:\n{}", failures.len(), cases.len(), failures.join("\n"));
}
