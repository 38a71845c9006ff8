//! A scheme's rewritten kernel beside the original: the one place the CLI (`reglab rewrite`) and
//! the app's PTX diff view obtain the transformed module ([`transformed`]), and the line diff of
//! the two IR texts with, per changed row, why it changed, read from the scheme's [`InstMap`].
//!
//! ```text
//! original                         rewritten                        reason (tooltip)
//! ld.global.f32 %f2, [%rd7];                                        single-use load dropped: its
//!                                                                   value is read directly by `add…`
//! add.f32 %f3, %f2, %f1;           add.f32 %f3, %g[%rd7], %f1;      reads the dropped load `ld…`
//!                                                                   directly as a memory operand
//! ```
//!
//! Reasons by fate: a dropped instruction whose access a consumer absorbs (DeMO) names that
//! consumer, and the consumer names the load; a dropped instruction nobody absorbs was merged
//! (a fused pair: composite instructions): it names the nearest rewritten instruction of its
//! block, which names it back — the map does not say which fused instruction took it, so that
//! pairing is an inference; an inserted instruction (RegMutex) names the original it stands
//! before or after; any other kept instruction whose text changed says what it was. Both texts
//! are the IR's text form (`reglab parse`), so their lines are the instructions' own.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use super::{diff_lines, LineDiff, RowKind};
use crate::ir::print_inst::{write_inst, Names};
use crate::ir::{Function, Handle, Inst, Item, Module};
use crate::timing::program_map::{InstFate, InstMap};
use crate::timing::regfile::registry::transform_of;
use crate::timing::regfile::ResolvedScheme;

/// The module as scheme `scheme`'s program pass rewrites it, with where each instruction went;
/// `Ok(None)` when the scheme does not transform code.
pub fn transformed(module: &Module, scheme: &ResolvedScheme) -> Result<Option<(Module, InstMap)>, String> {
    match transform_of(scheme) {
        Some(t) => t(module).map(Some),
        None => Ok(None),
    }
}

/// The original and rewritten texts and their aligned rows, reasons attached (sent from a worker
/// to the page as JSON).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RewriteDiff {
    /// The original kernel's text form, by line.
    pub original: Vec<String>,
    /// The rewritten kernel's text form, by line.
    pub rewritten: Vec<String>,
    /// The aligned rows.
    pub diff: LineDiff,
}

/// The diff of `module` and scheme `scheme`'s rewrite of it; `Ok(None)` when the scheme does
/// not transform code, `Err` when its pass fails.
pub fn rewrite_diff(module: &Module, scheme: &ResolvedScheme) -> Result<Option<RewriteDiff>, String> {
    Ok(transformed(module, scheme)?.map(|(to, map)| diff_with_reasons(module, &to, &map)))
}

/// The diff of `from` and its rewrite `to`, with the reasons `map` gives.
pub fn diff_with_reasons(from: &Module, to: &Module, map: &InstMap) -> RewriteDiff {
    let original: Vec<String> = from.to_string().lines().map(String::from).collect();
    let rewritten: Vec<String> = to.to_string().lines().map(String::from).collect();
    let (a, b): (Vec<&str>, Vec<&str>) =
        (original.iter().map(String::as_str).collect(), rewritten.iter().map(String::as_str).collect());
    let mut diff = diff_lines(&a, &b);
    let (old_at, new_at) = (inst_lines(from, &a), inst_lines(to, &b));
    let mut why = Reasons::default();
    for (fh, func) in from.functions.iter() {
        explain_function(&mut why, Ctx { fh, func, map, old_at: &old_at, new_at: &new_at, a: &a, b: &b });
    }
    for r in &mut diff.rows {
        let mut parts: Vec<&str> = Vec::new();
        let lines = [r.old.and_then(|i| why.old.get(&i)), r.new.and_then(|i| why.new.get(&i))];
        for s in lines.into_iter().flatten().flatten() {
            if !parts.contains(&s.as_str()) {
                parts.push(s);
            }
        }
        r.reason = row_reason(r.kind, &parts);
    }
    RewriteDiff { original, rewritten, diff }
}

