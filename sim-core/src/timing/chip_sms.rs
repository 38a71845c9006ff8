//! The SMs of one chip run, behind one trait object ([`SmArray`]) so that the SM model itself is
//! generic over the register-file scheme: [`build`] instantiates `Sm<R>` for the registered
//! schemes it knows by type (their calls in the inner loop are static and inlined) and
//! `Sm<dyn RegisterFileScheme>` for any other. The chip makes one dynamic call per step — a
//! cycle or a window of cycles of every SM — instead of several per warp-instruction.
//!
//! ```text
//! registry make → Box<dyn RegisterFileScheme> ─ is BankedRegisterFile? → Vec<Sm<BankedRegisterFile>>
//!                                              └ otherwise            → Vec<Sm<dyn RegisterFileScheme>>
//! ```

use alloc::boxed::Box;
use alloc::format;
use alloc::rc::Rc;
use alloc::vec;
use alloc::vec::Vec;

use super::cta_dispatch::{Dispatcher, Waiting};
use super::memory::l1::L1;
use super::program::Program;
use super::program_map::SchemeProgram;
use super::regfile::baseline::BankedRegisterFile;
use super::regfile::demo_marks::SingleUseMarks;
use super::regfile::no_bank_conflicts::ConflictFreeRegisterFile;
use super::regfile::rfc_ob::RfcObRegisterFile;
use super::regfile::{RegisterFileScheme, SchemeAny, SchemeStats, SmGeometry};
use super::sm::{ChipContext, Sm, SmStats};
use super::stream::feed::Feed;
use super::TimingError;
use crate::gpu::GpuConfig;
use crate::ir::Module;

/// What the chip does with its SMs, whatever their scheme's type.
pub(super) trait SmArray {
    /// Number of SMs.
    fn len(&self) -> usize;
    /// Gives every SM's scheme its compile-time tables.
    fn prepare(&mut self, module: &Module, program: &Program);
    /// Turns on every SM's single-use attribution.
    fn attribute_single_use(&mut self, marks: &Rc<SingleUseMarks>);
    /// Some SM has CTAs that finished in its last simulated cycle.
    fn has_finished_ctas(&self) -> bool;
    /// The least of the SMs' [`Sm::finish_bound`]s from `now`.
    fn finish_bound(&mut self, now: u64) -> u64;
    /// The earliest cycle an SM must be simulated at.
    fn next_event(&self) -> u64;
    /// Simulates cycle `t` (`end == t`) or the window `t..=end`, each SM that `ahead` lets on
    /// also past `end`; returns the last cycle any SM simulated.
    fn advance(
        &mut self,
        t: u64,
        end: u64,
        ahead: RunAhead,
        cx: &mut ChipContext<'_>,
    ) -> Result<Option<u64>, TimingError>;
    /// Takes the CTAs finished since the last call: how many.
    fn take_finished(&mut self) -> usize;
    /// Dispatches CTAs at the end of cycle `now` ([`Dispatcher::dispatch`]).
    #[allow(clippy::too_many_arguments, reason = "the dispatcher's own arguments, passed through")]
    fn dispatch(
        &mut self,
        dispatcher: &mut Dispatcher,
        now: u64,
        feed: &mut Feed,
        programs: (&Program, &Program),
        gpu: &GpuConfig,
        scheme: &dyn RegisterFileScheme,
        regs_override: Option<u32>,
    ) -> Result<(), TimingError>;
    /// Charges every SM's cycles up to `end`.
    fn account_until(&mut self, end: u64);
    /// Resident CTAs, active CTAs and resident warps over the SMs.
    fn occupancy(&self) -> (u32, u32, u32);
    /// Calls `f` with each SM's counts, its scheme's counts and its L1.
    fn for_each_stats(&self, f: &mut dyn FnMut(&SmStats, SchemeStats, &L1));
    /// Makes every SM take its pieces as run number `run` of those sharing the feed.
    fn set_stream_run(&mut self, run: usize);
    /// Instructions the windows of CTAs that arrived in pieces hold, over the SMs.
    fn window_instructions(&self) -> u64;
}

/// How far past a window's end an SM may run: up to the cycle before the dispatcher could give
/// it a CTA or one of its CTAs could finish (the dispatcher acts then), at most to `cap`.
#[derive(Clone, Copy, Debug)]
pub(super) struct RunAhead {
    /// What the dispatcher waits for (`None`: no SM runs past the window's end).
    pub waiting: Option<Waiting>,
    /// The last cycle any SM may simulate (before an occupancy sample, the budget's or the
    /// step's end).
    pub cap: u64,
}

