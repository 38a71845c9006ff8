//! Quick mode ([`crate::timing::TimingOptions::quick_waves`]): the executor runs a systematic
//! sample of each launch's CTAs — one wave of consecutive CTAs in every k waves, about `waves`
//! waves in all, each wave `SMs × CTAs per SM` ([`ctas_per_sm`]; `ExecSource::sample_waves`;
//! consecutive CTAs stay together as they share cache lines) — and every run times those alike,
//! noting the cycle and the warp-instructions issued when each wave's last CTA completes
//! ([`WaveLog`]); from those, the whole sequence's cycles and IPC ([`CtaSample`], [`estimate`]).
//! Sampling CTAs follows the sampled GPU simulators (kernel-, CTA- and wave-level sampling); the
//! stride and the extrapolation rule are our own, and the error against full runs is measured in
//! `docs/fidelity/quick.md`.
//!
//! ```text
//! waves:  |ramp-up ······|steady ······|drain ···|      → CTAs not timed run at the steady rate
//! ends:   (3 440, 60 000) (6 880, 120 000) (9 900, 180 000)
//! ```

use alloc::vec::Vec;

use crate::gpu::GpuConfig;
use crate::occupancy::{self, OccupancyInput};
use crate::timing::program::Program;
use crate::timing::report::{CtaSample, Report};
use crate::timing::stream::trace::LaunchShape;

/// CTAs per SM of one wave: what `gpu`'s limits allow a CTA of `shape` (its threads, static and
/// dynamic shared memory), registers aside — at least what any scheme keeping to the slot limit
/// admits, and the same whichever schemes share a simulation (the app's workers each run some).
pub fn ctas_per_sm(program: &Program, gpu: &GpuConfig, shape: LaunchShape) -> u64 {
    let smem = program.kernels.get(shape.kernel as usize).map_or(0, |k| k.static_shared_bytes);
    let input = OccupancyInput::new(shape.threads, 1)
        .with_static_shared_memory(smem)
        .with_dynamic_shared_memory(u64::from(shape.dynamic_smem));
    occupancy::compute(&gpu.limits, &input).map_or(1, |o| u64::from(o.blocks_per_sm.max(1)))
}

/// Quick mode trusts a sample whose spread ([`CtaSample::spread`]) is under this: the line
/// `docs/fidelity/quick.md` draws (its runs under it had a mean IPC error of 1.7%, those above
/// it 23%). A run whose sample spreads more is timed again with more waves ([`refine`]).
pub const SETTLED_SPREAD: f64 = 0.10;

/// Quick mode doubles a run's waves at most this many times (3 → 6 → 12 waves by default): at
/// most 7 times the first sample's work, still a fraction of a large grid, while a sample
/// that never settles (a queue still filling at the grid's end) is reported as it is, flagged.
pub const MAX_REFINEMENTS: u32 = 2;

/// Quick mode's refinement, one place for the command line and the app: `time(waves, which)`
/// times the schemes `which` (indices among `count`) in quick mode with `waves` waves and gives
/// their reports in that order. First every scheme with `waves`; then, while some scheme's
/// sample spread [`SETTLED_SPREAD`] or more and fewer than [`MAX_REFINEMENTS`] refinements were
/// made, those schemes again with twice the waves, their reports replacing the earlier ones. A
/// scheme's sample, hence its refinement, depends only on its own run, so the reports do not
/// depend on which schemes are timed together. A grid too small for the larger sample runs in
/// full (its report has no sample: exact). A refined sample counts its [`CtaSample::refinements`].
/// Only the first try's error is returned: a refinement that fails (a larger sample exceeding the
/// launch's instruction budget) leaves the reports it would have replaced.
///
/// ```text
/// bpnn_layerforward, 4 096 CTAs, fermi-gtx480 (docs/fidelity/quick.md):
/// 3 waves: baseline spread 0.9%, gilani 11.5%, reg-dram 79.6%
///   → gilani and reg-dram with 6 waves: gilani 1.3% (kept, IPC error +1.8% → +0.9%)
///   → reg-dram with 12: 63.9% (the last try; IPC error −81% → −15.5%, still flagged)
/// ```
pub fn refine<E>(
    count: usize,
    waves: u32,
    mut time: impl FnMut(u32, &[usize]) -> Result<Vec<Report>, E>,
) -> Result<Vec<Report>, E> {
    let all: Vec<usize> = (0..count).collect();
    let mut reports = time(waves, &all)?;
    let mut waves = waves.max(1);
    for refinement in 1..=MAX_REFINEMENTS {
        let redo: Vec<usize> = reports
            .iter()
            .enumerate()
            .filter(|(_, r)| r.sample.as_ref().is_some_and(|s| s.spread >= SETTLED_SPREAD || s.spread.is_nan()))
            .map(|(i, _)| i)
            .collect();
        if redo.is_empty() || reports.len() != count {
            break;
        }
        waves = waves.saturating_mul(2);
        // A larger sample runs more CTAs, which may exceed the launch's instruction budget (or
        // reach a fault in a CTA the first sample left out): the reports so far stand.
        let Ok(again) = time(waves, &redo) else { break };
        if again.len() != redo.len() {
            break;
        }
        for (i, mut r) in redo.into_iter().zip(again) {
            if let Some(s) = &mut r.sample {
                s.refinements = refinement;
            }
            if let Some(slot) = reports.get_mut(i) {
                *slot = r;
            }
        }
    }
    Ok(reports)
}

