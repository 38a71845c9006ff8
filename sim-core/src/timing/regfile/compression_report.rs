//! What the `compression` scheme's precision tuning found, as report counters (Angerd et al.,
//! `SCHEMES.md` §B): the search's functional runs and the trials it proved without one, whether
//! it stopped at its cap, the registers it visited and lowered, the output quality it reached,
//! and the format chosen for every float register it lowered. The counters are the run's, not an SM's: the simulation adds them once
//! to the summed scheme counters (`SchemeProgram::counters`), so they read the same whatever the
//! SM count. The search itself, as the scheme's config asks for it, is [`tuning`].

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::compression::CompressionConfig;
use super::SchemeCounter;
use crate::exec::float_tuning::{tune_paired, QualityMetric, RunBoth, TuningResult, TuningStep};
use crate::exec::LaunchSetup;
use crate::ir::Module;

fn counter(name: String, value: u64, unit: &str) -> SchemeCounter {
    SchemeCounter { name, value, unit: String::from(unit) }
}

/// The report counters of tuning result `t` on `module`, in a fixed order: `tuning_runs`,
/// `tuning_proved` (trials accepted without a run, [`TuningResult::proved`]), `tuning_capped`, `tuning_candidates`, `tuning_lowered`, `tuning_deviation_ppm` (the accepted
/// combination's max relative output deviation in parts per million, rounded up so a nonzero
/// loss never reads 0), `tuning_faulted` when some trial's functional run failed (rejected,
/// [`TuningResult::faulted`]), then one `float_bits:FUNCTION:REG` per lowered register (its
/// format's total bits), functions and registers in module order.
pub fn tuning_counters(module: &Module, t: &TuningResult) -> Vec<SchemeCounter> {
    let ppm = if t.deviation.is_finite() { libm::ceil(t.deviation.max(0.0) * 1e6) as u64 } else { u64::MAX };
    let mut out = alloc::vec![
        counter(String::from("tuning_runs"), u64::from(t.runs), "functional runs (reference included)"),
        counter(
            String::from("tuning_proved"),
            u64::from(t.proved),
            "trials accepted without a run (the same run proved)"
        ),
        counter(String::from("tuning_capped"), u64::from(t.capped), "flag (1: tuning_runs left trials out)"),
        counter(String::from("tuning_candidates"), u64::from(t.candidates), "f32 registers written"),
        counter(String::from("tuning_lowered"), t.formats.len() as u64, "f32 registers below 32 bits"),
        counter(String::from("tuning_deviation_ppm"), ppm, "ppm max relative output deviation"),
    ];
    if t.faulted > 0 {
        out.push(counter(String::from("tuning_faulted"), u64::from(t.faulted), "trials rejected: their run failed"));
    }
    for (h, f) in module.functions.iter() {
        let Some(body) = &f.body else { continue };
        for (r, reg) in body.regs.iter() {
            if let Some(&bits) = t.formats.get(&(h.raw(), r.raw())) {
                out.push(counter(format!("float_bits:{}:{}", f.name, reg.name), u64::from(bits), "bits"));
            }
        }
    }
    out
}

/// One line of text for the tuning counters in `counters` (a report's scheme counters), as the
/// CLI and the app print it; `None` when the run did no precision tuning.
pub fn tuning_summary(counters: &[SchemeCounter]) -> Option<String> {
    let get = |n: &str| counters.iter().find(|c| c.name == n).map(|c| c.value);
    let runs = get("tuning_runs")?;
    let capped = if get("tuning_capped") == Some(1) { " (the run cap left trials out)" } else { "" };
    let ppm = get("tuning_deviation_ppm").unwrap_or(0);
    let proved = match get("tuning_proved") {
        Some(n) if n > 0 => format!(" and {n} trials proved without one"),
        _ => String::new(),
    };
    let mut line = format!(
        "precision tuning: {runs} functional runs{proved}{capped}, {} of {} f32 registers lowered, max output deviation {}.{:04} %",
        get("tuning_lowered").unwrap_or(0),
        get("tuning_candidates").unwrap_or(0),
        ppm / 10_000,
        ppm % 10_000
    );
    let formats: Vec<String> = counters
        .iter()
        .filter_map(|c| {
            c.name.strip_prefix("float_bits:").map(|n| format!("{} {}", n.rsplit(':').next().unwrap_or(n), c.value))
        })
        .collect();
    if let Some(n) = get("tuning_faulted") {
        line.push_str(&format!(
            "; {n} trials rejected (their run failed: a narrower value moved an address or a bound)"
        ));
    }
    if !formats.is_empty() {
        line.push_str(&format!("; bits: {}", formats.join(", ")));
    }
    Some(line)
}

