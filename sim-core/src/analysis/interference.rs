//! The interference graph the register allocation estimate colours, and copy coalescing on it.
//!
//! ```text
//! mov.u32 %r2, %r1;        // %r2 does not interfere with %r1 here (a copy): coalescable
//! add.s32 %r3, %r2, 1;     // %r3 interferes with every value live after this instruction
//! div.rn.f32 %f3, %f1, %f2; // scratch node: interferes with everything live across it
//! ```
//!
//! Nodes are the allocation webs (see `alloc_values`) followed by one scratch node per
//! instruction whose SASS expansion needs scratch registers ([`AllocTarget::scratch`]).

use alloc::vec;
use alloc::vec::Vec;

use super::alloc_target::AllocTarget;
use super::alloc_values::{is_copy, Values, Web};
use super::cfg::Cfg;
use super::def_use::DefUse;
use super::live_solver::{solve, Boundary, Effects};
use super::loops::Loops;
use crate::ir::{Body, Handle, Inst};

/// The interference graph: nodes are webs then scratch nodes, with their size in units (0: needs
/// no register) and the instruction of each scratch node.
pub(crate) struct Graph {
    pub adj: Vec<Vec<u32>>,
    /// Per web, the webs an arithmetic instruction reads together with it (register-bank
    /// neighbours, see [`Groups::colour`]).
    pub co_read: Vec<Vec<u32>>,
    pub units: Vec<u32>,
    pub scratch: Vec<Handle<Inst>>,
    live_out: super::bitset::BitMatrix,
}

impl Graph {
    /// Rematerialised webs are defined at their sink points (`sinks`: loaded into a register just
    /// before that instruction) and used only where a register is needed.
    pub fn build(
        body: &Body,
        cfg: &Cfg,
        du: &DefUse,
        values: &Values,
        sinks: &[(Handle<Inst>, Web)],
        target: AllocTarget,
    ) -> Graph {
        let n = values.len();
        let mut sink_at: Vec<Vec<Web>> = vec![Vec::new(); body.insts.len()];
        sinks.iter().for_each(|&(ih, w)| sink_at[ih.index()].push(w));
        // A rematerialised web never loaded into a register takes none.
        let mut units: Vec<u32> = (0..n).map(|w| if values.remat[w] { 0 } else { values.units[w] }).collect();
        sinks.iter().for_each(|&(_, w)| units[w as usize] = values.units[w as usize]);
        let effects = web_effects(body, du, values, &sink_at, &units);
        let live = solve(body, cfg, &effects, &Boundary::default());
        let mut g = Graph {
            adj: vec![Vec::new(); n],
            co_read: vec![Vec::new(); n],
            units,
            scratch: Vec::new(),
            live_out: live.inst_out,
        };
        for (ih, inst) in body.insts.iter() {
            let live_in: Vec<u32> = live.inst_in.row(ih.index()).iter().map(|w| w as u32).collect();
            g.instruction_edges(ih, inst, &effects, &live_in, &sink_at[ih.index()], target);
        }
        for (ih, inst) in body.insts.iter() {
            if !crate::analysis::latency_schedule::is_pure(inst) {
                continue;
            }
            let reads: Vec<u32> = effects.uses(ih).iter().map(|r| r.0).collect();
            for &a in &reads {
                for &b in &reads {
                    if a != b {
                        g.co_read[a as usize].push(b);
                    }
                }
            }
        }
        for a in g.adj.iter_mut().chain(g.co_read.iter_mut()) {
            crate::sorting::sort(a);
            a.dedup();
        }
        g
    }

