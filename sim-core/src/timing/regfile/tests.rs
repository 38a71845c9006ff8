//! Unit tests of scheme configuration: spec parsing (good and bad), validation errors that name
//! the field and its range, defaults equal to the presets' (the behaviour before schemes had
//! configs), the typed configs the schemes are built from, and the listing the CLI prints.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::bank::{BankMapping, Banks};
use super::baseline::BankedConfig;
use super::config::{describe, resolve_all, SchemeConfigError, SchemeSpec};
use super::operand_collector::CollectorPool;
use super::params::{ParamKind, ParamValue};
use super::{EnergyModel, SchemeContext, SchemeCounter, SchemeStats, SmGeometry};
use crate::gpu::{presets, ResidencyLimits};

fn params(pairs: &[(&str, ParamValue)]) -> BTreeMap<String, ParamValue> {
    pairs.iter().map(|(k, v)| (String::from(*k), v.clone())).collect()
}

#[test]
fn specs_parse_names_and_typed_values() {
    assert_eq!(SchemeSpec::parse("baseline"), Ok(SchemeSpec::named("baseline")));
    let spec = SchemeSpec::parse("baseline:collector_units=2, bank_mapping=reg,main_rf_nj=0.03");
    let want = params(&[
        ("collector_units", ParamValue::Int(2)),
        ("bank_mapping", ParamValue::Text("reg".into())),
        ("main_rf_nj", ParamValue::Float(0.03)),
    ]);
    assert_eq!(spec.map(|s| s.params), Ok(want));
    assert_eq!(ParamValue::parse_text("true"), ParamValue::Bool(true));
    assert_eq!(ParamValue::parse_text("-3"), ParamValue::Int(-3));
    assert_eq!(ParamValue::parse_text("1e-2"), ParamValue::Float(0.01));
}

#[test]
fn bad_specs_say_what_is_wrong() {
    for (text, why) in [
        ("", "no scheme name"),
        (":banks=2", "no scheme name"),
        ("baseline:banks", "'banks' is not key=value"),
        ("baseline:=2", "needs both a key and a value"),
        ("baseline:banks=", "needs both a key and a value"),
        ("baseline:banks=2,banks=4", "'banks' is set twice"),
    ] {
        let e = SchemeSpec::parse(text).map_err(|e| e.to_string());
        assert!(e.as_ref().is_err_and(|m| m.contains(why)), "{text}: {e:?}");
    }
}

/// Labels: the bare name for the defaults, the overrides sorted by key otherwise.
#[test]
fn labels_are_canonical() {
    let label = |t: &str| SchemeSpec::parse(t).map(|s| s.label()).unwrap_or_default();
    assert_eq!(label("baseline"), "baseline");
    assert_eq!(label("baseline:collector_units=2,banks=8"), "baseline:banks=8,collector_units=2");
    assert_eq!(label("baseline: main_rf_nj = 0.030"), "baseline:main_rf_nj=0.03");
}

#[test]
fn validation_names_the_field_and_the_range() {
    let fermi = presets::fermi_gtx480();
    let energy = EnergyModel::default();
    let err = |t: &str| SchemeSpec::parse(t).and_then(|s| s.resolve(&fermi, &energy)).err().map(|e| e.to_string());
    let msg = err("baseline:banks=0").unwrap_or_default();
    assert_eq!(msg, "baseline: banks = 0 is out of range 1 ..= 1024 (banks per SM)");
    assert_eq!(
        err("baseline:collector_units=2.5").as_deref(),
        Some("baseline: collector_units must be an integer, not '2.5'")
    );
    assert_eq!(
        err("baseline:bank_mapping=diagonal").as_deref(),
        Some("baseline: bank_mapping must be one of reg_plus_warp, reg, not 'diagonal'")
    );
    assert!(err("baseline:rfc_size=8").is_some_and(|m| m.contains("unknown parameter 'rfc_size'")
        && m.contains("banks, collector_units, bank_mapping, arbitration, main_rf_nj")));
    assert!(err("rfc:size=8").is_some_and(|m| m.contains("unknown register-file scheme 'rfc'")));
    assert!(err("2x-registers:register_multiplier=17").is_some_and(|m| m.contains("out of range 1 ..= 16")));
    assert!(err("baseline:main_rf_nj=-0.1").is_some_and(|m| m.contains("out of range 0 ..= 1 (nJ per 32-bit access)")));
    // Volta's 4 sub-cores need at least one bank each: the range comes from the preset.
    let volta = presets::volta_v100();
    let e = SchemeSpec::parse("baseline:banks=2").and_then(|s| s.resolve(&volta, &energy));
    assert!(matches!(e, Err(SchemeConfigError::OutOfRange { ref range, .. }) if range == "4 ..= 1024"), "{e:?}");
    // A whole number is a valid real.
    let ok = SchemeSpec::parse("no-bank-conflicts:main_rf_nj=1").and_then(|s| s.resolve(&fermi, &energy));
    assert_eq!(ok.map(|r| r.config.get("main_rf_nj").cloned()), Ok(Some(ParamValue::Float(1.0))));
}