/// The float formats precision tuning chooses for `module` under the scheme's `config` on
/// `setup` (empty: tuning off, or no launch to tune on); the message says why the search failed.
pub fn tuned_floats(
    config: &crate::timing::regfile::SchemeConfig,
    module: &Module,
    setup: Option<&LaunchSetup>,
) -> Result<BTreeMap<(u32, u32), u8>, String> {
    Ok(tuning(config, module, setup)?.map(|r| r.formats).unwrap_or_default())
}

/// The precision-tuning search the scheme's `config` asks for on `setup` (`None`: tuning off
/// or no launch).
pub fn tuning(
    config: &crate::timing::regfile::SchemeConfig,
    module: &Module,
    setup: Option<&LaunchSetup>,
) -> Result<Option<TuningResult>, String> {
    tuning_remembered(config, module, setup, &mut |_| {}, &mut TuningMemo::default(), None)
}

/// What a precision search depends on besides the module and the launch setup: its quality
/// metric (with the threshold) and its cap on functional runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchKey {
    /// How the outputs are judged.
    pub metric: QualityMetric,
    /// The cap on functional runs (`tuning_runs`).
    pub cap: u32,
}

/// The search the scheme's `config` asks for (`None`: tuning off); the message says why the
/// config is not valid.
pub fn search_key(config: &crate::timing::regfile::SchemeConfig) -> Result<Option<SearchKey>, String> {
    let c = CompressionConfig::from_config(config).map_err(|e| alloc::format!("{e}"))?;
    if !c.float_tuning {
        return Ok(None);
    }
    let metric = if c.quality_metric == "exact" {
        QualityMetric::Exact
    } else {
        QualityMetric::MaxRelative(c.quality_loss / 100.0)
    };
    Ok(Some(SearchKey { metric, cap: c.tuning_runs }))
}

/// The search scheme `spec` asks for on `gpu` (`None`: not `compression`, tuning off, or a spec
/// that does not resolve, which the simulation reports).
pub fn search_of(
    spec: &crate::timing::regfile::SchemeSpec,
    gpu: &crate::gpu::GpuConfig,
    energy: &crate::timing::regfile::energy::EnergyModel,
) -> Option<SearchKey> {
    let r = spec.resolve(gpu, energy).ok().filter(|r| r.entry.name == "compression")?;
    search_key(&r.config).ok().flatten()
}

/// The most searches a memo keeps (the oldest make room): a sweep of `quality_loss` adds one per
/// point, and a memo the page keeps across runs stays small.
pub const MEMO_SEARCHES: usize = 64;

/// Precision-tuning searches already made on one module and launch setup, by what a search
/// depends on besides them ([`SearchKey`]): a scheme variant that asks for the same search
/// (`compression` with another `slice_bits`, a sweep point, quick mode's second try, the page's
/// next run of the same kernel and launch) takes its result instead of searching again. The
/// search is deterministic, so the result is the one a new search would find. Whoever keeps a
/// memo keeps it for one module and setup only. It travels as JSON between the page and its
/// workers ([`WireSearch`]): a list that does not read back is an error of the message that
/// carries it, and a search whose formats are not [`crate::exec::float_formats::FORMATS`]' is
/// dropped (searched again).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(from = "Vec<WireSearch>", into = "Vec<WireSearch>")]
pub struct TuningMemo {
    done: Vec<(SearchKey, TuningResult)>,
}

impl TuningMemo {
    /// The result of the search `key` names, if made.
    pub fn get(&self, key: &SearchKey) -> Option<&TuningResult> {
        self.done.iter().find(|(k, _)| k == key).map(|(_, r)| r)
    }

