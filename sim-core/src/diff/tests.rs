//! Hand-worked diffs: the alignment of small texts row by row, the pairing of edits into changed
//! rows, the bounds, and the reasons of DeMO's rewrite of the paper's Fig. 4 kernel.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::rewrite::{diff_with_reasons, rewrite_diff};
use super::{diff_lines, DiffRow, RowKind, MAX_EDITS, MAX_LINES};
use crate::gpu::presets;
use crate::timing::{EnergyModel, SchemeSpec};

/// The rows as (kind, old, new).
fn shape(rows: &[DiffRow]) -> Vec<(RowKind, Option<usize>, Option<usize>)> {
    rows.iter().map(|r| (r.kind, r.old, r.new)).collect()
}

use RowKind::{Added, Changed, Removed, Same};

#[test]
fn a_removed_middle_line_keeps_the_rest_aligned() {
    // a b c → a c: LCS "a c"; b is removed between them.
    let d = diff_lines(&["a", "b", "c"], &["a", "c"]);
    assert_eq!(shape(&d.rows), [(Same, Some(0), Some(0)), (Removed, Some(1), None), (Same, Some(2), Some(1))]);
    assert_eq!((d.edits(), d.fallback), (1, None));
}

#[test]
fn an_appended_line_is_added_and_identical_texts_have_no_edit() {
    let d = diff_lines(&["x"], &["x", "y"]);
    assert_eq!(shape(&d.rows), [(Same, Some(0), Some(0)), (Added, None, Some(1))]);
    let same = diff_lines(&["p", "q"], &["p", "q"]);
    assert_eq!(same.edits(), 0);
    assert_eq!(diff_lines(&[], &[]).rows, []);
    // Everything new: two added rows, nothing removed.
    assert_eq!(shape(&diff_lines(&[], &["u", "v"]).rows), [(Added, None, Some(0)), (Added, None, Some(1))]);
}

#[test]
fn a_folded_load_pairs_the_consumer_by_opcode() {
    // Fig. 4: the run of edits is {ld %f2, mul %f2} removed, {mul %c} added. The opcodes
    // (ld.const.f32, mul.ftz.f32) vs (mul.ftz.f32) match at the mul: ld removed, mul changed.
    let old = ["ld.const.f32 %f1, [%rd1];", "ld.const.f32 %f2, [%rd1+4];", "mul.ftz.f32 %f3, %f2, %f1;", "ret;"];
    let new = ["ld.const.f32 %f1, [%rd1];", "mul.ftz.f32 %f3, %c[%rd1+4], %f1;", "ret;"];
    let d = diff_lines(&old, &new);
    let want =
        [(Same, Some(0), Some(0)), (Removed, Some(1), None), (Changed, Some(2), Some(1)), (Same, Some(3), Some(2))];
    assert_eq!(shape(&d.rows), want);
}

#[test]
fn unmatched_runs_pair_in_order_only_when_the_counts_agree() {
    // Guards are skipped for the key: "@%p1 add.s32" and "add.s32" pair; no key matches for
    // b/c, two against two: paired in order.
    let d = diff_lines(&["@%p1 add.s32 %r1;", "z"], &["add.s32 %r2;", "z"]);
    assert_eq!(shape(&d.rows), [(Changed, Some(0), Some(0)), (Same, Some(1), Some(1))]);
    let d = diff_lines(&["b 1", "c 2"], &["d 1", "e 2"]);
    assert_eq!(shape(&d.rows), [(Changed, Some(0), Some(0)), (Changed, Some(1), Some(1))]);
    // A fused pair: `xor.b32_shr.u32` matches either half; the first match wins: changed, removed.
    let d = diff_lines(&["xor.b32 %r1;", "shr.u32 %r2;"], &["xor.b32_shr.u32 %r2;"]);
    assert_eq!(shape(&d.rows), [(Changed, Some(0), Some(0)), (Removed, Some(1), None)]);
    // Two removed, one added, no key in common: removed, removed, added.
    let d = diff_lines(&["mov.u32 %r1;", "neg.s32 %r2;"], &["abs.s32 %r2;"]);
    assert_eq!(shape(&d.rows), [(Removed, Some(0), None), (Removed, Some(1), None), (Added, None, Some(0))]);
}

