//! The pieces of CTAs still being executed, shared by the timing runs of every scheme. A CTA
//! whose streams are not complete when it is handed out ([`CtaStream::more`]) is continued on
//! demand: a run whose warp has replayed everything it holds asks for that warp's next piece
//! ([`More::fetch`]); the source runs the CTA on and hands over what every warp recorded, and
//! the store keeps each piece until every run still going has taken it. Memory is bounded by the
//! CTAs in flight times the spread between the fastest and the slowest run, which the driver
//! keeps small ([`crate::timing::Simulation::step`]).
//!
//! ```text
//! CTA 3 warp 1: pieces [#4 #5]  taken by run 0 up to #5, by run 1 up to #4 → #4 leaves when run 1 takes #5
//! ```

use alloc::boxed::Box;
use alloc::collections::{BTreeMap, VecDeque};
use alloc::rc::Rc;
use alloc::vec::Vec;
use core::cell::RefCell;

use crate::timing::error::SourceError;
use crate::timing::program::Program;
use crate::timing::stream::trace::{CtaSource, WarpStream};
use crate::timing::value_stats::{PieceState, ValueStats};

/// What a CTA's warp gets back when it asks for more.
#[derive(Clone, Debug)]
pub enum Fetch {
    /// The next piece.
    Piece(Rc<WarpStream>),
    /// The warp's stream is complete (or the source failed: [`Store::failure`] says so).
    End,
}

/// A piece of a warp's stream as a source hands it over.
#[derive(Clone, Debug, Default)]
pub struct Piece {
    /// Warp index in the CTA.
    pub warp: usize,
    /// The instructions, from where the warp's last piece ended.
    pub stream: WarpStream,
    /// The warp has no more instructions after these.
    pub last: bool,
}

/// A CTA handed out before it finished: how to ask for the rest.
#[derive(Clone, Default)]
pub struct More {
    /// The store (set by the feed; `None` as the source hands the CTA out).
    pub store: Option<Rc<RefCell<Store>>>,
    /// The CTA's number in execution order.
    pub cta: u64,
    /// Per warp: its stream is already complete.
    pub done: Vec<bool>,
}

impl core::fmt::Debug for More {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "More {{ cta: {}, done: {:?} }}", self.cta, self.done)
    }
}

impl PartialEq for More {
    fn eq(&self, o: &More) -> bool {
        self.cta == o.cta && self.done == o.done
    }
}

impl Eq for More {}

impl More {
    /// Piece number `k` (1 is the first after the CTA's handed-out stream) of warp `warp`, for
    /// run `run`.
    pub fn fetch(&self, run: usize, warp: usize, k: u32) -> Fetch {
        if self.done.get(warp).copied().unwrap_or(true) {
            return Fetch::End;
        }
        match &self.store {
            Some(s) => s.borrow_mut().fetch(self.cta, run, warp, k),
            None => Fetch::End,
        }
    }
}

#[derive(Default)]
struct WarpPieces {
    pieces: VecDeque<Rc<WarpStream>>,
    /// Number of `pieces[0]`.
    first: u32,
    /// Per run: the next piece it will take.
    next: Vec<u32>,
    last: bool,
    values: PieceState,
}

/// The shared pieces, and the source they come from.
pub struct Store {
    source: Box<dyn CtaSource>,
    program: Rc<Program>,
    open: BTreeMap<u64, Vec<WarpPieces>>,
    /// Per run: it has ended (its takes no longer hold pieces).
    ended: Vec<bool>,
    failed: Option<SourceError>,
    /// Value statistics of the pieces (and of the CTAs, counted by the feed).
    pub values: ValueStats,
    held: u64,
    /// The most warp-instructions held in pieces at any time.
    pub max_held: u64,
    /// Per run: pieces it has taken.
    taken: Vec<u64>,
}

impl Store {
    /// A store over `source` for `runs` timing runs.
    pub fn new(source: Box<dyn CtaSource>, program: Rc<Program>, runs: usize) -> Self {
        let values = ValueStats::new(&program);
        Store {
            source,
            program,
            open: BTreeMap::new(),
            ended: alloc::vec![false; runs],
            failed: None,
            values,
            held: 0,
            max_held: 0,
            taken: alloc::vec![0; runs],
        }
    }