/// The SMs of a run, all on scheme type `R`.
pub(super) struct Sms<R: RegisterFileScheme + ?Sized> {
    sms: Vec<Sm<R>>,
    /// Per SM, the cycle it stopped in, before that cycle's dispatch, because the dispatch may
    /// reach the L2 ([`simulate_window`]'s; kept between windows for an SM that ran past one).
    stopped: Vec<Option<u64>>,
    /// Per SM, the last cycle it may simulate in the current window ([`horizon`]).
    horizons: Vec<u64>,
}

impl<R: RegisterFileScheme + ?Sized> Sms<R> {
    fn new(sms: Vec<Sm<R>>) -> Self {
        Sms { stopped: vec![None; sms.len()], horizons: vec![0; sms.len()], sms }
    }

    fn iter(&self) -> core::slice::Iter<'_, Sm<R>> {
        self.sms.iter()
    }

    fn iter_mut(&mut self) -> core::slice::IterMut<'_, Sm<R>> {
        self.sms.iter_mut()
    }
}

impl<R: RegisterFileScheme + ?Sized> SmArray for Sms<R> {
    fn len(&self) -> usize {
        self.sms.len()
    }

    fn set_stream_run(&mut self, run: usize) {
        for sm in self.iter_mut() {
            sm.stream_run = run;
        }
    }

    fn window_instructions(&self) -> u64 {
        self.iter().map(Sm::window_instructions).sum()
    }

    fn prepare(&mut self, module: &Module, program: &Program) {
        for sm in self.iter_mut() {
            sm.scheme_mut().prepare(module, program);
        }
    }

    fn attribute_single_use(&mut self, marks: &Rc<SingleUseMarks>) {
        for sm in self.iter_mut() {
            sm.scheme_mut().attribute_single_use(marks);
        }
    }

    fn has_finished_ctas(&self) -> bool {
        self.iter().any(Sm::has_finished_ctas)
    }

    fn finish_bound(&mut self, now: u64) -> u64 {
        self.iter_mut().map(|sm| sm.finish_bound(sm.resume_at(now))).min().unwrap_or(u64::MAX)
    }

    fn next_event(&self) -> u64 {
        self.iter().map(Sm::next_event).min().unwrap_or(u64::MAX)
    }

    fn advance(
        &mut self,
        t: u64,
        end: u64,
        ahead: RunAhead,
        cx: &mut ChipContext<'_>,
    ) -> Result<Option<u64>, TimingError> {
        if end == t {
            return Ok(simulate_cycle(&mut self.sms, &mut self.stopped, t, cx));
        }
        // The next launch's CTAs go out when the last CTA of this one finishes: no earlier than
        // the latest of the SMs' finish bounds.
        let lift = if ahead.waiting == Some(Waiting::Launch) {
            let busy = self.sms.iter_mut().filter(|sm| sm.resident_ctas() > 0);
            busy.map(|sm| sm.finish_bound(sm.resume_at(t))).max().unwrap_or(t)
        } else {
            u64::MAX
        };
        self.horizons.clear();
        for sm in self.sms.iter_mut() {
            self.horizons.push(horizon(sm, t, end, ahead, lift));
        }
        simulate_window(&mut self.sms, &mut self.stopped, &self.horizons, end, cx)
    }

    fn take_finished(&mut self) -> usize {
        self.iter_mut().map(Sm::take_finished).sum()
    }

    fn dispatch(
        &mut self,
        dispatcher: &mut Dispatcher,
        now: u64,
        feed: &mut Feed,
        programs: (&Program, &Program),
        gpu: &GpuConfig,
        scheme: &dyn RegisterFileScheme,
        regs_override: Option<u32>,
    ) -> Result<(), TimingError> {
        dispatcher.dispatch(now, &mut self.sms, feed, programs, gpu, scheme, regs_override)
    }

    fn account_until(&mut self, end: u64) {
        for sm in self.iter_mut() {
            sm.account_until(end);
        }
    }

    fn occupancy(&self) -> (u32, u32, u32) {
        let resident = self.iter().map(Sm::resident_ctas).sum();
        let active = self.iter().map(Sm::active_ctas).sum();
        let warps = self.iter().map(Sm::resident_warps).sum();
        (resident, active, warps)
    }

    fn for_each_stats(&self, f: &mut dyn FnMut(&SmStats, SchemeStats, &L1)) {
        for sm in self.iter() {
            f(sm.stats(), sm.scheme().stats(), sm.l1());
        }
    }
}

