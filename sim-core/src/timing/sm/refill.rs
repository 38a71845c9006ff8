//! Where a warp gets more of its stream when its CTA arrived unfinished: each warp of such a
//! CTA replays its own window ([`Pieces`]); when the warp has issued everything the window
//! holds (`pc` reached `len`), the next piece is fetched from the store the runs of every
//! scheme share and appended, and the window drops what lies more than [`KEEP_BEHIND`]
//! instructions behind the replay (an issued instruction still reads its access record when it
//! dispatches, and a scheme's program may take an earlier access over). A warp is finished
//! only once the store says its stream has ended, so `len` is the length known so far: the
//! SM's end-of-CTA estimate counts the instructions known, a bound that only grows.
//!
//! ```text
//! warp 3: window [40960 .. 73728), pc 73728 = len → piece #5 [73728 .. 81920) → len 81920
//! ```

use alloc::rc::Rc;
use alloc::vec::Vec;

use super::Sm;
use crate::timing::regfile::RegisterFileScheme;
use crate::timing::stream::store::Fetch;
use crate::timing::stream::trace::CtaStream;
use crate::timing::stream::warp_stream::WarpStream;

/// Instructions a window keeps behind the position its replay stands at.
pub const KEEP_BEHIND: u32 = 1 << 12;

/// A window is trimmed once it holds this many instructions behind its replay.
const TRIM_AT: u32 = 1 << 13;

/// The windows of a CTA that arrives in pieces.
#[derive(Clone, Debug)]
pub struct Pieces {
    /// Per warp: its window.
    pub windows: Vec<WarpStream>,
    /// Per warp: the number of the next piece to fetch.
    next: Vec<u32>,
    /// Per warp: its stream has ended.
    ended: Vec<bool>,
}

impl Pieces {
    /// Windows starting with the CTA's first streams, and the CTA without them (what the SM
    /// keeps of it: the first streams leave memory once every run has its own copy).
    pub fn new(cta: &Rc<CtaStream>) -> (Self, Rc<CtaStream>) {
        let first = &cta.warps;
        let pieces = Pieces {
            windows: first.to_vec(),
            next: alloc::vec![1; first.len()],
            ended: alloc::vec![false; first.len()],
        };
        let header = CtaStream { launch: cta.launch, shape: cta.shape, warps: Vec::new(), more: cta.more.clone() };
        (pieces, Rc::new(header))
    }

    /// Instructions the windows hold (a memory measure).
    pub fn held(&self) -> u64 {
        self.windows.iter().map(WarpStream::held).sum()
    }
}

impl<R: RegisterFileScheme + ?Sized> Sm<R> {
    /// Fetches pieces for warp slot `w` until it has an instruction to issue or its stream has
    /// ended (nothing to do unless its CTA arrived unfinished).
    pub(super) fn refill(&mut self, w: usize) {
        loop {
            let Some(warp) = self.warps.get(w) else { return };
            if warp.pc < warp.len || !warp.live {
                return;
            }
            let (index, pc) = (warp.index as usize, warp.pc);
            let pos = match &self.xlate {
                Some((_, tr)) => tr.get(w).map_or(pc, |t| t.stream_pos()),
                None => pc,
            };
            let Some(Some(c)) = self.ctas.get_mut(warp.cta as usize) else { return };
            let stream = Rc::clone(&c.stream);
            let (Some(more), Some(p)) = (stream.more.as_ref(), c.pieces.as_mut()) else { return };
            if p.ended.get(index).copied().unwrap_or(true) {
                return;
            }
            let k = p.next.get(index).copied().unwrap_or(u32::MAX);
            let (Some(win), Some(next), Some(ended)) =
                (p.windows.get_mut(index), p.next.get_mut(index), p.ended.get_mut(index))
            else {
                return;
            };
            let piece = match more.fetch(self.stream_run, index, k) {
                Fetch::Piece(piece) => piece,
                Fetch::End => {
                    *ended = true;
                    return;
                }
            };
            if win.append(&piece).is_err() {
                *ended = true;
                return;
            }
            *next = k + 1;
            if pos.saturating_sub(win.start()) > TRIM_AT {
                win.trim(pos - KEEP_BEHIND);
            }
            let added = match &self.xlate {
                Some((sp, _)) => sp.map.issued(&piece),
                None => piece.len() - piece.start(),
            };
            if let Some(warp) = self.warps.get_mut(w) {
                warp.len = warp.len.saturating_add(added);
            }
        }
    }

    /// Instructions the windows of this SM's CTAs that arrived in pieces hold.
    pub fn window_instructions(&self) -> u64 {
        self.ctas.iter().flatten().filter_map(|c| c.pieces.as_ref()).map(Pieces::held).sum()
    }
}