#[test]
fn too_many_lines_or_edits_fall_back_to_side_by_side() {
    let big: Vec<String> = (0..=MAX_LINES).map(|i| format!("l{i}")).collect();
    let big: Vec<&str> = big.iter().map(String::as_str).collect();
    let d = diff_lines(&big, &["l0"]);
    assert!(d.fallback.as_deref().is_some_and(|w| w.contains("20000")), "{:?}", d.fallback);
    // Row i holds line i of each side: l0 = l0, then removed lines.
    assert_eq!(d.rows.len(), MAX_LINES + 1);
    assert_eq!(shape(&d.rows[..2]), [(Same, Some(0), Some(0)), (Removed, Some(1), None)]);
    // MAX_EDITS / 2 + 1 lines wholly replaced: MAX_EDITS + 2 edits, one more than allowed.
    let n = MAX_EDITS / 2 + 1;
    let (a, b): (Vec<String>, Vec<String>) =
        ((0..n).map(|i| format!("a{i}")).collect(), (0..n).map(|i| format!("b{i}")).collect());
    let (a, b): (Vec<&str>, Vec<&str>) =
        (a.iter().map(String::as_str).collect(), b.iter().map(String::as_str).collect());
    let d = diff_lines(&a, &b);
    assert!(d.fallback.as_deref().is_some_and(|w| w.contains("2000 lines differ")), "{:?}", d.fallback);
    assert_eq!(d.rows.len(), n);
    // One fewer: aligned (every line removed and added, paired in order as the counts agree).
    let d = diff_lines(&a[1..], &b[1..]);
    assert_eq!((d.fallback, d.rows.len()), (None, n - 1));
}

#[test]
fn a_long_text_with_scattered_edits_aligns_every_unchanged_line() {
    // 300 lines; every 50th changes (6 edits of one line): 294 same rows, 6 changed.
    let a: Vec<String> = (0..300).map(|i| format!("op{} %r{i};", i % 7)).collect();
    let b: Vec<String> =
        a.iter().enumerate().map(|(i, l)| if i % 50 == 0 { format!("{l} // x") } else { l.clone() }).collect();
    let (a, b): (Vec<&str>, Vec<&str>) =
        (a.iter().map(String::as_str).collect(), b.iter().map(String::as_str).collect());
    let d = diff_lines(&a, &b);
    assert_eq!(d.rows.len(), 300);
    assert!(d.rows.iter().all(|r| r.old == r.new), "every row stays on its own line");
    assert_eq!(d.rows.iter().filter(|r| r.kind == Changed).count(), 6);
}

const FIG4: &str = ".version 7.0\n.target sm_80\n.address_size 64\n\n\
.visible .entry fig4(.param .u64 fig4_const, .param .u64 fig4_out)\n{\n\
.reg .f32 %f<4>;\n.reg .b64 %rd<3>;\n\
ld.param.u64 %rd1, [fig4_const];\nld.param.u64 %rd2, [fig4_out];\n\
ld.const.f32 %f1, [%rd1];\nld.const.f32 %f2, [%rd1+4];\nmul.ftz.f32 %f3, %f2, %f1;\n\
fma.rn.ftz.f32 %f3, %f1, %f3, %f3;\nst.global.f32 [%rd2], %f3;\nret;\n}\n";

