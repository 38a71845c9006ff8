//! What FineReg, Virtual Thread and Reg+DRAM know about an SM's resident CTAs, from the SM's
//! residency events ([`crate::timing::sm::hooks::ResidencyEvent`]): which are active, which are
//! parked and whether a parked one is ready (its loads are back), which never ran, how many warps
//! each has left and where each warp last stalled on a long-latency result.
//!
//! ```text
//! CtaLaunched { cta: 2, active: false } → 2: parked, ready, never ran
//! WarpLongLatencyStall { warp: 5, cta: 0, sid: 17 } → warp 5 of CTA 0 stalled before sid 17
//! (scheme parks CTA 0) → parked, not ready · ParkedCtaReady { cta: 0 } → ready
//! ```
//!
//! The three schemes also share the baseline's operand collection ([`delegate_operands`]).

use alloc::collections::BTreeMap;

use crate::timing::sm::hooks::ResidencyEvent;

/// The park order of never-run CTAs (after every parked one).
const NEVER_RUN: u64 = 1 << 48;

/// One resident CTA as a scheme sees it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PoolCta {
    /// Warps not finished.
    pub live_warps: u32,
    /// Warps at launch.
    pub warps: u32,
    /// Registers of its full allocation (registers per thread × threads).
    pub registers: u32,
    /// Active (its warps may issue, or are about to).
    pub active: bool,
    /// Parked and every load it waited on is back (never-run CTAs are ready).
    pub ready: bool,
    /// It has issued (a parked CTA that ran has a context to restore).
    pub ran: bool,
    /// When it was last parked (order of parks; older first when choosing).
    pub parked_seq: u64,
    /// Per warp slot: the `sid` it last stalled before on a long-latency result.
    pub stall_sid: BTreeMap<u32, u32>,
}

impl PoolCta {
    /// Registers per thread of its allocation (`registers / (warps × warp_size)`).
    pub fn registers_per_thread(&self, warp_size: u32) -> u32 {
        self.registers / (self.warps.max(1) * warp_size.max(1))
    }
}

/// The resident CTAs of one SM.
#[derive(Clone, Debug, Default)]
pub struct CtaPool {
    /// By CTA slot.
    pub ctas: BTreeMap<u32, PoolCta>,
    /// Active slots left empty when a CTA finished with no ready CTA to take them (the next
    /// ready one, or a launch, takes one).
    pub free_slots: u32,
    seq: u64,
}

impl CtaPool {
    /// Follows `event`; true if it concerned a known CTA (or launched one).
    pub fn follow(&mut self, event: &ResidencyEvent) {
        match *event {
            ResidencyEvent::CtaLaunched { cta, number, warps, registers, active } => {
                // Never-run CTAs come after every parked one, in launch order.
                let parked_seq = NEVER_RUN + number;
                let c = PoolCta {
                    live_warps: warps,
                    warps,
                    registers,
                    active,
                    ready: true,
                    ran: active,
                    parked_seq,
                    ..PoolCta::default()
                };
                if active {
                    self.free_slots = self.free_slots.saturating_sub(1);
                }
                self.ctas.insert(cta, c);
            }
            ResidencyEvent::WarpLongLatencyStall { warp, cta, sid } => {
                if let Some(c) = self.ctas.get_mut(&cta) {
                    c.stall_sid.insert(warp, sid);
                }
            }
            ResidencyEvent::ParkedCtaReady { cta } => {
                if let Some(c) = self.ctas.get_mut(&cta).filter(|c| !c.active) {
                    c.ready = true;
                }
            }
            ResidencyEvent::WarpFinished { warp, cta } => {
                if let Some(c) = self.ctas.get_mut(&cta) {
                    c.live_warps = c.live_warps.saturating_sub(1);
                    c.stall_sid.remove(&warp);
                }
            }
            ResidencyEvent::CtaFinished { cta } => {
                self.ctas.remove(&cta);
            }
            _ => {}
        }
    }

    /// The scheme parks `cta` (not ready until told).
    pub fn park(&mut self, cta: u32) {
        self.seq += 1;
        let seq = self.seq;
        if let Some(c) = self.ctas.get_mut(&cta) {
            c.active = false;
            c.ready = false;
            c.parked_seq = seq;
        }
    }

    /// The scheme activates `cta`.
    pub fn activate(&mut self, cta: u32) {
        if let Some(c) = self.ctas.get_mut(&cta) {
            c.active = true;
            c.ran = true;
        }
    }

    /// Active CTAs.
    pub fn active(&self) -> u32 {
        self.ctas.values().filter(|c| c.active).count() as u32
    }

    /// The ready parked CTA `keep` accepts that was parked first (never-run ones after every
    /// parked one, in launch order).
    pub fn oldest_ready(&self, keep: impl Fn(u32, &PoolCta) -> bool) -> Option<u32> {
        self.ctas
            .iter()
            .filter(|(&k, c)| !c.active && c.ready && keep(k, c))
            .min_by_key(|(&k, c)| (c.parked_seq, k))
            .map(|(&k, _)| k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parked_ctas_become_ready_and_the_oldest_is_chosen() {
        let mut p = CtaPool::default();
        for (cta, active) in [(0, true), (1, true), (2, false)] {
            p.follow(&ResidencyEvent::CtaLaunched { cta, number: u64::from(cta), warps: 2, registers: 2048, active });
        }
        assert_eq!(p.oldest_ready(|_, _| true), Some(2), "a never-run CTA is ready");
        p.park(0);
        p.park(1);
        assert_eq!(p.oldest_ready(|k, _| k != 2), None, "parked CTAs wait for their loads");
        p.follow(&ResidencyEvent::ParkedCtaReady { cta: 1 });
        p.follow(&ResidencyEvent::ParkedCtaReady { cta: 0 });
        assert_eq!(p.oldest_ready(|k, _| k != 2), Some(0), "parked first, chosen first");
        assert_eq!(p.ctas.get(&0).map(|c| c.registers_per_thread(32)), Some(32));
        assert_eq!(p.active(), 0);
    }
}
