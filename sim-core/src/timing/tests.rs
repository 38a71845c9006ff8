//! Unit tests of the timing model's parts; whole-kernel tests with hand-worked cycle counts are
//! the file tests in `tests/cases/timing`.

use alloc::vec;
use alloc::vec::Vec;

use super::{Program, Simulation, TimingOptions};
use crate::gpu::{presets, CacheConfig, SchedulingPolicy};
use crate::timing::memory::{cache::Lookup, cache::TagArray, coalescer, shared_banks};
use crate::timing::regfile::bank::Banks;
use crate::timing::regfile::operand_collector::CollectorPool;
use crate::timing::regfile::{SchemeContext, SmGeometry};
use crate::timing::sm::scheduler::Scheduler;
use crate::timing::stream::trace::{CtaStream, LaunchShape, VecSource, WarpStream};
use crate::timing::value_stats::ValueStats;

#[test]
fn coalescing_counts_128_byte_segments() {
    let mut out = Vec::new();
    let consecutive: Vec<u64> = (0..32).map(|l| 0x1000 + 4 * l).collect();
    coalescer::segments(&consecutive, 4, 128, &mut out);
    assert_eq!(out, vec![0x1000 / 128]);
    let strided: Vec<u64> = (0..32).map(|l| 0x1000 + 128 * l).collect();
    coalescer::segments(&strided, 4, 128, &mut out);
    assert_eq!(out.len(), 32);
    let straddling = [126u64];
    coalescer::segments(&straddling, 4, 128, &mut out);
    assert_eq!(out, vec![0, 1]);
}

#[test]
fn shared_memory_conflict_degree() {
    let mut scratch = Vec::new();
    let words: Vec<u64> = (0..32).map(|l| 4 * l).collect();
    assert_eq!(shared_banks::conflict_degree(&words, 4, 32, 4, &mut scratch), 1);
    let broadcast = [64u64; 32];
    assert_eq!(shared_banks::conflict_degree(&broadcast, 4, 32, 4, &mut scratch), 1);
    let column: Vec<u64> = (0..32).map(|l| 128 * l).collect();
    assert_eq!(shared_banks::conflict_degree(&column, 4, 32, 4, &mut scratch), 32);
    let two_way: Vec<u64> = (0..32).map(|l| 8 * l).collect();
    assert_eq!(shared_banks::conflict_degree(&two_way, 4, 32, 4, &mut scratch), 2);
}

#[test]
fn cache_hits_after_fill_and_evicts_lru() {
    let cfg = CacheConfig { size_bytes: 256, line_bytes: 128, associativity: 2, hit_latency: 10, mshrs: 1 };
    let mut tags = TagArray::new(&cfg);
    assert_eq!(tags.access(7, false), Lookup::Miss);
    tags.fill(7, 100, false);
    assert_eq!(tags.access(7, false), Lookup::Hit { ready: 100 });
    tags.fill(8, 0, true);
    tags.access(7, false);
    assert_eq!(tags.fill(9, 0, false), Some(8), "the dirty LRU line 8 is written back");
    assert_eq!(tags.mshr_free_at(50), 50);
    tags.mshr_allocate(50, 120);
    assert_eq!(tags.mshr_free_at(60), 120, "one MSHR, busy until 120");
}

#[test]
fn bank_mapping_and_one_read_per_bank() {
    let banks = Banks::new(16, 4);
    assert_eq!(banks.bank(5, 0, 1), 4 + 1, "sub-core 1 owns banks 4..8; (5 + 0) % 4 = 1");
    assert_eq!(banks.bank(5, 3, 0), 0);
    let gpu = presets::volta_v100();
    let geo = SmGeometry { schedulers: 4, groups: 4, warp_size: 32, max_warps: 64 };
    let mut cus = CollectorPool::new(&gpu, &geo);
    let mut banks = Banks::new(16, 4);
    let cu = cus.try_allocate(0, 2).unwrap_or(u32::MAX);
    banks.request(cu, 0, 0, 0);
    banks.request(cu, 4, 0, 0);
    let mut done = Vec::new();
    banks.arbitrate(1, &mut cus);
    cus.drain_done(&mut done);
    assert!(done.is_empty(), "registers 0 and 4 share bank 0: one read per cycle");
    banks.arbitrate(2, &mut cus);
    cus.drain_done(&mut done);
    assert_eq!(done, vec![cu]);
    assert_eq!(banks.read_read, 1);
}

#[test]
fn scheduler_orders() {
    let order = |policy, last: Option<u32>| {
        let mut s = Scheduler::new(policy);
        for w in [8, 3, 5] {
            s.add(w);
        }
        if let Some(l) = last {
            s.issued(l);
        }
        let start = s.start();
        (0..s.len()).filter_map(|i| s.nth(start, i)).collect::<Vec<_>>()
    };
    assert_eq!(order(SchedulingPolicy::Lrr, Some(5)), vec![8, 3, 5]);
    assert_eq!(order(SchedulingPolicy::Gto, Some(5)), vec![5, 8, 3]);
    assert_eq!(order(SchedulingPolicy::OldestFirst, Some(5)), vec![8, 3, 5]);
}

fn straight_line(src: &str, warps: usize) -> (Program, CtaStream) {
    let module = crate::ptx::compile(src).unwrap_or_default();
    let gpu = presets::hopper_h100();
    let program = Program::decode(&module, &gpu);
    let n = program.insts.len() as u32;
    let warp = WarpStream::from_plain((0..n).map(|sid| (sid, u32::MAX)));
    let shape = LaunchShape { kernel: 0, threads: 32 * warps as u32, dynamic_smem: 0 };
    (program, CtaStream { launch: 0, shape, warps: vec![warp; warps], more: None })
}

