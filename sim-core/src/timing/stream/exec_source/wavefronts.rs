//! 64-wide wavefronts for a GCN3 machine from the executor's 32-lane warps: warps `2w` and
//! `2w + 1` of a CTA are the halves of wavefront `w`, and [`crate::exec::wavefront::WaveMerge`]
//! says in which order the wavefront runs their records. Each merged instruction carries the
//! lanes of both halves (half 1's as lanes 32–63), their addresses in lane order, and value
//! summaries over the 64 lanes.
//!
//! ```text
//! warp 0: ld (lanes 0-31, 0x000 + 4·l)      warp 1: ld (lanes 0-31, 0x080 + 4·l)
//! wavefront 0: ld (lanes 0-63, 0x000 + 4·l)  — one instruction, 64 addresses
//! ```
//!
//! Works on whole CTAs and on CTAs handed out in pieces ([`super::pieces`]): a half's records
//! wait here until the merge reaches them, and a wavefront's piece is what the merge could
//! place so far.
//!
//! A 64-lane result is uniform when both halves' are and their values are equal: for a 64-wide
//! machine the executor also records each summarised unit's value in the first executed lane
//! ([`crate::exec::stream::TraceOptions::first_values`]).

use alloc::string::String;
use alloc::vec::Vec;

use crate::exec::program::Program as ExecProgram;
use crate::exec::stream::TraceRecord;
use crate::exec::value_summary::ValueSummary;
use crate::exec::wavefront::{join, HalfNext, MergeStep, WaveMerge};
use crate::exec::WarpTrace;
use crate::timing::stream::trace::{MemSpace, WarpStream};

/// What the conversion of one half's record gives: its static id and, for a memory record,
/// the space and the resolved addresses (offsets in the space).
pub struct Converted {
    /// Static id.
    pub sid: u32,
    /// Space, bytes per lane and addresses of a memory record.
    pub access: Option<(MemSpace, u16, Vec<u64>)>,
}

/// The conversion of one half's record with its addresses (see [`Waves::absorb`]).
pub type ConvertHalf<'a> = dyn FnMut(&TraceRecord, &[u64]) -> Result<Converted, String> + 'a;

/// A half's records not merged yet.
#[derive(Default)]
struct Pending {
    trace: WarpTrace,
    next: usize,
    done: bool,
}

impl Pending {
    fn peek(&self) -> Option<HalfNext> {
        self.trace.records.get(self.next).map(|r| HalfNext {
            func: u32::from(r.func),
            pc: r.pc,
            active: r.active,
            executed: r.executed,
        })
    }

    /// Appends a newly recorded chunk (its indices made relative to what is held).
    fn append(&mut self, mut chunk: WarpTrace) {
        self.compact();
        if self.trace.records.is_empty() {
            self.trace = chunk;
            self.next = 0;
            return;
        }
        let (a, v) = (self.trace.addresses.len() as u32, self.trace.values.len() as u32);
        for r in &mut chunk.records {
            r.addr_start += a;
            if r.value_start != u32::MAX {
                r.value_start += v;
            }
        }
        self.trace.records.append(&mut chunk.records);
        self.trace.addresses.append(&mut chunk.addresses);
        self.trace.values.append(&mut chunk.values);
        self.trace.firsts.append(&mut chunk.firsts);
    }

    /// Drops the merged records (and their addresses and values).
    fn compact(&mut self) {
        if self.next == 0 {
            return;
        }
        let rest = self.trace.records.split_off(self.next.min(self.trace.records.len()));
        self.next = 0;
        let a = rest.iter().filter(|r| r.addr_count > 0).map(|r| r.addr_start).min();
        let v = rest.iter().filter(|r| r.value_start != u32::MAX).map(|r| r.value_start).min();
        let a = a.unwrap_or(self.trace.addresses.len() as u32);
        let v = v.unwrap_or(self.trace.values.len() as u32);
        self.trace.addresses.drain(..(a as usize).min(self.trace.addresses.len()));
        self.trace.values.drain(..(v as usize).min(self.trace.values.len()));
        self.trace.firsts.drain(..(v as usize).min(self.trace.firsts.len()));
        self.trace.records = rest;
        for r in &mut self.trace.records {
            r.addr_start = r.addr_start.saturating_sub(a);
            if r.value_start != u32::MAX {
                r.value_start -= v;
            }
        }
    }

