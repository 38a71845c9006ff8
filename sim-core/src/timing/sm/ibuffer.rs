//! The instruction buffer of a warp, reduced to what decides timing: from which cycle the warp's
//! next instruction is decoded and waiting. Fetch is not a bottleneck (a perfect instruction
//! cache); a warp starts one cycle after its CTA is dispatched and, after a branch, call or return
//! issues, fetches again only once it has resolved (a control hazard: the next instruction is
//! there the cycle after the branch completes). The buffer holds two instructions, so a dual-issue
//! scheduler may take two consecutive ones in one cycle.
//!
//! ```text
//! t=10 bra issues → buffer empty · t=16 bra completes → next instruction available at t=17
//! ```

/// A warp's instruction buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IBuffer {
    ready_at: u64,
}

/// Waiting for a branch to resolve.
const UNRESOLVED: u64 = u64::MAX;

impl IBuffer {
    /// A buffer whose first instruction is there at `cycle`.
    pub fn starting_at(cycle: u64) -> Self {
        IBuffer { ready_at: cycle }
    }

    /// True if the next instruction is there at `now`.
    pub fn ready(&self, now: u64) -> bool {
        self.ready_at <= now
    }

    /// The cycle the next instruction will be there, `None` while a branch is unresolved.
    pub fn ready_at(&self) -> Option<u64> {
        (self.ready_at != UNRESOLVED).then_some(self.ready_at)
    }

    /// An instruction issued at `now`; `control` if it was a branch, call or return.
    pub fn issued(&mut self, now: u64, control: bool) {
        self.ready_at = if control { UNRESOLVED } else { now + 1 };
    }

    /// The branch resolved at `now`.
    pub fn resolved(&mut self, now: u64) {
        self.ready_at = now + 1;
    }

    /// Released from a barrier at `now`.
    pub fn released(&mut self, now: u64) {
        self.ready_at = now + 1;
    }
}