/// The waves of a quick run so far.
#[derive(Clone, Debug, Default)]
pub struct WaveLog {
    /// CTAs per wave.
    pub wave: u64,
    /// The sample's stride: one wave timed in every this many.
    pub every: u64,
    /// CTAs of the whole sequence.
    pub total: u64,
    /// `(cycle, warp-instructions issued)` when each wave's last CTA completed.
    pub ends: Vec<(u64, u64)>,
}

impl WaveLog {
    /// Waves of `wave` CTAs, one timed in every `every`, of a `total`-CTA sequence.
    pub fn new(wave: u64, every: u64, total: u64) -> Self {
        WaveLog { wave: wave.max(1), every: every.max(1), total, ends: Vec::new() }
    }

    /// The estimate after `completed` CTAs timed in `cycles` and `insts` warp-instructions,
    /// `work` being each CTA's warp-instructions in dispatch order.
    pub fn estimate(&self, completed: u64, cycles: u64, insts: u64, work: &[u64]) -> CtaSample {
        let q = estimate(&self.ends, completed, self.total, cycles, insts);
        CtaSample { every: self.every, spread: q.spread.max(work_spread(work, self.wave)), ..q }
    }

    /// With `completed` CTAs done, a wave has ended since the last record.
    pub fn due(&self, completed: u64) -> bool {
        (self.ends.len() as u64 + 1).saturating_mul(self.wave) <= completed
    }

    /// `completed` CTAs are done at `cycle` with `insts` warp-instructions issued: every wave
    /// that ended since the last record ends here.
    pub fn record(&mut self, completed: u64, cycle: u64, insts: u64) {
        while self.due(completed) {
            self.ends.push((cycle, insts));
        }
    }
}

/// How unevenly the work is spread over the sample: the largest relative difference of a full
/// wave's warp-instructions (`wave` consecutive CTAs of `work`) from the full waves' mean; 0 with
/// fewer than two full waves or a CTA whose total is unknown (`u64::MAX`).
pub fn work_spread(work: &[u64], wave: u64) -> f64 {
    let chunks: Vec<u64> = work
        .chunks_exact(usize::try_from(wave.max(1)).unwrap_or(usize::MAX))
        .map(|c| if c.contains(&u64::MAX) { u64::MAX } else { c.iter().sum() })
        .collect();
    if chunks.len() < 2 || chunks.contains(&u64::MAX) {
        return 0.0;
    }
    let mean = chunks.iter().sum::<u64>() as f64 / chunks.len() as f64;
    chunks.iter().map(|&c| if mean > 0.0 { (c as f64 - mean).abs() / mean } else { 0.0 }).fold(0.0, f64::max)
}