#[test]
fn demo_on_fig4_names_the_dropped_load_and_its_consumer() {
    let module = crate::ptx::compile(FIG4);
    assert!(module.is_ok(), "{module:?}");
    let Ok(module) = module else { return };
    let gpu = presets::turing_rtx2060();
    let scheme = SchemeSpec::parse("demo:spaces=all").and_then(|s| s.resolve(&gpu, &EnergyModel::default()));
    assert!(scheme.is_ok(), "{scheme:?}");
    let Ok(scheme) = scheme else { return };
    let got = rewrite_diff(&module, &scheme);
    assert!(matches!(got, Ok(Some(_))), "{got:?}");
    let Ok(Some(got)) = got else { return };
    // Two edits: the load of %f2 removed, the mul changed (it reads %c[%rd1+4]).
    let edits: Vec<&DiffRow> = got.diff.rows.iter().filter(|r| r.kind != Same).collect();
    assert_eq!(edits.iter().map(|r| r.kind).collect::<Vec<_>>(), [Removed, Changed]);
    let text = |r: &DiffRow, side: bool| {
        let (lines, at) = if side { (&got.original, r.old) } else { (&got.rewritten, r.new) };
        at.and_then(|i| lines.get(i)).map(|s| s.trim().to_owned()).unwrap_or_default()
    };
    assert_eq!(text(edits[0], true), "ld.const.f32 %f2, [%rd1+4];");
    assert_eq!(text(edits[1], false), "mul.ftz.f32 %f3, %c[%rd1+4], %f1;");
    assert_eq!(
        edits[0].reason.as_deref(),
        Some("single-use load dropped: its value is read directly by `mul.ftz.f32 %f3, %c[%rd1+4], %f1;`")
    );
    assert_eq!(
        edits[1].reason.as_deref(),
        Some("reads the dropped load `ld.const.f32 %f2, [%rd1+4];` directly as a memory operand")
    );
    // The baseline does not transform code.
    let base = SchemeSpec::parse("baseline").and_then(|s| s.resolve(&gpu, &EnergyModel::default()));
    assert!(base.is_ok(), "{base:?}");
    let Ok(base) = base else { return };
    assert_eq!(rewrite_diff(&module, &base), Ok(None));
}

#[test]
fn an_identity_rewrite_has_no_edit_and_no_reason() {
    let module = crate::ptx::compile(FIG4);
    assert!(module.is_ok(), "{module:?}");
    let Ok(module) = module else { return };
    let d = diff_with_reasons(&module, &module, &crate::timing::program_map::InstMap::new());
    assert_eq!((d.diff.edits(), d.original.len(), d.original == d.rewritten), (0, d.rewritten.len(), true));
    assert!(d.diff.rows.iter().all(|r| r.reason.is_none()));
}

const MUL_SHIFT: &str = ".version 7.0\n.target sm_70\n.address_size 64\n\
.visible .entry k(.param .u64 out) {\n.reg .b32 %r<5>;\n.reg .b64 %rd<3>;\n\
ld.param.u64 %rd1, [out];\nmov.u32 %r1, %tid.x;\nmul.lo.u32 %r2, %r1, 3;\nshl.b32 %r3, %r2, 2;\n\
mul.wide.u32 %rd2, %r1, 4;\nadd.u64 %rd2, %rd1, %rd2;\nst.global.u32 [%rd2], %r3;\nret;\n}\n";

#[test]
fn a_fused_pair_names_both_halves() {
    // `composite` fuses the mul and the shl (its result's one use) into one instruction at the
    // mul's place: in the run {mul, shl} → {mul_shl}, the fused opcode matches the mul's, so
    // the mul's row changes and the shl's is removed; the changed row names the pair (not the
    // generic "rewritten as"/"was", which the row shows), the removed one its fused instruction.
    let module = crate::ptx::compile(MUL_SHIFT);
    assert!(module.is_ok(), "{module:?}");
    let Ok(module) = module else { return };
    let gpu = presets::turing_rtx2060();
    let scheme = SchemeSpec::parse("composite").and_then(|s| s.resolve(&gpu, &EnergyModel::default()));
    assert!(scheme.is_ok(), "{scheme:?}");
    let Ok(scheme) = scheme else { return };
    let got = rewrite_diff(&module, &scheme);
    assert!(matches!(got, Ok(Some(_))), "{got:?}");
    let Ok(Some(got)) = got else { return };
    let edits: Vec<&DiffRow> = got.diff.rows.iter().filter(|r| r.kind != Same).collect();
    let fused = "`mul.lo.u32_shl.b32 %r3, %r1, 3, 2;`";
    let want = [
        (Changed, String::from("fused pair: `mul.lo.u32 %r2, %r1, 3;` with `shl.b32 %r3, %r2, 2;`")),
        (Removed, format!("merged into the fused instruction {fused}")),
    ];
    let got: Vec<(RowKind, String)> = edits.iter().map(|r| (r.kind, r.reason.clone().unwrap_or_default())).collect();
    assert_eq!(got, want, "{:?}", got);
}