    /// Takes the source out (leaving an empty one).
    pub fn take_source(&mut self) -> Box<dyn CtaSource> {
        core::mem::replace(&mut self.source, Box::new(crate::timing::stream::trace::VecSource::default()))
    }

    /// The program the streams refer to.
    pub fn program(&self) -> Rc<Program> {
        Rc::clone(&self.program)
    }

    /// The source.
    pub fn source(&mut self) -> &mut dyn CtaSource {
        &mut *self.source
    }

    /// The source, to read.
    pub fn source_ref(&self) -> &dyn CtaSource {
        &*self.source
    }

    /// Warp-instructions held in pieces now.
    pub fn held(&self) -> u64 {
        self.held
    }

    /// Pieces run `run` has taken.
    pub fn taken(&self, run: usize) -> u64 {
        self.taken.get(run).copied().unwrap_or(0)
    }

    /// What continuing a CTA failed with, if it did.
    pub fn failure(&self) -> Option<&SourceError> {
        self.failed.as_ref()
    }

    /// Counts the first stream of CTA `cta` (handed out before it finished) and starts keeping
    /// its pieces.
    pub fn opened(&mut self, cta: u64, first: &[WarpStream], done: &[bool]) {
        let runs = self.ended.len();
        let mut warps = Vec::with_capacity(first.len());
        for (i, w) in first.iter().enumerate() {
            let last = done.get(i).copied().unwrap_or(true);
            let mut p = WarpPieces { first: 1, next: alloc::vec![1; runs], last, ..WarpPieces::default() };
            self.values.add_piece(w, &mut p.values, last);
            warps.push(p);
        }
        self.open.insert(cta, warps);
    }

    /// Run `run` has ended: it takes no more pieces.
    pub fn run_ended(&mut self, run: usize) {
        if let Some(e) = self.ended.get_mut(run) {
            *e = true;
        }
        let keys: Vec<u64> = self.open.keys().copied().collect();
        for k in keys {
            for w in 0..self.open.get(&k).map_or(0, Vec::len) {
                self.drop_taken(k, w);
            }
        }
    }

    fn fetch(&mut self, cta: u64, run: usize, warp: usize, k: u32) -> Fetch {
        loop {
            let Some(p) = self.open.get_mut(&cta).and_then(|ws| ws.get_mut(warp)) else { return Fetch::End };
            if let Some(piece) = k.checked_sub(p.first).and_then(|i| p.pieces.get(i as usize)).cloned() {
                if let Some(n) = p.next.get_mut(run) {
                    *n = k + 1;
                }
                if let Some(t) = self.taken.get_mut(run) {
                    *t += 1;
                }
                self.drop_taken(cta, warp);
                return Fetch::Piece(piece);
            }
            if p.last || self.failed.is_some() {
                return Fetch::End;
            }
            match self.source.more(cta, warp) {
                Ok(pieces) => self.add(cta, pieces),
                Err(e) => self.failed = Some(e),
            }
        }
    }

    fn add(&mut self, cta: u64, pieces: Vec<Piece>) {
        let Some(ws) = self.open.get_mut(&cta) else { return };
        for piece in pieces {
            let Some(p) = ws.get_mut(piece.warp) else { continue };
            if let Err(e) = piece.stream.validate(self.program.insts.len()) {
                self.failed = Some(SourceError::Stream(alloc::format!("CTA {cta} warp {}: {e}", piece.warp)));
                return;
            }
            self.values.add_piece(&piece.stream, &mut p.values, piece.last);
            p.last = piece.last;
            if piece.stream.held() > 0 {
                self.held += piece.stream.held();
                p.pieces.push_back(Rc::new(piece.stream));
            }
        }
        self.max_held = self.max_held.max(self.held);
    }

    /// Drops the pieces of `cta`'s warp `warp` every run still going has taken.
    fn drop_taken(&mut self, cta: u64, warp: usize) {
        let Some(ws) = self.open.get_mut(&cta) else { return };
        let Some(p) = ws.get_mut(warp) else { return };
        let ended = &self.ended;
        let low = p.next.iter().zip(ended).filter(|(_, &e)| !e).map(|(&n, _)| n).min().unwrap_or(u32::MAX);
        while p.first < low {
            let Some(x) = p.pieces.pop_front() else { break };
            self.held -= x.held();
            p.first += 1;
        }
        if ws.iter().all(|p| p.last && p.pieces.is_empty()) {
            self.open.remove(&cta);
        }
    }
}
