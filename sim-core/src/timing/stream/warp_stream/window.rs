//! A warp's stream as a window: chunks produced by the executor are appended at the back
//! ([`WarpStream::append`]) and what replay has passed is dropped from the front
//! ([`WarpStream::trim`]), so a warp that runs for a long time holds only the instructions
//! around where its replay stands. Positions, run and access indices stay absolute (a cursor
//! and an instruction decoded before a trim stay valid); only the arrays shrink.
//!
//! ```text
//! window [pos 0 ..  9000)  + chunk [9000 .. 17192)  → [0 .. 17192)
//! trim(12000)              → runs ending at or before 12000 dropped → [11998 .. 17192)
//! ```

use super::{AccessRecord, AddrForm, WarpStream, SHAPE_BITS};

impl WarpStream {
    /// Appends `chunk`, the instructions that follow this stream's last ([`WarpStream::starting_at`]
    /// its length); fails when they do not follow on.
    pub fn append(&mut self, chunk: &WarpStream) -> Result<(), &'static str> {
        if chunk.window.start != self.len {
            return Err("a chunk that does not follow on its stream");
        }
        let mut map = alloc::vec::Vec::with_capacity(chunk.shapes.len());
        for shape in &chunk.shapes {
            let i = match self.shapes.iter().rposition(|s| s == shape) {
                Some(i) => i,
                None => {
                    self.shapes.push(*shape);
                    self.shapes.len() - 1
                }
            };
            map.push(u32::try_from(i).ok().filter(|&i| i < 1 << SHAPE_BITS).ok_or("too many access shapes in a warp")?);
        }
        let addr_base = self.window.addr + self.addresses.len() as u64 - chunk.window.addr;
        for rec in &chunk.accesses {
            let shape = map.get(rec.shape()).copied().ok_or("an access shape out of range")?;
            let list = chunk.shapes.get(rec.shape()).is_some_and(|s| s.form == AddrForm::List);
            let base = if list { rec.base.wrapping_add(addr_base) } else { rec.base };
            self.accesses.push(AccessRecord {
                at: rec.at,
                shape_space: shape | rec.space().code() << SHAPE_BITS,
                base,
            });
        }
        self.addresses.extend_from_slice(&chunk.addresses);
        self.runs.extend_from_slice(&chunk.runs);
        self.values.append(&chunk.values);
        self.len = chunk.len;
        Ok(())
    }

    /// Drops the runs that end at or before position `pos` and everything recorded for them.
    pub fn trim(&mut self, pos: u32) {
        let mut start = self.window.start;
        let mut k = 0;
        for r in &self.runs {
            if start.saturating_add(r.len) > pos {
                break;
            }
            start += r.len;
            k += 1;
        }
        if k == 0 {
            return;
        }
        self.runs.drain(..k);
        self.window.run += k as u32;
        self.window.start = start;
        let m = self.accesses.iter().take_while(|a| a.at < start).count();
        self.accesses.drain(..m);
        self.window.access += m as u32;
        let first_list =
            self.accesses.iter().find(|a| self.shapes.get(a.shape()).is_some_and(|s| s.form == AddrForm::List));
        let keep_from = first_list.map_or(self.window.addr + self.addresses.len() as u64, |a| a.base);
        let drop = keep_from.saturating_sub(self.window.addr).min(self.addresses.len() as u64);
        self.addresses.drain(..drop as usize);
        self.window.addr += drop;
        self.values.trim(start);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timing::stream::trace::MemSpace;
    use alloc::vec::Vec;

    /// `n` instructions from position `start`: sid 0 1 2 0 1 2 …, a shared load (scattered
    /// addresses, list form) at every sid 1.
    fn chunk(start: u32, n: u32) -> WarpStream {
        let mut w = WarpStream::starting_at(start);
        for pc in start..start + n {
            if pc % 3 == 1 {
                let addrs = [u64::from(pc) * 7, 3, 90];
                assert_eq!(w.push_access(1, 0b1011, MemSpace::Shared, 4, &addrs), Ok(()));
            } else {
                w.push(pc % 3, 0xffff_ffff);
            }
        }
        w
    }

    fn decoded(w: &WarpStream, from: u32) -> Vec<(u32, u64, Vec<u64>)> {
        let mut c = w.start_cursor();
        let mut buf = [0u64; crate::timing::stream::trace::MAX_LANES];
        (from..w.len())
            .map(|pc| {
                let d = w.decode(pc, &mut c);
                let a = w.access(&d).map(|a| a.addrs.expand(&mut buf).to_vec()).unwrap_or_default();
                (d.sid, d.executed, a)
            })
            .collect()
    }

    #[test]
    fn a_window_decodes_as_the_whole_stream_after_appends_and_trims() {
        let whole = chunk(0, 40);
        let mut w = chunk(0, 10);
        assert_eq!(w.append(&chunk(10, 15)), Ok(()));
        assert!(w.append(&chunk(30, 1)).is_err(), "25..30 is missing");
        w.trim(12);
        // Runs: sid 0 alone, then the load, then sid 2 (a run each, as the loads split them):
        // the run holding 11 ends at 12 and goes; 12.. stays.
        assert_eq!(w.start(), 12);
        assert_eq!(w.append(&chunk(25, 15)), Ok(()));
        assert_eq!(w.validate(3), Ok(()));
        assert_eq!(decoded(&w, 12), decoded(&whole, 0)[12..].to_vec());
        w.trim(39);
        assert_eq!(w.held(), 1);
        assert_eq!(decoded(&w, 39), decoded(&whole, 0)[39..].to_vec());
    }
}