    fn addresses(&self, r: &TraceRecord) -> &[u64] {
        let (a, n) = (r.addr_start as usize, r.addr_count as usize);
        self.trace.addresses.get(a..a + n).unwrap_or(&[])
    }

    /// The value summaries of `r` and the first executed lane's bits of each unit.
    fn values(&self, r: &TraceRecord) -> (&[ValueSummary], &[u32]) {
        if r.value_units == 0 {
            return (&[], &[]);
        }
        let range = r.value_start as usize..r.value_start as usize + usize::from(r.value_units);
        (self.trace.values.get(range.clone()).unwrap_or(&[]), self.trace.firsts.get(range).unwrap_or(&[]))
    }
}

/// One wavefront being merged.
struct Wave {
    merge: WaveMerge,
    halves: [Pending; 2],
    finished: bool,
    /// Position of the next merged instruction.
    len: u32,
}

/// The wavefronts of one CTA.
pub struct Waves {
    waves: Vec<Wave>,
}

/// The lanes of warp `w` of a CTA of `threads` threads.
fn warp_lanes(threads: u32, w: u32) -> u32 {
    match threads.saturating_sub(32 * w) {
        0 => 0,
        n if n >= 32 => u32::MAX,
        n => (1u32 << n) - 1,
    }
}

impl Waves {
    /// The wavefronts of a CTA of `threads` threads.
    pub fn new(threads: u32) -> Self {
        let waves = (0..threads.div_ceil(64).max(1))
            .map(|w| {
                let valid = [warp_lanes(threads, 2 * w), warp_lanes(threads, 2 * w + 1)];
                let mut halves = [Pending::default(), Pending::default()];
                for (h, p) in halves.iter_mut().enumerate() {
                    p.done = valid[h] == 0;
                }
                Wave { merge: WaveMerge::new(valid), halves, finished: false, len: 0 }
            })
            .collect();
        Waves { waves }
    }

    /// Whether wavefront `w` has merged its last instruction.
    pub fn finished(&self, w: usize) -> bool {
        self.waves.get(w).is_none_or(|x| x.finished)
    }

    /// Takes the warps' new records (`traces`, one per warp in index order; `warp_done(i)`: warp
    /// `i` has recorded its last) and returns each wavefront's newly merged instructions, as a
    /// stream starting where its last one ended. `convert` turns one half's record (with its
    /// addresses) into a static id and resolved access.
    pub fn absorb(
        &mut self,
        traces: Vec<WarpTrace>,
        warp_done: impl Fn(usize) -> bool,
        prog: &ExecProgram,
        convert: &mut ConvertHalf<'_>,
    ) -> Result<Vec<WarpStream>, String> {
        for (i, t) in traces.into_iter().enumerate() {
            if let Some(p) = self.waves.get_mut(i / 2).and_then(|w| w.halves.get_mut(i % 2)) {
                p.append(t);
            }
        }
        for (w, wave) in self.waves.iter_mut().enumerate() {
            for (h, p) in wave.halves.iter_mut().enumerate() {
                p.done |= warp_done(2 * w + h);
            }
        }
        self.waves.iter_mut().map(|w| w.merge_available(prog, convert)).collect()
    }
}

impl Wave {
    /// Merges as far as both halves' records allow.
    fn merge_available(&mut self, prog: &ExecProgram, convert: &mut ConvertHalf<'_>) -> Result<WarpStream, String> {
        let mut out = WarpStream::starting_at(self.len);
        while !self.finished {
            let next = [self.halves[0].peek(), self.halves[1].peek()];
            let done = [self.halves[0].done, self.halves[1].done];
            match self.merge.step(prog, next, done)? {
                MergeStep::Done => self.finished = true,
                MergeStep::Wait(_) => break,
                MergeStep::Run(run) => {
                    self.push_merged(&mut out, run, convert)?;
                    for (h, p) in self.halves.iter_mut().enumerate() {
                        if run[h] {
                            p.next += 1;
                        }
                    }
                }
            }
        }
        self.len = out.len();
        Ok(out)
    }