const CHAIN: &str = ".version 7.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n.reg .f32 %f<4>;\n\
    mov.f32 %f1, 0f3F800000;\nadd.f32 %f2, %f1, %f1;\nadd.f32 %f3, %f2, %f1;\nret;\n}\n";

#[test]
fn value_statistics_count_reads_and_distances() {
    let (program, cta) = straight_line(CHAIN, 1);
    let mut stats = ValueStats::new(&program);
    for w in &cta.warps {
        stats.add_warp(w);
    }
    let r = stats.report();
    // %f1 read twice (distances 1 and 2), %f2 once (distance 1), %f3 never.
    assert_eq!((r.reads_per_value.zero, r.reads_per_value.one, r.reads_per_value.two), (1, 1, 1));
    assert_eq!(r.reads, 3);
    assert_eq!(r.distance_cdf.first().map(|p| p.cumulative_fraction), Some(2.0 / 3.0));
}

/// CTAs `0..n`, failing at CTA `fail`; counts the CTAs pulled.
struct CountingSource {
    cta: CtaStream,
    n: u64,
    fail: u64,
    pulled: alloc::rc::Rc<core::cell::Cell<u64>>,
}

impl crate::timing::stream::trace::CtaSource for CountingSource {
    fn next_cta(&mut self) -> Result<Option<CtaStream>, crate::timing::error::SourceError> {
        let k = self.pulled.get();
        self.pulled.set(k + 1);
        match k {
            _ if k == self.fail => Err(alloc::format!("CTA {k} faulted").into()),
            _ if k >= self.n => Ok(None),
            _ => Ok(Some(self.cta.clone())),
        }
    }
}

#[test]
fn the_feed_pulls_ahead_in_batches_but_counts_and_fails_only_what_is_asked_for() {
    let (program, cta) = straight_line(CHAIN, 2);
    let pulled = alloc::rc::Rc::new(core::cell::Cell::new(0));
    let source = CountingSource { cta: cta.clone(), n: 100, fail: 12, pulled: pulled.clone() };
    let mut feed = crate::timing::stream::feed::Feed::new(alloc::boxed::Box::new(source), &program);
    let one_cta = |k: usize| {
        let mut v = ValueStats::new(&program);
        for _ in 0..k {
            for w in &cta.warps {
                v.add_warp(w);
            }
        }
        v.report()
    };
    assert!(matches!(feed.get(0, &program), Ok(Some(_))));
    assert_eq!(pulled.get(), 1 + crate::timing::stream::feed::AHEAD, "CTA 0 and a batch ahead");
    assert_eq!(feed.values_report(), one_cta(1), "only CTA 0 is counted");
    assert!(matches!(feed.get(1, &program), Ok(Some(_))));
    assert_eq!(pulled.get(), 1 + crate::timing::stream::feed::AHEAD, "CTA 1 was already there");
    assert_eq!(feed.values_report(), one_cta(2));
    // CTA 12 fails while being pulled ahead; CTAs before it are still handed out.
    assert!(matches!(feed.get(8, &program), Ok(Some(_))));
    assert_eq!(pulled.get(), 13);
    assert!(matches!(feed.get(11, &program), Ok(Some(_))));
    assert_eq!(feed.values_report(), one_cta(12));
    assert!(
        matches!(feed.get(12, &program), Err(crate::timing::TimingError::Source(crate::timing::error::SourceError::Stream(e))) if e == "CTA 12 faulted")
    );
}

#[test]
fn chunked_stepping_gives_the_same_report() {
    let gpu = presets::hopper_h100();
    let (program, cta) = straight_line(CHAIN, 4);
    let run = |chunk: u64| {
        let source = VecSource::boxed(vec![cta.clone(), cta.clone(), cta.clone()]);
        let options = TimingOptions { sms: Some(1), ..TimingOptions::default() };
        let sim = Simulation::new(program.clone(), source, &gpu, &["baseline", "no-bank-conflicts"], options);
        let Ok(mut sim) = sim else { return Vec::new() };
        while sim.step(chunk).map(|p| !p.finished).unwrap_or(false) {}
        sim.reports()
    };
    let whole = run(1 << 40);
    assert_eq!(whole.len(), 2);
    assert_eq!(whole, run(1));
    assert_eq!(whole, run(7));
    // Without bank conflicts: each scheduler holds one warp of each CTA (a, b, c) in LRR order:
    // movs at 1, 2, 3; first adds at 6, 7, 8 (5 cycles after their producers); second adds at
    // 11, 12, 13; rets at 14, 15, 16; c's last add is written at 18 → 19 cycles. The baseline
    // loses cycles: b reads %f1 in the cycle a's result takes the same bank (slots 4 apart).
    assert_eq!(whole.get(1).map(|r| r.cycles), Some(19));
    assert!(whole.first().is_some_and(|r| r.cycles > 19 && r.register_file.scheme.bank_conflicts_read_write > 0));
}

#[test]
fn schemes_are_registered_by_name() {
    let gpu = presets::fermi_gtx480();
    let energy = super::EnergyModel::default();
    let geo = SmGeometry { schedulers: 2, groups: 1, warp_size: 32, max_warps: 48 };
    for name in ["baseline", "no-bank-conflicts", "2x-registers"] {
        let entry = crate::timing::regfile::by_name(name);
        assert!(entry.is_some(), "{name}");
        if let Some(e) = entry {
            let config = super::regfile::SchemeSpec::named(name).resolve(&gpu, &energy).map(|r| r.config);
            let scheme = config.and_then(|c| e.make(&SchemeContext { gpu: &gpu, geometry: geo, energy: &energy }, &c));
            assert_eq!(scheme.map(|s| s.name()).ok(), Some(name));
        }
    }
    assert!(crate::timing::regfile::by_name("rfc").is_none());
}
