//! Tests of the `rfc-ob` scheme beyond the file tests (`tests/cases/timing/rfc_*.ptx`): the
//! last-use table over the physical registers the banks see, and the scheme's schema.

use alloc::vec::Vec;

use super::last_use::LastUse;
use super::registry::by_name;
use super::EnergyModel;
use crate::gpu::presets;
use crate::timing::program::Program;

/// The kernel of `rfc_last_use.ptx` plus a value read twice.
const SRC: &str = r#"
.version 7.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
    .reg .f32 %f<8>;
    mov.f32 %f0, 0f3F800000;
    mov.f32 %f1, 0f40000000;
    add.f32 %f2, %f0, %f1;
    mov.f32 %f3, 0f40400000;
    add.f32 %f4, %f2, %f3;
    add.f32 %f5, %f4, %f0;
    add.f32 %f6, %f5, %f4;
    ret;
}
"#;

fn last_bits(src: &str) -> Vec<Vec<bool>> {
    let Ok(module) = crate::ptx::compile(src) else { return Vec::new() };
    let Some(gpu) = presets::by_name("hopper-h100") else { return Vec::new() };
    let p = Program::decode(&module, &gpu);
    let lu = LastUse::compute(&module, &p);
    (0..p.insts.len() as u32).map(|sid| (0..p.bank_reads(sid).len()).map(|k| lu.is_last(sid, k)).collect()).collect()
}

#[test]
fn last_use_bits_follow_liveness() {
    // sid 2: add %f2 = %f0 + %f1 — %f0 is read again at sid 5, %f1 never: [false, true].
    // sid 4: add %f4 = %f2 + %f3 — both dead after: [true, true].
    // sid 5: add %f5 = %f4 + %f0 — %f4 read again at sid 6, %f0 dead: [false, true].
    // sid 6: add %f6 = %f5 + %f4 — both dead: [true, true]. Movs and ret read nothing.
    let bits = last_bits(SRC);
    let want: [&[bool]; 8] = [&[], &[], &[false, true], &[], &[true, true], &[false, true], &[true, true], &[]];
    assert_eq!(bits.len(), want.len());
    for (sid, (got, want)) in bits.iter().zip(want).enumerate() {
        assert_eq!(got.as_slice(), want, "sid {sid}");
    }
}

#[test]
fn schema_defaults_are_the_papers() {
    let gpu = presets::fermi_gtx480();
    assert!(by_name("rfc-ob").is_some(), "rfc-ob is registered");
    let specs = by_name("rfc-ob").map(|e| (e.params)(&gpu, &EnergyModel::default())).unwrap_or_default();
    let default = |n: &str| specs.iter().find(|s| s.name == n).map(|s| s.default.to_string()).unwrap_or_default();
    assert_eq!(default("ob_entries"), "4");
    assert_eq!(default("rfc_entries"), "8");
    assert_eq!(default("bank_conflicts"), "true");
    assert_eq!(default("last_use_bit"), "false");
    assert_eq!(default("two_level"), "false");
    assert_eq!(default("active_warps"), "8");
    assert_eq!(default("rfc_nj"), "0.0028");
    assert_eq!(default("banks"), gpu.register_file.banks.to_string());
    assert!(specs.iter().any(|s| s.name == "rfc_nj" && s.assumption));
}