    /// Appends the instruction made of the halves' next records marked in `run`.
    fn push_merged(&self, out: &mut WarpStream, run: [bool; 2], convert: &mut ConvertHalf<'_>) -> Result<(), String> {
        let mut sid = None;
        let mut executed = [0u32; 2];
        let mut access: Option<(MemSpace, u16, Vec<u64>)> = None;
        let mut values: [(&[ValueSummary], &[u32]); 2] = [(&[], &[]), (&[], &[])];
        for h in 0..2 {
            let p = &self.halves[h];
            let Some(r) = run[h].then(|| p.trace.records.get(p.next)).flatten() else { continue };
            let c = convert(r, p.addresses(r))?;
            sid = Some(c.sid);
            executed[h] = r.executed;
            values[h] = p.values(r);
            if let Some((space, bytes, addrs)) = c.access {
                match &mut access {
                    None => access = Some((space, bytes, addrs)),
                    Some((s, _, list)) if *s == space => list.extend_from_slice(&addrs),
                    Some(_) => {
                        return Err(String::from(
                            "a generic access reached two state spaces in one 64-wide wavefront instruction",
                        ))
                    }
                }
            }
        }
        let Some(sid) = sid else { return Err(String::from("a wavefront step ran no half")) };
        let mask = join(executed[0], executed[1]);
        match access {
            Some((space, bytes, addrs)) => out.push_access(sid, mask, space, bytes, &addrs).map_err(String::from)?,
            None => out.push(sid, mask),
        }
        let merged = merge_values(values, executed);
        if !merged.is_empty() {
            out.push_values(&merged).map_err(String::from)?;
        }
        Ok(())
    }
}

