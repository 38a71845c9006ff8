//! The executor on a thread of its own, ahead of the timing model (native only; the browser has
//! its workers). [`Pipelined`] is a [`CtaSource`] whose [`ExecSource`] lives on a second
//! thread. While no CTA is open, that thread runs the next CTAs before they are asked for and
//! queues them (up to [`DEPTH`] CTAs, each handed out whole, so within the executor's first
//! 65 536 warp-instructions of a CTA: at most about a million warp-instructions held), so the
//! functional run and the timing model overlap on two cores; otherwise it waits for a call.
//!
//! The timing model sees exactly what it would see from the executor itself: with no CTA open,
//! the only call it can make next is `next_cta`, so making it early changes nothing the
//! executor does (a CTA handed out open stops the run-ahead until none is open again, and
//! `more` is always answered in turn). What the timing model may ask between calls — `ready`,
//! `notices` — is answered as of the last reply it has taken, not the CTAs run ahead: each
//! reply carries both, and whether the thread goes on by itself after it (then the next CTA is
//! simply received; else it is asked for). `cli/tests/pipelined_cli.rs` compares reports byte
//! for byte.
//!
//! ```text
//! timing model:  next ─────────▶ (CTA 0)   next ─▶ (CTA 1, already there)   next ─▶ …
//! executor:      run CTA 0 ─▶ run CTA 1 ─▶ run CTA 2 ─▶ … (up to DEPTH ahead) ─▶ wait
//! ```

use std::sync::mpsc::{channel, sync_channel, Receiver, Sender, SyncSender};

use sim_core::exec::Notice;
use sim_core::timing::error::SourceError;
use sim_core::timing::stream::exec_source::ExecSource;
use sim_core::timing::stream::store::{More, Piece};
use sim_core::timing::{CtaSource, CtaStream, LaunchShape, WarpStream};

/// CTAs the executor runs ahead of the timing model, at most.
pub const DEPTH: usize = 16;

/// A CTA as it crosses threads (a [`CtaStream`] without the feed's store, which the source
/// never sets).
struct Cta {
    launch: u32,
    shape: LaunchShape,
    warps: Vec<WarpStream>,
    /// Handed out open: its number and which warps are complete.
    more: Option<(u64, Vec<bool>)>,
}

impl Cta {
    fn of(c: CtaStream) -> Cta {
        Cta { launch: c.launch, shape: c.shape, warps: c.warps, more: c.more.map(|m| (m.cta, m.done)) }
    }

    fn stream(self) -> CtaStream {
        let more = self.more.map(|(cta, done)| More { store: None, cta, done });
        CtaStream { launch: self.launch, shape: self.shape, warps: self.warps, more }
    }
}

/// A call to the executor.
enum Call {
    Next,
    More(u64, usize),
}

/// What a call gave, with the executor's state right after it.
struct Reply<T> {
    value: Result<T, SourceError>,
    /// [`CtaSource::ready`] after the call.
    ready: bool,
    /// [`CtaSource::notices`] after the call, when they changed.
    notices: Option<Vec<Notice>>,
    /// The thread runs the next CTA by itself: no CTA is open and the executor has not ended.
    goes_on: bool,
}

enum Answer {
    Cta(Reply<Option<Cta>>),
    Pieces(Reply<Vec<Piece>>),
}

/// An [`ExecSource`] run on its own thread, ahead of the timing model.
pub struct Pipelined {
    calls: Sender<Call>,
    answers: Receiver<Answer>,
    ready: bool,
    notices: Vec<Notice>,
    /// The last reply said the thread goes on by itself: the next CTA comes unasked.
    goes_on: bool,
    total: Option<u64>,
    sampling: Option<(u64, u64)>,
    lanes: u32,
}

