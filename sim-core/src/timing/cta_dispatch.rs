//! CTA dispatch: CTAs go to SMs in execution order, round robin over the SMs, as long as an SM
//! holds fewer CTAs than the occupancy calculator allows for the kernel under the run's
//! register-file scheme (or the more resident CTAs the scheme admits,
//! [`RegisterFileScheme::max_resident_ctas`]: those beyond the slot limit start parked); a
//! finished CTA's place is refilled at the end of the cycle it finished.
//! CTAs of launch `k + 1` start only when every CTA of launch `k` has finished (no concurrent
//! kernels).
//!
//! ```text
//! fermi-gtx480, 256 threads, 24 registers (scheme) → 6 CTAs per SM (warps bind); CTA 0 → SM 0,
//! CTA 1 → SM 1, …, CTA 15 → SM 0, …
//! ```

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::gpu::GpuConfig;
use crate::occupancy::{self, OccupancyInput};
use crate::timing::program::Program;
use crate::timing::regfile::{CtaFootprint, RegisterFileScheme};
use crate::timing::report::KernelPlacement;
use crate::timing::sm::Sm;
use crate::timing::stream::feed::Feed;
use crate::timing::stream::trace::LaunchShape;
use crate::timing::TimingError;

/// The dispatcher of one run.
#[derive(Clone, Debug, Default)]
pub struct Dispatcher {
    /// Per shape: placement, registers per CTA, resident CTAs per SM the scheme admits.
    placements: BTreeMap<LaunchShape, (KernelPlacement, u32, u32)>,
    /// Kernel placements in order of first appearance.
    pub order: Vec<LaunchShape>,
    /// The next CTA (feed index) to dispatch.
    pub next: u64,
    next_sm: usize,
    launch: Option<u32>,
    in_flight: u64,
    /// CTAs completed.
    pub completed: u64,
    /// No CTA is left in the feed.
    pub drained: bool,
    /// Why the last dispatch stopped: what an SM must have before the next one can give it a CTA.
    pub waiting: Waiting,
}

/// Why the dispatcher stopped at its last call, so what it will need of an SM at its next call
/// (which comes at the end of a cycle some CTA finished in): the chip lets an SM that cannot
/// have that before a cycle run ahead of the others up to it ([`crate::timing::chip_sms`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Waiting {
    /// Not called yet: any SM may be given a CTA.
    #[default]
    Start,
    /// The feed has no CTA left: no SM is given one again.
    Drained,
    /// The next CTA is of the next launch and waits for every CTA of this one to finish.
    Launch,
    /// No SM had room for the next CTA: one needs fewer than `resident` CTAs and `warps` free
    /// warp slots.
    Room {
        /// Resident CTAs an SM must hold fewer of.
        resident: u32,
        /// Free warp slots the CTA takes.
        warps: u32,
    },
}