/// The sample a quick run timed: `completed` CTAs of `total` in `cycles` and `insts`
/// warp-instructions, with `(cycle, warp-instructions)` at each wave's end. The CTAs not timed
/// are assumed to issue the sample's average warp-instructions per CTA; the whole sequence ramps
/// up and drains once, as the sample does, so they are added at the steady rate (warp-IPC) of
/// the waves between the first (ramp-up) and the last (the chip drains as no CTA follows); with
/// fewer than three waves, at the sample's average rate.
pub fn estimate(ends: &[(u64, u64)], completed: u64, total: u64, cycles: u64, insts: u64) -> CtaSample {
    let mut wave_ipc = Vec::with_capacity(ends.len());
    let mut prev = (0, 0);
    for &(t, n) in ends {
        let dt = t.saturating_sub(prev.0);
        wave_ipc.push(if dt == 0 { 0.0 } else { n.saturating_sub(prev.1) as f64 / dt as f64 });
        prev = (t, n);
    }
    // The steady window: from the first wave's end to the second-to-last's.
    let steady = match (ends.first(), ends.len().checked_sub(2).and_then(|i| ends.get(i))) {
        (Some(a), Some(b)) if ends.len() >= 3 && b.0 > a.0 => Some((b.0 - a.0, b.1 - a.1)),
        _ => None,
    };
    let (dt, dn) = steady.unwrap_or((cycles, insts));
    let rate = if dt == 0 { 0.0 } else { dn as f64 / dt as f64 };
    let estimated_insts = insts as f64 * total as f64 / completed.max(1) as f64;
    let more = estimated_insts - insts as f64;
    let estimated_cycles = libm::round(cycles as f64 + if rate > 0.0 { more / rate } else { 0.0 }) as u64;
    let estimated_ipc = if estimated_cycles == 0 { 0.0 } else { estimated_insts / estimated_cycles as f64 };
    // Steadiness: the steady waves against each other, or the only one against the first.
    let inner: Vec<f64> = wave_ipc.iter().copied().skip(1).take(ends.len().saturating_sub(2)).collect();
    let rate_spread = match inner.as_slice() {
        [] => 1.0,
        [one] => wave_ipc.first().map_or(1.0, |&w0| if *one > 0.0 { (one - w0).abs() / one } else { 1.0 }),
        many => {
            let mean = many.iter().sum::<f64>() / many.len() as f64;
            many.iter().map(|w| if mean > 0.0 { (w - mean).abs() / mean } else { 1.0 }).fold(0.0, f64::max)
        }
    };
    let spread = rate_spread;
    CtaSample {
        simulated_ctas: completed,
        every: 1,
        total_ctas: total,
        estimated_cycles,
        estimated_ipc,
        wave_ipc,
        spread,
        refinements: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::estimate;
    use alloc::vec;

    /// Hand-worked: 3 waves of 60 CTAs, 1 000 warp-instructions each, of a 600-CTA sequence.
    /// Wave ends at cycles 100, 150, 230 with 60 000, 120 000, 180 000 instructions: wave IPCs
    /// 600, 1 200, 750. Steady window = wave 2: 60 000 instructions in 50 cycles, 1 200 per
    /// cycle. Estimated instructions 180 000 × 600 / 180 = 600 000; the 420 000 not timed take
    /// 420 000 / 1 200 = 350 cycles: 230 + 350 = 580 cycles, IPC 600 000 / 580 = 1 034.48…
    /// Spread (one inner wave): |1 200 − 600| / 1 200 = 0.5; the waves' work is equal (60 000
    /// each), so that is the spread.
    #[test]
    fn the_steady_wave_sets_the_rate_of_the_ctas_not_timed() {
        let q = estimate(&[(100, 60_000), (150, 120_000), (230, 180_000)], 180, 600, 230, 180_000);
        assert_eq!((q.simulated_ctas, q.total_ctas, q.estimated_cycles), (180, 600, 580));
        assert_eq!(q.wave_ipc, vec![600.0, 1200.0, 750.0]);
        assert!((q.estimated_ipc - 600_000.0 / 580.0).abs() < 1e-9, "{}", q.estimated_ipc);
        assert_eq!(q.spread, 0.5);
    }

    /// Four waves: the steady window is waves 2 and 3 (ends 150 → 250: 120 000 instructions in
    /// 100 cycles, 1 200 per cycle); spread among them: IPCs 1 200 and 1 200 → 0. Two waves:
    /// no steady window, the sample's own rate (120 000 in 150 cycles = 800 per cycle): 120
    /// CTAs of 240 → 120 000 more instructions in 150 more cycles = 300; spread 1 (unknown).
    #[test]
    fn more_waves_widen_the_window_and_two_fall_back_to_the_average() {
        let ends = [(100, 60_000), (150, 120_000), (200, 180_000), (250, 240_000)];
        let q = estimate(&ends, 240, 480, 250, 240_000);
        // 240 000 more at 1 200 per cycle: 200 cycles.
        assert_eq!((q.estimated_cycles, q.spread), (450, 0.0));
        let q = estimate(&ends[..2], 120, 240, 150, 120_000);
        assert_eq!((q.estimated_cycles, q.spread), (300, 1.0));
    }

    /// Work: 6 CTAs in waves of 2 with 100, 100 | 50, 50 | 30, 30 warp-instructions: waves
    /// 200, 100, 60, mean 120, the first 80 / 120 = 2/3 above it. A CTA of unknown total (it came
    /// in pieces), or a single full wave, gives 0 (nothing to compare).
    #[test]
    fn uneven_work_across_waves_shows_in_the_spread() {
        assert!((super::work_spread(&[100, 100, 50, 50, 30, 30, 7], 2) - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(super::work_spread(&[100, u64::MAX, 50, 50], 2), 0.0);
        assert_eq!(super::work_spread(&[100, 100, 50], 2), 0.0);
    }
}