impl Pipelined {
    /// Moves `source` onto a new thread. If the thread cannot be started, the source is run
    /// on the caller's thread as usual.
    pub fn start(source: ExecSource) -> Box<dyn CtaSource> {
        let (calls, inbox) = channel::<Call>();
        let (outbox, answers) = sync_channel::<Answer>(DEPTH);
        let (ready, notices) = (source.ready(), source.notices());
        let (total, sampling, lanes) = (source.total_ctas(), source.sampling(), source.lanes());
        let cell = std::sync::Arc::new(std::sync::Mutex::new(Some(source)));
        let moved = std::sync::Arc::clone(&cell);
        let spawned = std::thread::Builder::new().name(String::from("reglab-executor")).spawn(move || {
            let taken = moved.lock().ok().and_then(|mut s| s.take());
            if let Some(source) = taken {
                Worker::new(source).serve(&inbox, &outbox);
            }
        });
        if spawned.is_err() {
            if let Some(source) = cell.lock().ok().and_then(|mut s| s.take()) {
                return Box::new(source);
            }
        }
        Box::new(Pipelined { calls, answers, ready, notices, goes_on: true, total, sampling, lanes })
    }

    /// The next answer: one that comes unasked while the thread goes on, else the answer to
    /// `call`.
    fn ask(&mut self, call: Call) -> Result<Answer, SourceError> {
        let stopped = || SourceError::Stream(String::from("the executor's thread stopped"));
        if !self.goes_on {
            self.calls.send(call).map_err(|_| stopped())?;
        }
        self.answers.recv().map_err(|_| stopped())
    }

    fn take<T>(&mut self, reply: Reply<T>) -> Result<T, SourceError> {
        self.ready = reply.ready;
        self.goes_on = reply.goes_on;
        if let Some(n) = reply.notices {
            self.notices = n;
        }
        reply.value
    }
}

impl CtaSource for Pipelined {
    fn next_cta(&mut self) -> Result<Option<CtaStream>, SourceError> {
        match self.ask(Call::Next)? {
            Answer::Cta(r) => Ok(self.take(r)?.map(Cta::stream)),
            Answer::Pieces(_) => Err(SourceError::Stream(String::from("the executor answered out of turn"))),
        }
    }

    fn more(&mut self, cta: u64, warp: usize) -> Result<Vec<Piece>, SourceError> {
        if self.goes_on {
            // No CTA is open: the executor itself would hand out nothing.
            return Ok(Vec::new());
        }
        match self.ask(Call::More(cta, warp))? {
            Answer::Pieces(r) => self.take(r),
            Answer::Cta(_) => Err(SourceError::Stream(String::from("the executor answered out of turn"))),
        }
    }

    fn ready(&self) -> bool {
        self.ready
    }

    fn sampling(&self) -> Option<(u64, u64)> {
        self.sampling
    }

    fn lanes(&self) -> u32 {
        self.lanes
    }

    fn total_ctas(&self) -> Option<u64> {
        self.total
    }

    fn notices(&self) -> Vec<Notice> {
        self.notices.clone()
    }
}

/// The executor's side.
struct Worker {
    source: ExecSource,
    /// The executor handed out its last CTA (or failed).
    ended: bool,
    notices: Vec<Notice>,
}

impl Worker {
    fn new(source: ExecSource) -> Worker {
        let notices = source.notices();
        Worker { source, ended: false, notices }
    }

    /// Runs ahead while it may (blocking when [`DEPTH`] CTAs wait), else answers calls.
    fn serve(mut self, inbox: &Receiver<Call>, outbox: &SyncSender<Answer>) {
        let mut goes_on = true;
        loop {
            let answer = if goes_on {
                Answer::Cta(self.next())
            } else {
                match inbox.recv() {
                    Ok(Call::Next) => Answer::Cta(self.next()),
                    Ok(Call::More(cta, warp)) => {
                        let value = self.source.more(cta, warp);
                        Answer::Pieces(self.reply(value))
                    }
                    Err(_) => return,
                }
            };
            goes_on = match &answer {
                Answer::Cta(r) => r.goes_on,
                Answer::Pieces(r) => r.goes_on,
            };
            if outbox.send(answer).is_err() {
                return;
            }
        }
    }

    /// The executor's next CTA.
    fn next(&mut self) -> Reply<Option<Cta>> {
        let value = self.source.next_cta().map(|c| c.map(Cta::of));
        self.ended |= !matches!(&value, Ok(Some(_)));
        self.reply(value)
    }

    fn reply<T>(&mut self, value: Result<T, SourceError>) -> Reply<T> {
        let now = self.source.notices();
        let notices = (now != self.notices).then(|| {
            self.notices = now.clone();
            now
        });
        let goes_on = value.is_ok() && !self.ended && self.source.open_ctas() == 0;
        Reply { value, ready: self.source.ready(), notices, goes_on }
    }
}