    /// Edges at one instruction: its results interfere with each other and with everything live
    /// after it (a copy's source aside); a value loaded just before it with everything it reads;
    /// its scratch registers with everything live across it.
    fn instruction_edges(
        &mut self,
        ih: Handle<Inst>,
        inst: &Inst,
        effects: &Effects,
        live_in: &[u32],
        sunk: &[Web],
        target: AllocTarget,
    ) {
        let copy_src = if is_copy(inst) { effects.uses(ih).first().map(|r| r.0) } else { None };
        let defs: Vec<u32> = effects.defs(ih).iter().map(|r| r.0).collect();
        let out: Vec<u32> = self.live_out.row(ih.index()).iter().map(|w| w as u32).collect();
        for &d in &defs {
            let results = defs.iter().filter(|&&x| !sunk.contains(&x) && !sunk.contains(&d));
            for &w in out.iter().chain(results) {
                if w != d && Some(w) != copy_src {
                    self.edge(d, w);
                }
            }
        }
        for &w in sunk {
            live_in.iter().filter(|&&x| x != w).for_each(|&x| self.edge(w, x));
        }
        let temps = target.scratch(inst);
        if temps > 0 {
            let t = self.adj.len() as u32;
            self.adj.push(Vec::new());
            self.units.push(temps);
            self.scratch.push(ih);
            for &x in live_in.iter().chain(&out).chain(&defs) {
                self.edge(t, x);
            }
        }
    }

    fn edge(&mut self, a: u32, b: u32) {
        self.adj[a as usize].push(b);
        self.adj[b as usize].push(a);
    }

    /// Registers holding values live after `call` (other than its results).
    pub fn live_across(&self, call: Handle<Inst>, groups: &Groups, start: &[Option<u32>]) -> u32 {
        let mut regs: Vec<u32> = Vec::new();
        for w in self.live_out.row(call.index()).iter() {
            let g = groups.find_const(w as u32) as usize;
            if let Some(s) = start.get(g).copied().flatten() {
                regs.extend(s..s + groups.units[g]);
            }
        }
        crate::sorting::sort(&mut regs);
        regs.dedup();
        regs.len() as u32
    }
}

/// Slots (one per web) each instruction writes and reads for the allocator: rematerialised webs
/// are written at their sink points and read only where a register is needed.
fn web_effects(body: &Body, du: &DefUse, values: &Values, sink_at: &[Vec<Web>], units: &[u32]) -> Effects {
    Effects::build(body, values.len(), |ih, inst, f| {
        for &d in du.defs_at(ih) {
            let w = values.web_of_def[d as usize] as usize;
            if !values.remat[w] && units[w] > 0 {
                f(w..w + 1, true);
            }
        }
        for &w in &sink_at[ih.index()] {
            f(w as usize..w as usize + 1, true);
        }
        for &u in du.uses_at(ih) {
            let Some(w) = values.web_of_use(du, u).map(|w| w as usize) else { continue };
            let needed = !values.remat[w] || values.use_needs_register(inst, du.uses()[u as usize].reg, w as Web);
            if needed && units[w] > 0 {
                f(w..w + 1, false);
            }
        }
    })
}

/// Webs merged by coalescing (union-find), with their adjacency and sizes.
pub(crate) struct Groups {
    pub n: usize,
    parent: Vec<u32>,
    adj: Vec<Vec<u32>>,
    pub units: Vec<u32>,
    skip: Vec<bool>,
    /// Whether a 64- or 128-bit value starts at a multiple of its size (optimised code); debug
    /// code places it at any register (`AllocTarget::debug`).
    pub aligned: bool,
}

impl Groups {
    pub fn new(adj: Vec<Vec<u32>>, units: Vec<u32>) -> Groups {
        let n = adj.len();
        let skip: Vec<bool> = units.iter().map(|&u| u == 0).collect();
        Groups { n, parent: (0..n as u32).collect(), adj, units, skip, aligned: true }
    }

    fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let grand = self.parent[self.parent[x as usize] as usize];
            self.parent[x as usize] = grand;
            x = grand;
        }
        x
    }

    pub fn find_const(&self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            x = self.parent[x as usize];
        }
        x
    }

    fn interferes(&mut self, a: u32, b: u32) -> bool {
        let list = core::mem::take(&mut self.adj[a as usize]);
        let hit = list.iter().any(|&x| self.find(x) == b);
        self.adj[a as usize] = list;
        hit
    }

    /// Merges copy-related webs that do not interfere, copies in inner loops first.
    pub fn coalesce(&mut self, values: &Values, loops: &Loops, cfg: &Cfg) {
        let mut copies = values.copies.clone();
        let depth = |ih: Handle<Inst>| cfg.position(ih).map_or(0, |(b, _)| loops.depth(b));
        crate::sorting::sort_by_key(&mut copies, |&(ih, _, _)| (core::cmp::Reverse(depth(ih)), ih));
        for (_, dst, src) in copies {
            let (a, b) = (self.find(dst), self.find(src));
            if a == b
                || self.skip[a as usize]
                || self.skip[b as usize]
                || self.units[a as usize] != self.units[b as usize]
            {
                continue;
            }
            if self.interferes(a, b) || self.interferes(b, a) {
                continue;
            }
            let (keep, gone) = if a < b { (a, b) } else { (b, a) };
            self.parent[gone as usize] = keep;
            let moved = core::mem::take(&mut self.adj[gone as usize]);
            self.adj[keep as usize].extend(moved);
        }
    }

    /// Greedy colouring in `order`; returns each group's first register.
    ///
    /// With `co_read` (each web's register-bank neighbours, [`Graph::co_read`]), a group takes,
    /// among the free runs from its lowest one up to one round of the four banks further, the
    /// first whose banks no already-coloured neighbour occupies (the lowest free run if none).
    pub fn colour(&mut self, order: &[u32], reserved: u32, co_read: Option<&[Vec<u32>]>) -> Vec<Option<u32>> {
        let banks = co_read.map(|co| {
            let mut members: Vec<Vec<u32>> = vec![Vec::new(); self.n];
            for w in 0..self.n as u32 {
                members[self.find_const(w) as usize].push(w);
            }
            (co, members)
        });
        let mut start: Vec<Option<u32>> = vec![None; self.n];
        let mut busy: Vec<bool> = Vec::new();
        for &g in order {
            let g = self.find(g);
            if start[g as usize].is_some() || self.skip[g as usize] {
                continue;
            }
            busy.iter_mut().for_each(|b| *b = false);
            if busy.len() <= reserved as usize {
                busy.resize(reserved as usize + 1, false);
            }
            busy[reserved as usize] = true;
            let list = core::mem::take(&mut self.adj[g as usize]);
            for &x in &list {
                let x = self.find(x) as usize;
                if let Some(s) = start[x] {
                    let end = (s + self.units[x]) as usize;
                    if busy.len() < end {
                        busy.resize(end, false);
                    }
                    busy[s as usize..end].iter_mut().for_each(|b| *b = true);
                }
            }
            self.adj[g as usize] = list;
            let size = self.units[g as usize].max(1);
            let align = if size >= 2 && self.aligned {
                if size == 4 {
                    4
                } else {
                    2
                }
            } else {
                1
            };
            let free = |s: u32| !(s..s + size).any(|r| busy.get(r as usize).copied().unwrap_or(false));
            let mut s = 0u32;
            while !free(s) {
                s += align;
            }
            if let Some((co, members)) = banks.as_ref() {
                // Register banks (index mod 4 before Volta): a value avoids the banks of values
                // an instruction reads together with it, if a free register within the next
                // round of banks allows it (see `AllocTarget::avoids_bank_conflicts`).
                let mut taken = [false; 4];
                for &w in members.get(g as usize).map_or(&[][..], |v| v.as_slice()) {
                    for &x in co.get(w as usize).map_or(&[][..], |v| v.as_slice()) {
                        let x = self.find_const(x) as usize;
                        if let Some(xs) = start[x].filter(|_| x != g as usize) {
                            (xs..xs + self.units[x]).for_each(|r| taken[(r % 4) as usize] = true);
                        }
                    }
                }
                let clash = |s: u32| (s..s + size).any(|r| taken[(r % 4) as usize]);
                if let Some(t) = (s..s + 4).step_by(align as usize).find(|&t| free(t) && !clash(t)) {
                    s = t;
                }
            }
            start[g as usize] = Some(s);
        }
        start
    }
}