#[test]
fn the_same_label_twice_is_refused_and_distinct_ones_run() {
    let gpu = presets::fermi_gtx480();
    let energy = EnergyModel::default();
    let twice = resolve_all(&["baseline", "baseline"], &gpu, &energy).err();
    assert_eq!(twice, Some(SchemeConfigError::Duplicate { label: "baseline".into() }));
    let two = resolve_all(&["baseline", "baseline:collector_units=2"], &gpu, &energy).unwrap_or_default();
    let labels: Vec<&str> = two.iter().map(|r| r.label.as_str()).collect();
    assert_eq!(labels, ["baseline", "baseline:collector_units=2"]);
}

/// Every preset's defaults are the values the schemes used before they had configs: the preset's
/// banks and collectors, GPGPU-Sim's mapping, Gilani's 2.8e-2 nJ; so the banks and collectors
/// built from them are the same.
#[test]
fn defaults_are_the_presets() {
    let energy = EnergyModel::default();
    for name in presets::names() {
        let Some(gpu) = presets::by_name(name) else { continue };
        let resolved = SchemeSpec::named("baseline").resolve(&gpu, &energy);
        let cfg = resolved.and_then(|r| BankedConfig::from_config("baseline", &r.config));
        let want = BankedConfig {
            banks: gpu.register_file.banks,
            collector_units: gpu.register_file.collector_units,
            bank_mapping: BankMapping::RegPlusWarp,
            main_rf_nj: 2.8e-2,
        };
        assert_eq!(cfg.as_ref(), Ok(&want), "{name}");
        let groups = gpu.core.sub_cores.max(1);
        let geo = SmGeometry { schedulers: gpu.scheduler.schedulers_per_sm, groups, warp_size: 32, max_warps: 64 };
        let pools = (CollectorPool::new(&gpu, &geo), CollectorPool::with_units(want.collector_units, &geo));
        assert_eq!(format!("{:?}", pools.0), format!("{:?}", pools.1), "{name}");
        let banks =
            (Banks::new(gpu.register_file.banks, groups), Banks::with_mapping(want.banks, groups, want.bank_mapping));
        assert_eq!(format!("{:?}", banks.0), format!("{:?}", banks.1), "{name}");
    }
}

/// GPGPU-Sim's mapping puts warp 3's r5 in bank (5 + 3) % 16 = 8; without the swizzle, bank 5.
#[test]
fn the_bank_mapping_is_a_parameter() {
    assert_eq!(Banks::with_mapping(16, 1, BankMapping::RegPlusWarp).bank(5, 3, 0), 8);
    assert_eq!(Banks::with_mapping(16, 1, BankMapping::Reg).bank(5, 3, 0), 5);
}

/// fermi-gtx480 has 32,768 registers per SM: × 2 by default, × 3 when asked.
#[test]
fn the_register_multiplier_scales_the_capacity() {
    let gpu = presets::fermi_gtx480();
    let energy = EnergyModel::default();
    let geo = SmGeometry { schedulers: 2, groups: 1, warp_size: 32, max_warps: 48 };
    let ctx = SchemeContext { gpu: &gpu, geometry: geo, energy: &energy };
    let regs = |text: &str| {
        let r = SchemeSpec::parse(text).and_then(|s| s.resolve(&gpu, &energy)).ok()?;
        let scheme = r.entry.make(&ctx, &r.config).ok()?;
        match scheme.residency_limits(&gpu) {
            ResidencyLimits::Nvidia(sm) => Some(sm.registers_per_sm),
            ResidencyLimits::Gcn3(_) => None,
        }
    };
    assert_eq!(regs("baseline"), Some(32_768));
    assert_eq!(regs("2x-registers"), Some(65_536));
    assert_eq!(regs("2x-registers:register_multiplier=3"), Some(98_304));
}

/// Every listed scheme builds a register file from its defaults, on an NVIDIA and an AMD preset
/// (the constructors sit in [`SchemeEntry::make`], apart from the table: none may be missing),
/// and a name outside the table is refused.
#[test]
fn every_listed_scheme_builds_from_its_defaults() {
    let energy = EnergyModel::default();
    for gpu in [presets::fermi_gtx480(), presets::gcn3_cu()] {
        let geo = SmGeometry { schedulers: 2, groups: 1, warp_size: 32, max_warps: 48 };
        let ctx = SchemeContext { gpu: &gpu, geometry: geo, energy: &energy };
        for entry in crate::timing::regfile::registry::SCHEMES {
            let r = SchemeSpec::parse(entry.name).and_then(|s| s.resolve(&gpu, &energy));
            let made = r.map(|r| entry.make(&ctx, &r.config).map(|_| ()));
            assert!(matches!(made, Ok(Ok(()))), "{} on {}: {:?}", entry.name, gpu.name, made.err());
        }
    }
    let mut fake = crate::timing::regfile::registry::SCHEMES[0];
    fake.name = "no-such-scheme";
    let r = SchemeSpec::parse("baseline").and_then(|s| s.resolve(&presets::fermi_gtx480(), &energy));
    let gpu = presets::fermi_gtx480();
    let geo = SmGeometry { schedulers: 2, groups: 1, warp_size: 32, max_warps: 48 };
    let ctx = SchemeContext { gpu: &gpu, geometry: geo, energy: &energy };
    assert!(r.is_ok_and(|r| matches!(fake.make(&ctx, &r.config), Err(SchemeConfigError::UnknownScheme { .. }))));
}