/// The summaries over 64 lanes of the units each half summarised over its 32 (with each unit's
/// first executed lane's bits): uniform when both halves are and their values are equal.
fn merge_values(values: [(&[ValueSummary], &[u32]); 2], executed: [u32; 2]) -> Vec<ValueSummary> {
    let ([(s0, f0), (s1, f1)], [e0, e1]) = (values, executed);
    match (e0 != 0 && !s0.is_empty(), e1 != 0 && !s1.is_empty()) {
        (true, true) => (0..s0.len().min(s1.len()))
            .filter_map(|k| {
                let (a, b) = (s0.get(k)?, s1.get(k)?);
                let same = matches!((f0.get(k), f1.get(k)), (Some(x), Some(y)) if x == y);
                let uniform = a.uniform() && b.uniform() && same;
                Some(ValueSummary::new(
                    uniform,
                    a.unsigned_bits().max(b.unsigned_bits()),
                    a.signed_bits().max(b.signed_bits()),
                ))
            })
            .collect(),
        (true, false) => s0.to_vec(),
        (false, true) => s1.to_vec(),
        (false, false) => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use alloc::vec;
    use alloc::vec::Vec;

    use crate::exec::{ExecError, LaunchSetup};
    use crate::timing::stream::exec_source::{ExecSource, SourceOptions};
    use crate::timing::stream::trace::{CtaSource, LaneMask};
    use crate::timing::Program;

    /// Lanes 0–39 take the branch (half 0 all, half 1 lanes 0–7); then thread t loops t / 32 + 1
    /// times. Instruction numbers in the comments are the static ids.
    const SPLIT: &str = ".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry k()\n{\n\
        .reg .b32 %r<6>;\n.reg .pred %p<3>;\n\
        mov.u32 %r1, %tid.x;\n\
        setp.lt.u32 %p1, %r1, 40;\n\
        @%p1 bra THEN;\n\
        add.u32 %r2, %r1, 1;\n\
        bra JOIN;\n\
        THEN:\nadd.u32 %r2, %r1, 2;\n\
        JOIN:\nshr.u32 %r3, %r1, 5;\n\
        mov.u32 %r4, 0;\n\
        LOOP:\nadd.u32 %r4, %r4, 1;\n\
        setp.le.u32 %p2, %r4, %r3;\n\
        @%p2 bra LOOP;\n\
        ret;\n}\n";

    /// One unit's (warp's or wavefront's) stream: `(sid, executed)` in order.
    type Unit = Vec<(u32, LaneMask)>;

    /// Every CTA's streams, per unit.
    fn streams(ptx: &str, block: u32, lanes: u32) -> Result<Vec<Vec<Unit>>, ExecError> {
        let module = crate::ptx::compile(ptx).unwrap_or_default();
        let gpu = crate::gpu::presets::by_name(if lanes == 64 { "gcn3-cu" } else { "volta-v100" });
        let Some(gpu) = gpu else { unreachable!() };
        let program = Program::decode(&module, &gpu);
        let json = alloc::format!(r#"{{"kernel": "k", "grid": [1], "block": [{block}], "params": []}}"#);
        let setup = LaunchSetup::from_json(&json)?;
        let mut source =
            ExecSource::with_options(&module, &setup, &program, SourceOptions { lanes, ..SourceOptions::default() })?;
        let mut ctas = Vec::new();
        let mut number = 0;
        while let Ok(Some(cta)) = source.next_cta() {
            let mut units: Vec<Unit> =
                cta.warps.iter().map(|w| w.iter().map(|d| (d.sid, d.executed)).collect()).collect();
            if let Some(more) = cta.more {
                let mut done = more.done.clone();
                while let Some(w) = done.iter().position(|d| !d) {
                    let Ok(pieces) = source.more(number, w) else { unreachable!() };
                    for p in pieces {
                        if let Some(u) = units.get_mut(p.warp) {
                            u.extend(p.stream.iter().map(|d| (d.sid, d.executed)));
                        }
                        if let Some(d) = done.get_mut(p.warp) {
                            *d |= p.last;
                        }
                    }
                }
            }
            ctas.push(units);
            number += 1;
        }
        Ok(ctas)
    }

    fn threads(units: &[Vec<(u32, LaneMask)>]) -> u64 {
        units.iter().flatten().map(|&(_, m)| u64::from(m.count_ones())).sum()
    }

    #[test]
    fn a_wavefront_runs_each_halfs_path_and_the_other_halfs_alone() {
        let Ok(warps) = streams(SPLIT, 64, 32) else { unreachable!() };
        let Ok(waves) = streams(SPLIT, 64, 64) else { unreachable!() };
        let (warps, waves) = (&warps[0], &waves[0]);
        // Warp 0 (tid 0–31): 0 1 2 (all taken) 5 6 7, one iteration 8 9 10, 11: 10 records.
        // Warp 1 (tid 32–63): 0 1 2, then lanes 0–7 run 5 and lanes 8–31 run 3 4 (taken path
        // first), 6 7, two iterations of 8 9 10, 11: 15 records.
        assert_eq!(warps.iter().map(Vec::len).collect::<Vec<_>>(), [10, 15]);
        let all: LaneMask = u64::MAX;
        let high: LaneMask = 0xffff_ffff_0000_0000;
        let below40: LaneMask = (1 << 40) - 1;
        let from40: LaneMask = all & !below40;
        // The wavefront: 0 1 2 fused; the taken path (5) for lanes 0–39 fused; 3 4 by half 1
        // alone; 6 7 8 9 10 fused; the second iteration by half 1 alone (the branch at 10 is
        // taken by lanes 32–63 only, so 8 9 10 run for them while half 0 waits at 11); 11 fused.
        let expected = vec![
            (0, all),
            (1, all),
            (2, below40),
            (5, below40),
            (3, from40),
            (4, from40),
            (6, all),
            (7, all),
            (8, all),
            (9, all),
            (10, high),
            (8, high),
            (9, high),
            (10, 0),
            (11, all),
        ];
        assert_eq!(waves.len(), 1);
        assert_eq!(waves[0], expected);
        // Every thread-instruction of the warps, no more.
        assert_eq!(threads(waves), threads(warps));
    }

    /// Threads 48–63 exit; threads 0–15 call `inc`.
    const EXIT_CALL: &str = ".version 7.0\n.target sm_70\n.address_size 64\n\
        .func (.reg .b32 r) inc(.reg .b32 a)\n{\nadd.u32 r, a, 1;\nret;\n}\n\
        .visible .entry k()\n{\n.reg .b32 %r<4>;\n.reg .pred %p<3>;\n\
        mov.u32 %r1, %tid.x;\n\
        setp.ge.u32 %p1, %r1, 48;\n\
        @%p1 exit;\n\
        setp.lt.u32 %p2, %r1, 16;\n\
        @%p2 call (%r2), inc, (%r1);\n\
        ret;\n}\n";

    #[test]
    fn exits_and_calls_of_some_lanes_keep_the_wavefront_together() {
        let Ok(warps) = streams(EXIT_CALL, 64, 32) else { unreachable!() };
        let Ok(waves) = streams(EXIT_CALL, 64, 64) else { unreachable!() };
        let (warps, waves) = (&warps[0], &waves[0]);
        // Warp 0: mov setp exit(none) setp call(0–15) add ret(callee, 0–15) ret: 8 records.
        // Warp 1: mov setp exit(16–31) setp call(none) ret(0–15): 6.
        assert_eq!(warps.iter().map(Vec::len).collect::<Vec<_>>(), [8, 6]);
        // Static ids: the function's two instructions come first, then the kernel's.
        let (callee, k) = ((warps[0][5].0, warps[0][6].0), warps[0][0].0);
        let (all, low16, below48): (LaneMask, LaneMask, LaneMask) = (u64::MAX, 0xffff, (1 << 48) - 1);
        // The wavefront: the kernel's first five fused, the callee for lanes 0–15, then `ret`
        // for the 48 lanes that did not exit.
        let expected = vec![
            (k, all),
            (k + 1, all),
            (k + 2, all & !below48),
            (k + 3, below48),
            (k + 4, low16),
            (callee.0, low16),
            (callee.1, low16),
            (k + 5, below48),
        ];
        assert_eq!(waves[0], expected);
        assert_eq!(threads(waves), threads(warps));
    }

    /// Straight-line code: two instructions and `ret`.
    const STRAIGHT: &str = ".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry k()\n{\n\
        .reg .b32 %r<4>;\nmov.u32 %r1, %tid.x;\nadd.u32 %r2, %r1, 1;\nret;\n}\n";

    #[test]
    fn partial_blocks_make_partial_and_half_wavefronts() {
        // 40 threads: one wavefront of lanes 0–39 (half 1 has 8 lanes).
        let Ok(w40) = streams(STRAIGHT, 40, 64) else { unreachable!() };
        assert_eq!(w40[0], vec![vec![(0, (1 << 40) - 1), (1, (1 << 40) - 1), (2, (1 << 40) - 1)]]);
        // 96 threads: a full wavefront and one of half 0 only.
        let Ok(w96) = streams(STRAIGHT, 96, 64) else { unreachable!() };
        let lanes: Vec<Vec<LaneMask>> = w96[0].iter().map(|u| u.iter().map(|&(_, m)| m).collect()).collect();
        assert_eq!(lanes, vec![vec![u64::MAX; 3], vec![0xffff_ffff; 3]]);
    }

    /// Each thread adds 1 `n` times with a barrier per iteration: 5 instructions before the loop,
    /// 4 per iteration, `ret`.
    const BARRIER_LOOP: &str = ".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry k()\n{\n\
        .reg .b32 %r<4>;\n.reg .pred %p<2>;\n\
        mov.u32 %r1, 0;\nmov.u32 %r2, 12000;\nmov.u32 %r3, %tid.x;\nadd.u32 %r3, %r3, 1;\nmov.u32 %r1, 0;\n\
        LOOP:\nadd.u32 %r1, %r1, 1;\nbar.sync 0;\nsetp.lt.u32 %p1, %r1, %r2;\n@%p1 bra LOOP;\n\
        ret;\n}\n";

    #[test]
    fn a_cta_handed_out_in_pieces_merges_across_the_pieces() {
        // 4 warps × (5 + 12000 × 4 + 1) = 192024 warp-instructions: the CTA outgrows the 65536
        // it runs before it is handed out, and its wavefronts arrive in pieces.
        let Ok(warps) = streams(BARRIER_LOOP, 128, 32) else { unreachable!() };
        let Ok(waves) = streams(BARRIER_LOOP, 128, 64) else { unreachable!() };
        assert_eq!(warps[0].iter().map(Vec::len).collect::<Vec<_>>(), [48_006; 4]);
        // No divergence: each wavefront is one half's sequence with both halves' lanes.
        assert_eq!(waves[0].len(), 2);
        for wave in &waves[0] {
            assert_eq!(wave.len(), 48_006);
            assert!(wave.iter().zip(&warps[0][0]).all(|(&(a, m), &(b, _))| a == b && (m == u64::MAX || m == 0)));
        }
        assert_eq!(threads(&waves[0]), threads(&warps[0]));
    }

    #[test]
    fn code_that_depends_on_32_lane_warps_is_refused_with_its_line() {
        let lane = STRAIGHT.replace("mov.u32 %r1, %tid.x;", "mov.u32 %r1, %laneid;");
        let Err(e) = streams(&lane, 64, 64) else { unreachable!("%laneid ran on a 64-wide machine") };
        let mut e = e;
        e.locate(&lane);
        let text = alloc::format!("{e}");
        assert!(
            text.contains("line 7: `mov.u32 %r1, %laneid`") && text.contains("lane within a 32-thread warp"),
            "{text}"
        );
        let size = STRAIGHT.replace("add.u32 %r2, %r1, 1;", "add.u32 %r2, %r1, WARP_SZ;");
        let Err(e) = streams(&size, 64, 64) else { unreachable!("WARP_SZ ran on a 64-wide machine") };
        assert!(alloc::format!("{e}").contains("WARP_SZ"), "{e}");
        // The same kernels run on a 32-wide machine.
        assert!(streams(&lane, 64, 32).is_ok() && streams(&size, 64, 32).is_ok());
    }

    #[test]
    fn a_value_uniform_in_each_half_but_not_across_them_is_not_uniform_in_the_wavefront() {
        // %r2 = tid / 32 | 2: 2 in half 0, 3 in half 1 — uniform in each warp, with the same
        // significant bits (2 unsigned, 3 signed), so only the values tell them apart; %r3 = 7.
        let ptx =
            STRAIGHT.replace("add.u32 %r2, %r1, 1;", "shr.u32 %r2, %r1, 5;\nor.b32 %r2, %r2, 2;\nmov.u32 %r3, 7;");
        let module = crate::ptx::compile(&ptx).unwrap_or_default();
        let Some(gpu) = crate::gpu::presets::by_name("gcn3-cu") else { unreachable!() };
        let program = Program::decode(&module, &gpu);
        let Ok(setup) = LaunchSetup::from_json(r#"{"kernel": "k", "grid": [1], "block": [64], "params": []}"#) else {
            unreachable!()
        };
        let source = ExecSource::with_options(&module, &setup, &program, SourceOptions::for_gpu(&gpu, true));
        let Ok(Some(cta)) =
            source.and_then(|mut s| s.next_cta().map_err(|e| ExecError::InvalidLaunch { message: e.to_string() }))
        else {
            unreachable!()
        };
        let wave = &cta.warps[0];
        let uniform = |pc: u32| wave.values_at(pc).iter().map(|v| (v.uniform(), v.unsigned_bits())).collect::<Vec<_>>();
        assert_eq!(uniform(0), vec![(false, 6)], "tid 0..63");
        assert_eq!(uniform(1), vec![(false, 1)], "tid / 32: 0 or 1");
        assert_eq!(uniform(2), vec![(false, 2)], "2 or 3, uniform in each half only");
        assert_eq!(uniform(3), vec![(true, 3)], "7 in every lane");
    }
}