impl Dispatcher {
    /// The placement of `shape` under `scheme` (computed once per shape).
    fn placement(
        &mut self,
        shape: LaunchShape,
        program: &Program,
        gpu: &GpuConfig,
        scheme: &dyn RegisterFileScheme,
        regs_override: Option<u32>,
    ) -> Result<(u32, u32, u32), TimingError> {
        if let Some((p, regs, resident)) = self.placements.get(&shape) {
            return Ok((p.ctas_per_sm, *regs, *resident));
        }
        let kernel = program
            .kernels
            .get(shape.kernel as usize)
            .ok_or_else(|| TimingError::Source(format!("kernel #{} is not in the program", shape.kernel).into()))?;
        let regs = scheme.registers_per_thread(kernel, regs_override);
        let limits = scheme.residency_limits(gpu);
        let input = OccupancyInput::new(shape.threads, regs)
            .with_static_shared_memory(kernel.static_shared_bytes)
            .with_dynamic_shared_memory(u64::from(shape.dynamic_smem));
        let occ = occupancy::compute(&limits, &input).map_err(|e| TimingError::Occupancy(e.to_string()))?;
        if occ.blocks_per_sm == 0 {
            return Err(TimingError::DoesNotFit {
                kernel: kernel.name.clone(),
                reasons: occ.misfits.iter().map(ToString::to_string).collect(),
            });
        }
        let placement = KernelPlacement {
            kernel: kernel.name.clone(),
            threads_per_cta: shape.threads,
            registers_per_thread: regs,
            max_live_registers: kernel.max_live_registers,
            ctas_per_sm: occ.blocks_per_sm,
            warps_per_sm: occ.warps_per_sm,
            theoretical_occupancy: occ.occupancy,
            limited_by: occ.binding.iter().map(|r| String::from(r.name())).collect(),
        };
        let ctas = placement.ctas_per_sm;
        let cta_registers = regs.saturating_mul(shape.threads);
        let first = program.func_base.get(&kernel.function.raw()).copied().unwrap_or(0);
        let end =
            program.func_base.values().copied().filter(|&b| b > first).min().unwrap_or(program.insts.len() as u32);
        let footprint = CtaFootprint {
            slots_limit: ctas,
            threads: shape.threads,
            warps: shape.threads.div_ceil(gpu.warp_size().max(1)),
            registers_per_thread: regs,
            shared_bytes: kernel.static_shared_bytes + u64::from(shape.dynamic_smem),
            sids: (first, end),
            program,
        };
        // A scheme may keep more CTAs resident than the slots allow (parked ones).
        let resident = scheme.max_resident_ctas_for(&footprint).max(ctas);
        self.placements.insert(shape, (placement, cta_registers, resident));
        self.order.push(shape);
        Ok((ctas, cta_registers, resident))
    }

    /// The placements in order of first appearance.
    pub fn placements(&self) -> Vec<KernelPlacement> {
        self.order.iter().filter_map(|s| self.placements.get(s).map(|(p, _, _)| p.clone())).collect()
    }

    /// A CTA finished.
    pub fn finished(&mut self) {
        self.in_flight = self.in_flight.saturating_sub(1);
        self.completed += 1;
    }

    /// CTAs resident somewhere.
    pub fn in_flight(&self) -> u64 {
        self.in_flight
    }

    /// Dispatches what fits at the end of cycle `now` (`programs`: the shared program the streams
    /// refer to, and the timed one whose kernels give the registers).
    #[allow(clippy::too_many_arguments, reason = "the dispatcher reads every part of the chip once per cycle")]
    pub fn dispatch<R: RegisterFileScheme + ?Sized>(
        &mut self,
        now: u64,
        sms: &mut [Sm<R>],
        feed: &mut Feed,
        programs: (&Program, &Program),
        gpu: &GpuConfig,
        scheme: &dyn RegisterFileScheme,
        regs_override: Option<u32>,
    ) -> Result<(), TimingError> {
        let (program, timed) = programs;
        loop {
            let Some(cta) = feed.get(self.next, program)? else {
                self.drained = true;
                self.waiting = Waiting::Drained;
                return Ok(());
            };
            if self.launch.is_some_and(|l| l != cta.launch) && self.in_flight > 0 {
                self.waiting = Waiting::Launch;
                return Ok(());
            }
            let (limit, registers, resident) = self.placement(cta.shape, timed, gpu, scheme, regs_override)?;
            let warps = cta.warps.len() as u32;
            let n = sms.len();
            let pick = (0..n)
                .map(|k| (self.next_sm + k) % n)
                .find(|&i| sms.get(i).is_some_and(|sm| sm.resident_ctas() < resident && sm.free_warp_slots() >= warps));
            self.waiting = Waiting::Room { resident, warps };
            let Some(i) = pick else { return Ok(()) };
            let Some(sm) = sms.get_mut(i) else { return Ok(()) };
            sm.launch(cta.clone(), self.next, registers, limit, now);
            self.launch = Some(cta.launch);
            self.next += 1;
            self.in_flight += 1;
            self.next_sm = (i + 1) % n;
        }
    }
}