/// Simulates cycle `t`: the SMs due simulate it, in SM order (one stopped in `t` by a window
/// only its second half). Returns `t` if any did.
fn simulate_cycle<R: RegisterFileScheme + ?Sized>(
    sms: &mut [Sm<R>],
    stopped: &mut [Option<u64>],
    t: u64,
    cx: &mut ChipContext<'_>,
) -> Option<u64> {
    let mut any = false;
    for (sm, stop) in sms.iter_mut().zip(stopped.iter_mut()) {
        match *stop {
            Some(c) if c == t => {
                sm.cycle_back(t, cx);
                *stop = None;
                any = true;
            }
            Some(_) => {}
            None if sm.next_event() <= t => {
                sm.cycle(t, cx);
                any = true;
            }
            None => {}
        }
    }
    any.then_some(t)
}

/// The last cycle `sm` may simulate in the window `t..=end`: `end`, or later when nothing the
/// dispatcher does at the end of a cycle up to it can concern the SM — none of its CTAs can
/// finish by then, and it cannot have the room the dispatcher waits for
/// ([`Sm::earliest_room`]; with the next launch waiting, `lift`, a cycle before which this
/// launch's last CTA cannot finish), so the dispatcher passes over it whether it stands at that
/// cycle or further on. Its accesses to the L2 still wait for the others' ([`simulate_window`]).
///
/// ```text
/// window ..=140, SM 3: no CTA finishes before 900, 8 warp slots free by 610 at the earliest
///   → SM 3 may run to 609 (at most to the cycle before the next occupancy sample)
/// SM 5 idle (its scheme still busy), the next launch waiting, SM 2's CTA done no sooner than
///   700 → SM 5 may run to 699
/// ```
fn horizon<R: RegisterFileScheme + ?Sized>(sm: &mut Sm<R>, t: u64, end: u64, ahead: RunAhead, lift: u64) -> u64 {
    let Some(waiting) = ahead.waiting else { return end };
    if ahead.cap <= end {
        return end;
    }
    let now = sm.resume_at(t);
    let finish = sm.finish_bound(now);
    if finish.saturating_sub(1) <= end {
        return end;
    }
    let room = match waiting {
        Waiting::Start => now,
        Waiting::Drained => u64::MAX,
        Waiting::Launch => lift,
        Waiting::Room { resident, warps } => sm.earliest_room(now, resident, warps),
    };
    finish.min(room).saturating_sub(1).clamp(end, ahead.cap)
}

/// Simulates every SM's cycles up to its horizon (`horizons`, none before `end`; no CTA can
/// finish before `end`, so SMs interact only through the L2 and the dispatcher at `end`). Each
/// SM runs ahead on its own — its state stays in the host's cache — and stops before a cycle
/// whose dispatch may reach the L2; stopped SMs resume in (cycle, SM) order, so the L2 sees
/// exactly the request order of simulating the SMs cycle by cycle. An SM stopped in a cycle
/// after `end` stays stopped (`stopped`) until a later window reaches that cycle: the others'
/// requests up to it come first. Returns the last cycle any SM simulated; an error if a CTA
/// finished in another cycle than `end` (a bound was wrong, and the dispatcher would have acted
/// late).
fn simulate_window<R: RegisterFileScheme + ?Sized>(
    sms: &mut [Sm<R>],
    stopped: &mut [Option<u64>],
    horizons: &[u64],
    end: u64,
    cx: &mut ChipContext<'_>,
) -> Result<Option<u64>, TimingError> {
    let mut last = None;
    for ((sm, stop), &h) in sms.iter_mut().zip(stopped.iter_mut()).zip(horizons) {
        if stop.is_none() {
            *stop = run_ahead(sm, h, cx, &mut last);
        }
    }
    loop {
        let next = stopped.iter().enumerate().filter_map(|(i, c)| c.filter(|&c| c <= end).map(|c| (c, i))).min();
        let Some((c, i)) = next else { break };
        let (Some(sm), Some(slot), Some(&h)) = (sms.get_mut(i), stopped.get_mut(i), horizons.get(i)) else { break };
        sm.cycle_back(c, cx);
        *slot = run_ahead(sm, h, cx, &mut last);
    }
    for sm in sms.iter() {
        if let Some(early) = sm.first_finish().filter(|&f| f != end) {
            return Err(TimingError::Internal(format!("a CTA finished in cycle {early}, inside a window to {end}")));
        }
    }
    Ok(last)
}