/// The listing has the three schemes, each parameter with kind, default, unit and range, and
/// notes; the JSON carries the same (what `reglab schemes --json` prints).
#[test]
fn the_listing_describes_every_scheme() {
    let gpu = presets::fermi_gtx480();
    let list = describe(&gpu, &EnergyModel::default());
    let names: Vec<&str> = list.iter().map(|d| d.name).collect();
    // Scheme families append after these three (FineReg's: finereg, virtual-thread, reg-dram).
    assert_eq!(names.get(..3), Some(&["baseline", "no-bank-conflicts", "2x-registers"][..]));
    assert!(["finereg", "virtual-thread", "reg-dram"].iter().all(|n| names.contains(n)));
    assert!(["composite", "scalar-unit", "sliced", "gilani"].iter().all(|n| names.contains(n)));
    // The first three in this order; later schemes append (DeMO's among them).
    assert!(names.contains(&"demo") && names.contains(&"demo-ideal"));
    // The first three in list order (later schemes append theirs).
    let param_names = |i: usize| list.get(i).map(|d| d.params.iter().map(|p| p.name).collect::<Vec<_>>());
    assert_eq!(param_names(1), Some(Vec::from(["collector_units", "main_rf_nj"])));
    assert!(param_names(2).is_some_and(|p| p.len() == 6 && p.last() == Some(&"register_multiplier")));
    assert!(list.iter().all(|d| !d.notes.is_empty() && d.params.iter().all(|p| !p.doc.is_empty())));
    let multiplier = list.get(2).and_then(|d| d.params.last());
    assert!(multiplier.is_some_and(|p| p.kind == ParamKind::Int && p.range_text() == "1 ..= 16"));
    let json = serde_json::to_string(&list).unwrap_or_default();
    assert!(
        json.contains(r#"{"name":"collector_units","type":"int","default":16,"unit":"per SM","min":0.0,"max":1024.0,"#)
    );
    assert!(json.contains(r#""type":"enum","choices":["reg_plus_warp","reg"],"default":"reg_plus_warp""#));
    assert!(json.contains(r#""kind":"assumption""#));
}

/// Counters are summed by name over SMs, first-seen order kept.
#[test]
fn counters_add_up_by_name() {
    let counter = |name: &str, value| SchemeCounter { name: name.into(), value, unit: "reads".into() };
    let mut total = SchemeStats { counters: Vec::from([counter("rfc_hits", 3)]), ..SchemeStats::default() };
    total.add(&SchemeStats {
        counters: Vec::from([counter("rfc_hits", 4), counter("ob_full", 1)]),
        ..SchemeStats::default()
    });
    assert_eq!(total.counters, [counter("rfc_hits", 7), counter("ob_full", 1)]);
    assert_eq!(serde_json::to_string(&SchemeStats::default()).ok().map(|j| j.contains("counters")), Some(false));
}

/// The page offers a PTX diff for the schemes `transforms_code` names, without linking the passes
/// (`registry.rs`): it must say yes exactly where `transform_of` has a pass, for every scheme's
/// defaults and for the configs that choose another pass or none (`demo:issue=load` folds at the
/// load and keeps the original program; `composite`'s pair rules).
#[test]
fn transforms_code_agrees_with_the_passes() {
    use crate::timing::regfile::registry::{names, transform_of, transforms_code};
    let gpu = presets::fermi_gtx480();
    let energy = EnergyModel::default();
    let mut specs: Vec<String> = names().map(String::from).collect();
    specs.extend(
        ["demo:issue=load", "demo:spaces=all", "demo:issue=load,spaces=all", "composite:pair_rule=single_use"]
            .map(String::from),
    );
    let mut with_pass = Vec::new();
    for text in &specs {
        let resolved = SchemeSpec::parse(text).and_then(|s| s.resolve(&gpu, &energy));
        assert!(resolved.is_ok(), "{text}: {:?}", resolved.as_ref().err());
        let Ok(r) = resolved else { continue };
        assert_eq!(transforms_code(&r), transform_of(&r).is_some(), "{text}");
        if transforms_code(&r) {
            with_pass.push(text.as_str());
        }
    }
    assert_eq!(
        with_pass,
        ["demo", "composite", "gilani", "regmutex", "demo:spaces=all", "composite:pair_rule=single_use"]
    );
}