    /// Keeps `result` as search `key`'s (replacing an earlier one; the oldest goes beyond
    /// [`MEMO_SEARCHES`]).
    pub fn insert(&mut self, key: SearchKey, result: TuningResult) {
        self.done.retain(|(k, _)| *k != key);
        if self.done.len() >= MEMO_SEARCHES {
            self.done.remove(0);
        }
        self.done.push((key, result));
    }

    /// Adds the searches of `other` (on the same module and setup) this memo lacks.
    pub fn merge(&mut self, other: &TuningMemo) {
        for (k, r) in &other.done {
            if self.get(k).is_none() {
                self.insert(*k, r.clone());
            }
        }
    }

    /// Searches kept.
    pub fn len(&self) -> usize {
        self.done.len()
    }

    /// No search kept.
    pub fn is_empty(&self) -> bool {
        self.done.is_empty()
    }
}

/// One search of a [`TuningMemo`] as JSON: floats by their bits, so the result reads back
/// exactly (also a NaN or infinite deviation), formats as `[function, register, bits]`.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct WireSearch {
    /// `true`: [`QualityMetric::Exact`]; else max relative deviation within `threshold_bits`.
    exact: bool,
    /// The max relative threshold's `f64` bits (0 for exact).
    threshold_bits: u64,
    /// The cap on functional runs.
    cap: u32,
    /// Per lowered register: function and register raw handles, format bits.
    formats: Vec<(u32, u32, u8)>,
    runs: u32,
    capped: bool,
    /// The accepted deviation's `f64` bits.
    deviation_bits: u64,
    faulted: u32,
    candidates: u32,
    proved: u32,
}

impl From<TuningMemo> for Vec<WireSearch> {
    fn from(m: TuningMemo) -> Self {
        m.done
            .into_iter()
            .map(|(k, r)| {
                let (exact, threshold) = match k.metric {
                    QualityMetric::Exact => (true, 0.0),
                    QualityMetric::MaxRelative(t) => (false, t),
                };
                WireSearch {
                    exact,
                    threshold_bits: threshold.to_bits(),
                    cap: k.cap,
                    formats: r.formats.iter().map(|(&(f, reg), &b)| (f, reg, b)).collect(),
                    runs: r.runs,
                    capped: r.capped,
                    deviation_bits: r.deviation.to_bits(),
                    faulted: r.faulted,
                    candidates: r.candidates,
                    proved: r.proved,
                }
            })
            .collect()
    }
}

impl From<Vec<WireSearch>> for TuningMemo {
    fn from(wire: Vec<WireSearch>) -> Self {
        let narrow = |b: u8| b != 32 && crate::exec::float_formats::FORMATS.iter().any(|f| f.bits == b);
        let mut memo = TuningMemo::default();
        for w in wire.into_iter().filter(|w| w.formats.iter().all(|&(_, _, b)| narrow(b))) {
            let metric = if w.exact {
                QualityMetric::Exact
            } else {
                QualityMetric::MaxRelative(f64::from_bits(w.threshold_bits))
            };
            let result = TuningResult {
                formats: w.formats.iter().map(|&(f, r, b)| ((f, r), b)).collect(),
                runs: w.runs,
                capped: w.capped,
                deviation: f64::from_bits(w.deviation_bits),
                faulted: w.faulted,
                candidates: w.candidates,
                proved: w.proved,
            };
            memo.insert(SearchKey { metric, cap: w.cap }, result);
        }
        memo
    }
}

