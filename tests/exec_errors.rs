//! Malformed and impossible launch setups give an `invalid_launch` error whose message says what
//! is wrong and where; none of them panics or runs anything.

use sim_core::exec::{ExecError, LaunchSetup, Run, RunOptions};

const PTX: &str = r#"
.version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 n) .maxntid 256, 1, 1
{
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [out];
	ret;
}
.visible .entry other()
{
	ret;
}
"#;

fn outcome(json: &str) -> Result<(), ExecError> {
    let module = sim_core::ptx::compile(PTX).unwrap_or_default();
    let setup = LaunchSetup::from_json(json)?;
    Run::new(&module, &setup, RunOptions::default())?.run_to_end().map(|_| ())
}

fn invalid(json: &str, needle: &str) {
    let result = outcome(json);
    let message = match &result {
        Err(ExecError::InvalidLaunch { message }) => message.as_str(),
        _ => "",
    };
    assert!(message.contains(needle), "for {json}\nexpected invalid_launch mentioning {needle:?}, got {result:?}");
}

const OK_PARAMS: &str = r#"[{"buffer": {"type": "u32", "len": 4}}, {"scalar": {"type": "u32", "value": 4}}]"#;

#[test]
fn a_valid_setup_runs() {
    let json = format!(r#"{{"kernel": "k", "block": [32], "params": {OK_PARAMS}}}"#);
    assert_eq!(outcome(&json), Ok(()));
}

#[test]
fn malformed_json_and_fields() {
    invalid("{", "launch setup JSON");
    invalid(r#"{"kernel": "k", "params": [], "blocks": [1]}"#, "unknown field `blocks`");
    invalid(r#"{"kernel": "k", "params": [{"pointer": {}}]}"#, "unknown variant `pointer`");
    invalid(r#"{"kernel": "k", "params": [{"buffer": {"type": "u128", "len": 4}}]}"#, "unknown variant `u128`");
    invalid(
        r#"{"kernel": "k", "params": [{"buffer": {"type": "u32", "len": 4, "init": "ones"}}]}"#,
        "unknown init 'ones'",
    );
}

#[test]
fn unknown_kernel_and_parameter_mismatches() {
    invalid(
        &format!(r#"{{"kernel": "nope", "params": {OK_PARAMS}}}"#),
        "unknown kernel 'nope' (kernels in this module: k, other)",
    );
    invalid(r#"{"params": []}"#, "the module has several: k, other");
    invalid(
        r#"{"kernel": "k", "params": [{"buffer": {"type": "u32", "len": 4}}]}"#,
        "takes 2 parameters, the launch gives 1",
    );
    invalid(
        r#"{"kernel": "k", "params": [{"scalar": {"type": "u32", "value": 1}}, {"scalar": {"type": "u32", "value": 4}}]}"#,
        "parameter 0 ('out', .u64) is 8 bytes, but the scalar given is 4 bytes",
    );
    invalid(
        r#"{"kernel": "k", "params": [{"buffer": {"type": "u32", "len": 4}}, {"buffer": {"type": "u32", "len": 4}}]}"#,
        "parameter 1 ('n', .u32) cannot take a buffer",
    );
    invalid(
        r#"{"kernel": "k", "params": [{"buffer": {"type": "u8", "data": [256]}}, {"scalar": {"type": "u32", "value": 4}}]}"#,
        "params[0]: data[0]: 256 is out of range for u8",
    );
    invalid(
        r#"{"kernel": "k", "params": [{"buffer": {"type": "u32", "len": 1, "data": [1, 2]}}, {"scalar": {"type": "u32", "value": 4}}]}"#,
        "len is 1 but data has 2 values",
    );
    invalid(
        &format!(r#"{{"kernel": "k", "params": {OK_PARAMS}, "outputs": [1]}}"#),
        "outputs: params[1] is not a buffer",
    );
}

#[test]
fn absurd_dimensions_and_sizes() {
    invalid(
        &format!(r#"{{"kernel": "k", "block": [2048], "params": {OK_PARAMS}}}"#),
        "block.x is 2048; it must be 1 to 1024",
    );
    invalid(&format!(r#"{{"kernel": "k", "block": [32, 32, 2], "params": {OK_PARAMS}}}"#), "block has 2048 threads");
    invalid(
        &format!(r#"{{"kernel": "k", "block": [512], "params": {OK_PARAMS}}}"#),
        "at most 256 threads per CTA (.maxntid)",
    );
    invalid(&format!(r#"{{"kernel": "k", "grid": [0], "params": {OK_PARAMS}}}"#), "grid.x is 0");
    invalid(&format!(r#"{{"kernel": "k", "grid": [1, 70000], "params": {OK_PARAMS}}}"#), "grid.y is 70000");
    invalid(&format!(r#"{{"kernel": "k", "grid": [1, 1, 1, 1], "params": {OK_PARAMS}}}"#), "grid needs 1 to 3 numbers");
    invalid(
        &format!(r#"{{"kernel": "k", "dynamic_smem": 1000000, "params": {OK_PARAMS}}}"#),
        "dynamic_smem is 1000000 bytes",
    );
    invalid(
        r#"{"kernel": "k", "params": [{"buffer": {"type": "f64", "len": 100000000}}, {"scalar": {"type": "u32", "value": 4}}]}"#,
        "exceed RegLab's 256 MiB buffer limit",
    );
    invalid(&format!(r#"{{"kernel": "k", "params": {OK_PARAMS}, "budget": 0}}"#), "budget must be at least 1");
    invalid(
        &format!(r#"{{"kernel": "k", "params": {OK_PARAMS}, "repeat": {{"max": 5, "until_zero": 1}}}}"#),
        "repeat.until_zero: params[1] is not a buffer",
    );
}

#[test]
fn a_huge_grid_of_empty_ctas_stops_at_the_budget() {
    let r = outcome(r#"{"kernel": "other", "grid": [2147483647, 65535, 65535], "params": [], "budget": 1000}"#);
    assert!(matches!(r, Err(ExecError::BudgetExceeded { .. })), "{r:?}");
}