/// Runs `sm` through its cycles up to `end` until one whose dispatch may reach the L2: returns
/// that cycle (its first half done) or `None` when the SM has nothing more to do by `end`.
fn run_ahead<R: RegisterFileScheme + ?Sized>(
    sm: &mut Sm<R>,
    end: u64,
    cx: &mut ChipContext<'_>,
    last: &mut Option<u64>,
) -> Option<u64> {
    loop {
        let c = sm.next_event();
        if c > end {
            return None;
        }
        *last = Some(last.map_or(c, |l| l.max(c)));
        sm.cycle_front(c, cx.program);
        if sm.may_reach_l2(c, cx.program) {
            return Some(c);
        }
        sm.cycle_back(c, cx);
    }
}

/// What every SM of a run is built with besides its register file.
pub(super) struct SmShape<'a> {
    /// The GPU.
    pub gpu: &'a GpuConfig,
    /// The SM's shape.
    pub geo: SmGeometry,
    /// The scheme's own program, when it transforms code.
    pub own: Option<&'a Rc<SchemeProgram>>,
}

/// The SMs of a run, around `rfs` (one register file per SM), built on the scheme's own type
/// when it is one of the types instantiated here.
pub(super) fn build(rfs: Vec<Box<dyn RegisterFileScheme>>, shape: &SmShape<'_>) -> Box<dyn SmArray> {
    if all_are::<BankedRegisterFile>(&rfs) {
        return Box::new(Sms::new(typed_sms::<BankedRegisterFile>(rfs, shape)));
    }
    if all_are::<ConflictFreeRegisterFile>(&rfs) {
        return Box::new(Sms::new(typed_sms::<ConflictFreeRegisterFile>(rfs, shape)));
    }
    if all_are::<RfcObRegisterFile>(&rfs) {
        return Box::new(Sms::new(typed_sms::<RfcObRegisterFile>(rfs, shape)));
    }
    Box::new(Sms::new(rfs.into_iter().map(|rf| new_sm(rf, shape)).collect::<Vec<Sm>>()))
}

fn all_are<R: RegisterFileScheme>(rfs: &[Box<dyn RegisterFileScheme>]) -> bool {
    !rfs.is_empty() && rfs.iter().all(|rf| SchemeAny::as_any(&**rf).is::<R>())
}

/// The SMs around `rfs`, every one an `R` ([`all_are`]).
fn typed_sms<R: RegisterFileScheme>(rfs: Vec<Box<dyn RegisterFileScheme>>, shape: &SmShape<'_>) -> Vec<Sm<R>> {
    let typed = rfs.into_iter().filter_map(|rf| SchemeAny::into_any(rf).downcast::<R>().ok());
    typed.map(|rf| new_sm(rf, shape)).collect()
}

fn new_sm<R: RegisterFileScheme + ?Sized>(rf: Box<R>, shape: &SmShape<'_>) -> Sm<R> {
    let mut sm = Sm::new(shape.gpu, shape.geo, rf);
    if let Some(p) = shape.own {
        sm.set_scheme_program(p.clone());
    }
    sm
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::presets;
    use crate::timing::chip::geometry;
    use crate::timing::regfile::{by_name, EnergyModel, SchemeContext};

    fn register_files(scheme: &str) -> Vec<Box<dyn RegisterFileScheme>> {
        let gpu = presets::fermi_gtx480();
        let energy = EnergyModel::default();
        let ctx = SchemeContext { gpu: &gpu, geometry: geometry(&gpu, 48), energy: &energy };
        let Some(entry) = by_name(scheme) else { return Vec::new() };
        let Ok(config) = crate::timing::regfile::SchemeSpec::parse(scheme).and_then(|s| s.resolve(&gpu, &energy))
        else {
            return Vec::new();
        };
        (0..2).filter_map(|_| entry.make(&ctx, &config.config).ok()).collect()
    }

    #[test]
    fn registered_schemes_are_recognised_by_their_own_type() {
        // baseline's registry entry builds BankedRegisterFile: its SMs are built on that type.
        assert_eq!(register_files("baseline").len(), 2);
        assert!(all_are::<BankedRegisterFile>(&register_files("baseline")));
        assert!(all_are::<RfcObRegisterFile>(&register_files("rfc-ob")));
        // 2x-registers wraps a banked file in its own type: not taken for the baseline.
        assert!(!all_are::<BankedRegisterFile>(&register_files("2x-registers")));
        assert!(!all_are::<BankedRegisterFile>(&[]));
    }
}