/// The tooltip of a row from its lines' reasons: a changed row shows both texts, so it leaves
/// out "rewritten as …" and "(was …)" unless nothing else is known.
fn row_reason(kind: RowKind, parts: &[&str]) -> Option<String> {
    let generic = |p: &&&str| p.starts_with("rewritten as ") || p.starts_with("rewritten by the scheme (was ");
    match kind {
        RowKind::Same => None,
        _ if parts.is_empty() => None,
        RowKind::Changed => {
            let specific: Vec<&str> = parts.iter().filter(|p| !generic(p)).copied().collect();
            Some(if specific.is_empty() { String::from("rewritten by the scheme") } else { specific.join("; ") })
        }
        _ => Some(parts.join("; ")),
    }
}

/// Line of each instruction (function, instruction) in `lines`, the text form of `module`: the
/// printer writes every defined function's blocks and instructions in order, one per line.
fn inst_lines(module: &Module, lines: &[&str]) -> BTreeMap<(u32, u32), usize> {
    let mut at = BTreeMap::new();
    let mut cursor = 0;
    for item in &module.items {
        let Item::Definition(fh) = *item else { continue };
        let Some(func) = module.functions.get(fh) else { continue };
        let Some(body) = &func.body else { continue };
        let names = Names { module, func, body };
        for (_, block) in body.blocks.iter() {
            for &ih in &block.insts {
                let Some(inst) = body.insts.get(ih) else { continue };
                let mut text = String::new();
                if write_inst(&mut text, &names, inst).is_err() {
                    continue;
                }
                text.push(';');
                let found = lines.iter().skip(cursor).position(|l| l.trim() == text);
                if let Some(p) = found {
                    at.insert((fh.raw(), ih.raw()), cursor + p);
                    cursor += p + 1;
                }
            }
        }
    }
    at
}

/// Reasons by line of the original (`old`) and of the rewritten text (`new`).
#[derive(Default)]
struct Reasons {
    old: BTreeMap<usize, Vec<String>>,
    new: BTreeMap<usize, Vec<String>>,
}

/// What explaining one function reads.
#[derive(Clone, Copy)]
struct Ctx<'a> {
    fh: Handle<Function>,
    func: &'a Function,
    map: &'a InstMap,
    old_at: &'a BTreeMap<(u32, u32), usize>,
    new_at: &'a BTreeMap<(u32, u32), usize>,
    a: &'a [&'a str],
    b: &'a [&'a str],
}

impl Ctx<'_> {
    fn old_line(&self, ih: Handle<Inst>) -> Option<usize> {
        self.old_at.get(&(self.fh.raw(), ih.raw())).copied()
    }
    fn new_line(&self, ih: Handle<Inst>) -> Option<usize> {
        self.new_at.get(&(self.fh.raw(), ih.raw())).copied()
    }
    fn old_text(&self, ih: Handle<Inst>) -> String {
        self.old_line(ih).and_then(|l| self.a.get(l)).map_or_else(|| format!("#{}", ih.raw()), |t| quoted(t))
    }
    fn new_text(&self, ih: Handle<Inst>) -> String {
        self.new_line(ih).and_then(|l| self.b.get(l)).map_or_else(|| format!("#{}", ih.raw()), |t| quoted(t))
    }
    /// Whether original `ih`, kept as `main`, reads differently now.
    fn changed(&self, ih: Handle<Inst>, main: Handle<Inst>) -> bool {
        let old = self.old_line(ih).and_then(|l| self.a.get(l));
        let new = self.new_line(main).and_then(|l| self.b.get(l));
        old.map(|s| s.trim()) != new.map(|s| s.trim())
    }
}

fn quoted(line: &str) -> String {
    format!("`{}`", line.trim())
}

fn add(map: &mut BTreeMap<usize, Vec<String>>, line: Option<usize>, text: String) {
    if let Some(l) = line {
        map.entry(l).or_default().push(text);
    }
}