/// As [`tuning`], telling `progress` where the search stands after every functional run, taking
/// a search `memo` already holds (no progress is told then) and adding a new one to it; a new
/// search runs two trials at a time through `pair` where it is given
/// ([`crate::exec::float_tuning::tune_paired`]: the same result, sooner).
pub fn tuning_remembered(
    config: &crate::timing::regfile::SchemeConfig,
    module: &Module,
    setup: Option<&LaunchSetup>,
    progress: &mut dyn FnMut(TuningStep),
    memo: &mut TuningMemo,
    pair: Option<&dyn RunBoth>,
) -> Result<Option<TuningResult>, String> {
    let Some(key) = search_key(config)? else { return Ok(None) };
    let Some(setup) = setup else { return Ok(None) };
    if let Some(r) = memo.get(&key) {
        return Ok(Some(r.clone()));
    }
    let r = tune_paired(module, setup, key.metric, key.cap, progress, pair)
        .map_err(|e| alloc::format!("precision tuning: {e}"))?;
    memo.insert(key, r.clone());
    Ok(Some(r))
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::collections::BTreeMap;

    const PTX: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.visible .entry k(.param .u64 p)
{
    .reg .f32 %f<4>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [p];
    ld.global.f32 %f1, [%rd1];
    add.f32 %f2, %f1, %f1;
    mul.f32 %f3, %f2, %f1;
    st.global.f32 [%rd1], %f3;
    ret;
}
"#;

    #[test]
    fn counters_name_the_lowered_registers_and_the_search() {
        let module = crate::ptx::compile(PTX);
        assert!(module.is_ok(), "{module:?}");
        let Ok(module) = module else { return };
        let first = module.functions.iter().next();
        let Some((h, body)) = first.and_then(|(h, f)| f.body.as_ref().map(|b| (h, b))) else {
            return assert!(first.is_some(), "no kernel body");
        };
        let reg = |name: &str| body.regs.iter().find(|(_, r)| r.name == name).map(|(r, _)| r.raw());
        let (f2, f3) = (reg("%f2"), reg("%f3"));
        assert!(f2.is_some() && f3.is_some(), "registers %f2, %f3");
        let (Some(f2), Some(f3)) = (f2, f3) else { return };
        let mut formats = BTreeMap::new();
        formats.insert((h.raw(), f3), 16u8);
        formats.insert((h.raw(), f2), 24u8);
        // 12 runs of a cap of 12 and 5 trials proved: capped; 3 written f32 registers, 2 lowered; deviation
        // 0.0123 = 12 300 ppm.
        let t =
            TuningResult { formats, runs: 12, capped: true, deviation: 0.0123, candidates: 3, faulted: 0, proved: 5 };
        let got: Vec<(String, u64)> = tuning_counters(&module, &t).into_iter().map(|c| (c.name, c.value)).collect();
        let want: Vec<(String, u64)> = [
            ("tuning_runs", 12),
            ("tuning_proved", 5),
            ("tuning_capped", 1),
            ("tuning_candidates", 3),
            ("tuning_lowered", 2),
            ("tuning_deviation_ppm", 12_300),
            // Module order: %f2 is declared before %f3.
            ("float_bits:k:%f2", 24),
            ("float_bits:k:%f3", 16),
        ]
        .iter()
        .map(|&(n, v)| (String::from(n), v))
        .collect();
        assert_eq!(got, want);
        let line = tuning_summary(&tuning_counters(&module, &t));
        // 12 300 ppm = 1.2300 %.
        let want = "precision tuning: 12 functional runs and 5 trials proved without one (the run cap left trials out), 2 of 3 f32 registers lowered, \
                    max output deviation 1.2300 %; bits: %f2 24, %f3 16";
        assert_eq!(line.as_deref(), Some(want));
        assert_eq!(tuning_summary(&[]), None);
        // Two trials that faulted: one more counter, one more clause.
        let t = TuningResult { faulted: 2, ..t };
        let c = tuning_counters(&module, &t);
        assert_eq!(c.get(6).map(|c| (c.name.as_str(), c.value)), Some(("tuning_faulted", 2)));
        let line = tuning_summary(&c).unwrap_or_default();
        assert!(line.contains("; 2 trials rejected (their run failed"), "{line}");
    }

    #[test]
    fn a_tiny_loss_never_reads_zero() {
        let module = crate::ptx::compile(PTX);
        assert!(module.is_ok(), "{module:?}");
        let Ok(module) = module else { return };
        // 1e-9 relative deviation rounds up to 1 ppm; a perfect search reads 0.
        let t = TuningResult { deviation: 1e-9, runs: 1, ..TuningResult::default() };
        let c = tuning_counters(&module, &t);
        assert_eq!(c.iter().find(|c| c.name == "tuning_deviation_ppm").map(|c| c.value), Some(1));
        let t = TuningResult { runs: 1, ..TuningResult::default() };
        let c = tuning_counters(&module, &t);
        assert_eq!(c.iter().find(|c| c.name == "tuning_deviation_ppm").map(|c| c.value), Some(0));
        assert_eq!(c.len(), 6, "nothing lowered: no float_bits counters");
    }

    #[test]
    fn a_memo_reads_back_from_json_exactly_and_drops_what_is_not_a_format() {
        let mut formats = BTreeMap::new();
        formats.insert((0, 3), 16u8);
        formats.insert((1, 7), 24u8);
        // A deviation JSON numbers could not carry (NaN) and one they would round (0.1 + 0.2).
        let odd =
            TuningResult { formats, runs: 9, capped: true, deviation: f64::NAN, candidates: 4, faulted: 1, proved: 2 };
        let plain = TuningResult { runs: 1, deviation: 0.1 + 0.2, ..TuningResult::default() };
        let exact = SearchKey { metric: QualityMetric::Exact, cap: 64 };
        let high = SearchKey { metric: QualityMetric::MaxRelative(0.1), cap: 12 };
        let mut memo = TuningMemo::default();
        memo.insert(exact, odd.clone());
        memo.insert(high, plain.clone());
        let text = serde_json::to_string(&memo).unwrap_or_default();
        let back: Result<TuningMemo, _> = serde_json::from_str(&text);
        let Ok(back) = back else { return assert!(back.is_ok(), "{text}: {:?}", back.err()) };
        assert_eq!(back.len(), 2);
        let got = back.get(&exact).cloned().unwrap_or_default();
        assert_eq!(
            (got.formats, got.runs, got.capped, got.candidates, got.faulted, got.proved),
            (odd.formats, 9, true, 4, 1, 2)
        );
        assert!(got.deviation.is_nan());
        assert_eq!(back.get(&high).map(|r| r.deviation.to_bits()), Some((0.1f64 + 0.2).to_bits()));
        // Another threshold or cap is another search.
        assert!(back.get(&SearchKey { metric: QualityMetric::MaxRelative(0.1), cap: 13 }).is_none());
        assert!(back.get(&SearchKey { metric: QualityMetric::MaxRelative(0.2), cap: 12 }).is_none());
        // 13 bits is no format (nor is 32 a lowering): that search is dropped, the other kept.
        let bad = text.replacen("[0,3,16]", "[0,3,13]", 1);
        assert_ne!(bad, text);
        let back: TuningMemo = serde_json::from_str(&bad).unwrap_or_default();
        assert_eq!((back.len(), back.get(&exact).is_none(), back.get(&high).is_some()), (1, true, true));
        // Not a list of searches: an error of the message, not a panic.
        assert!(serde_json::from_str::<TuningMemo>("{\"exact\":true}").is_err());
    }

    #[test]
    fn a_memo_keeps_the_newest_searches_and_merges_what_it_lacks() {
        let key = |i: u32| SearchKey { metric: QualityMetric::Exact, cap: i };
        let result = |runs: u32| TuningResult { runs, ..TuningResult::default() };
        let mut memo = TuningMemo::default();
        for i in 0..MEMO_SEARCHES as u32 + 3 {
            memo.insert(key(i), result(i));
        }
        // 67 searches into room for 64: caps 0, 1, 2 made room.
        assert_eq!(memo.len(), MEMO_SEARCHES);
        assert!(memo.get(&key(2)).is_none());
        assert_eq!(memo.get(&key(3)).map(|r| r.runs), Some(3));
        let mut small = TuningMemo::default();
        small.insert(key(5), result(99));
        small.insert(key(1), result(1));
        // The memo's own result for cap 5 stays; cap 1 is added (cap 3, the oldest, makes room).
        memo.merge(&small);
        assert_eq!((memo.get(&key(5)).map(|r| r.runs), memo.get(&key(1)).map(|r| r.runs)), (Some(5), Some(1)));
        assert!(memo.get(&key(3)).is_none());
        assert_eq!(memo.len(), MEMO_SEARCHES);
    }
}