/// The reasons for one function's rewritten lines (see the module notes).
fn explain_function(why: &mut Reasons, c: Ctx<'_>) {
    let Some(body) = &c.func.body else { return };
    let order: Vec<Handle<Inst>> = body.blocks.iter().flat_map(|(_, b)| b.insts.iter().copied()).collect();
    let kept = |ih: Handle<Inst>| c.map.fate(c.fh, ih).cloned().unwrap_or_else(|| InstFate::kept(ih));
    let mut absorbed: BTreeMap<u32, Handle<Inst>> = BTreeMap::new();
    let mut pending: Option<Handle<Inst>> = None;
    for &ih in &order {
        let fate = kept(ih);
        if fate.main.is_none() {
            pending = Some(ih);
        }
        let Some(main) = fate.main.filter(|_| fate.absorbs) else { continue };
        let Some(load) = c.map.absorbs_from(c.fh, ih).or(pending.take()) else { continue };
        absorbed.insert(load.raw(), ih);
        let text = format!("reads the dropped load {} directly as a memory operand", c.old_text(load));
        add(&mut why.new, c.new_line(main), text.clone());
        add(&mut why.old, c.old_line(ih), text);
    }
    for &ih in &order {
        let fate = kept(ih);
        for (list, place) in [(&fate.before, "before"), (&fate.after, "after")] {
            for &x in list {
                add(&mut why.new, c.new_line(x), format!("inserted by the scheme {place} {}", c.old_text(ih)));
            }
        }
        match fate.main {
            None => explain_dropped(why, &c, ih, absorbed.get(&ih.raw()).copied()),
            Some(main) if !fate.absorbs && c.changed(ih, main) => {
                add(&mut why.old, c.old_line(ih), format!("rewritten as {}", c.new_text(main)));
                add(&mut why.new, c.new_line(main), format!("rewritten by the scheme (was {})", c.old_text(ih)));
            }
            Some(_) => {}
        }
    }
}

/// Dropped original `ih`: a load absorbed by `consumer`, else one half of a fused pair.
fn explain_dropped(why: &mut Reasons, c: &Ctx<'_>, ih: Handle<Inst>, consumer: Option<Handle<Inst>>) {
    if let Some(user) = consumer {
        let main = c.map.fate(c.fh, user).and_then(|f| f.main).unwrap_or(user);
        let text = format!("single-use load dropped: its value is read directly by {}", c.new_text(main));
        return add(&mut why.old, c.old_line(ih), text);
    }
    let block = c.func.body.as_ref().and_then(|b| b.blocks.iter().find(|(_, bl)| bl.insts.contains(&ih)));
    let Some((_, block)) = block else { return };
    let fused = |x: &Handle<Inst>| {
        let main = c.map.fate(c.fh, *x).map_or(Some(*x), |f| f.main);
        main.filter(|&m| c.changed(*x, m)).map(|m| (*x, m))
    };
    let at = block.insts.iter().position(|&x| x == ih).unwrap_or(0);
    let after = block.insts.iter().skip(at + 1).find_map(fused);
    let before = block.insts.iter().take(at).rev().find_map(fused);
    let nearest = match (before, after) {
        (Some(b), Some(a)) => {
            let dist = |x: Handle<Inst>| block.insts.iter().position(|&y| y == x).unwrap_or(0).abs_diff(at);
            Some(if dist(a.0) < dist(b.0) { a } else { b })
        }
        (b, a) => b.or(a),
    };
    match nearest {
        Some((partner, main)) => {
            add(&mut why.old, c.old_line(ih), format!("merged into the fused instruction {}", c.new_text(main)));
            let text = format!("fused pair: {} with {}", c.old_text(partner), c.old_text(ih));
            add(&mut why.new, c.new_line(main), text);
        }
        None => add(&mut why.old, c.old_line(ih), "dropped by the scheme".to_string()),
    }
}
