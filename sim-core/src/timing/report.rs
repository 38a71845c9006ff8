//! The result of one timing run: one serializable [`Report`] per (kernel launch sequence, GPU,
//! scheme), identical natively and in WebAssembly. Every figure states its unit in its name or
//! documentation; maps are `BTreeMap`s so the JSON has a fixed order.
//!
//! ```text
//! { "scheme": "baseline", "cycles": 12840, "ipc": { "warp_instructions_per_cycle": 1.91,
//!   "thread_instructions_per_cycle": 58.3 }, "stalls": { "issued": …, "scoreboard": …, … }, … }
//! ```

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use crate::timing::memory::MemoryStats;
use crate::timing::regfile::{SchemeSpec, SchemeStats};
use crate::timing::value_stats::ValueReport;

/// Why a scheduler did not issue in a cycle (or that it did). Every scheduler cycle has exactly
/// one: the cause of the warp that came closest to issuing, in the order listed from
/// `SchemeSpecific` (closest) down to `Idle`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StallCause {
    /// At least one instruction issued.
    Issued,
    /// A scheme-specific stall (acquire wait, buffer full, CTA switch, …).
    SchemeSpecific,
    /// Ready, but no operand collector was free (collectors held up by bank conflicts).
    OperandCollection,
    /// Ready, but its execution unit was still busy (initiation interval).
    Structural,
    /// Waiting for a result of an ALU instruction (scoreboard, RAW/WAW).
    Scoreboard,
    /// Waiting for a load's result, or for the LD/ST unit.
    Memory,
    /// Waiting at a CTA barrier.
    Barrier,
    /// Warps present but none with an instruction in its buffer (after a branch, or draining).
    NoEligibleWarp,
    /// No warp assigned to the scheduler.
    Idle,
    /// Every warp of the scheduler belongs to a parked CTA (switched out, or being moved in).
    CtaSwitch,
    /// A scheme's register acquire waited for free registers (RegMutex).
    AcquireWait,
    /// A scheme's buffer was full (memory-operand buffer, PCRF, …).
    SchemeBufferFull,
}

impl StallCause {
    /// Causes in the order reports list them (declaration order; [`StallCause::index`]). The
    /// causes after [`StallCause::Idle`] are scheme causes: reports list them only when non-zero.
    pub const ALL: [StallCause; 12] = [
        StallCause::Issued,
        StallCause::SchemeSpecific,
        StallCause::OperandCollection,
        StallCause::Structural,
        StallCause::Scoreboard,
        StallCause::Memory,
        StallCause::Barrier,
        StallCause::NoEligibleWarp,
        StallCause::Idle,
        StallCause::CtaSwitch,
        StallCause::AcquireWait,
        StallCause::SchemeBufferFull,
    ];

    /// Every cause, by ascending rank.
    pub const BY_RANK: [StallCause; 12] = [
        StallCause::Idle,
        StallCause::NoEligibleWarp,
        StallCause::CtaSwitch,
        StallCause::Barrier,
        StallCause::Memory,
        StallCause::Scoreboard,
        StallCause::Structural,
        StallCause::OperandCollection,
        StallCause::SchemeBufferFull,
        StallCause::AcquireWait,
        StallCause::SchemeSpecific,
        StallCause::Issued,
    ];

    /// Closeness to issuing: the cycle's cause is the highest over the scheduler's warps.
    pub fn rank(self) -> u8 {
        match self {
            StallCause::Issued => 12,
            StallCause::SchemeSpecific => 11,
            StallCause::AcquireWait => 10,
            StallCause::SchemeBufferFull => 9,
            StallCause::OperandCollection => 8,
            StallCause::Structural => 7,
            StallCause::Scoreboard => 6,
            StallCause::Memory => 5,
            StallCause::Barrier => 4,
            StallCause::CtaSwitch => 3,
            StallCause::NoEligibleWarp => 2,
            StallCause::Idle => 1,
        }
    }

    /// A scheme cause: listed in reports only when non-zero (reports of schemes without them
    /// keep their JSON).
    pub fn is_scheme_cause(self) -> bool {
        matches!(self, StallCause::CtaSwitch | StallCause::AcquireWait | StallCause::SchemeBufferFull)
    }

    /// Position in [`StallCause::ALL`] and in [`StallBreakdown`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// The label charts and tables show (`operand collection`, …).
    pub fn label(self) -> &'static str {
        match self {
            StallCause::Issued => "issued",
            StallCause::SchemeSpecific => "scheme-specific",
            StallCause::OperandCollection => "operand collection",
            StallCause::Structural => "structural",
            StallCause::Scoreboard => "scoreboard",
            StallCause::Memory => "memory",
            StallCause::Barrier => "barrier",
            StallCause::NoEligibleWarp => "no eligible warp",
            StallCause::Idle => "idle",
            StallCause::CtaSwitch => "CTA switch",
            StallCause::AcquireWait => "acquire wait",
            StallCause::SchemeBufferFull => "scheme buffer full",
        }
    }

    /// The name reports use (`issued`, `operand_collection`, …).
    pub fn name(self) -> &'static str {
        match self {
            StallCause::Issued => "issued",
            StallCause::SchemeSpecific => "scheme_specific",
            StallCause::OperandCollection => "operand_collection",
            StallCause::Structural => "structural",
            StallCause::Scoreboard => "scoreboard",
            StallCause::Memory => "memory",
            StallCause::Barrier => "barrier",
            StallCause::NoEligibleWarp => "no_eligible_warp",
            StallCause::Idle => "idle",
            StallCause::CtaSwitch => "cta_switch",
            StallCause::AcquireWait => "acquire_wait",
            StallCause::SchemeBufferFull => "scheme_buffer_full",
        }
    }
}

/// Scheduler cycles by cause, summed over all schedulers of all SMs; the causes add up to
/// `cycles × schedulers per SM × SMs`. One counter per [`StallCause`], indexed by
/// [`StallCause::index`]; serialized as an object keyed by [`StallCause::name`] in
/// [`StallCause::ALL`] order, so a new cause is one enum variant.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StallBreakdown {
    cycles: [u64; StallCause::ALL.len()],
}

impl StallBreakdown {
    /// Adds `n` cycles of `cause`.
    pub fn add(&mut self, cause: StallCause, n: u64) {
        if let Some(c) = self.cycles.get_mut(cause.index()) {
            *c += n;
        }
    }

    /// Scheduler-cycles of `cause`.
    pub fn get(&self, cause: StallCause) -> u64 {
        self.cycles.get(cause.index()).copied().unwrap_or(0)
    }

    /// Adds another breakdown.
    pub fn merge(&mut self, o: &StallBreakdown) {
        for (a, b) in self.cycles.iter_mut().zip(o.cycles.iter()) {
            *a += b;
        }
    }

    /// All scheduler-cycles.
    pub fn total(&self) -> u64 {
        self.cycles.iter().sum()
    }

    /// `(cause, scheduler-cycles)` in report order.
    pub fn iter(&self) -> impl Iterator<Item = (StallCause, u64)> + '_ {
        StallCause::ALL.iter().map(|&c| (c, self.get(c)))
    }
}

impl Serialize for StallBreakdown {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let listed = self.iter().filter(|&(c, n)| n > 0 || !c.is_scheme_cause()).count();
        let mut st = serializer.serialize_struct("StallBreakdown", listed)?;
        for (cause, n) in self.iter() {
            if n > 0 || !cause.is_scheme_cause() {
                st.serialize_field(cause.name(), &n)?;
            }
        }
        st.end()
    }
}

impl<'de> Deserialize<'de> for StallBreakdown {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let named = BTreeMap::<String, u64>::deserialize(deserializer)?;
        let mut b = StallBreakdown::default();
        for (key, n) in named {
            let cause = StallCause::ALL
                .iter()
                .find(|c| c.name() == key)
                .ok_or_else(|| serde::de::Error::unknown_field(&key, &[]))?;
            b.add(*cause, n);
        }
        Ok(b)
    }
}

/// Instructions per cycle, chip-wide.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Ipc {
    /// Warp-instructions issued per core cycle.
    pub warp_instructions_per_cycle: f64,
    /// Thread-instructions (lanes whose guard held) per core cycle — GPGPU-Sim's "IPC".
    pub thread_instructions_per_cycle: f64,
}

/// How one kernel was placed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KernelPlacement {
    /// Kernel name.
    pub kernel: String,
    /// Threads per CTA.
    pub threads_per_cta: u32,
    /// Registers per thread the scheme allocated.
    pub registers_per_thread: u32,
    /// The kernel's maximum live 32-bit registers (liveness), for comparison.
    pub max_live_registers: u32,
    /// Resident CTAs per SM allowed by the occupancy calculator.
    pub ctas_per_sm: u32,
    /// Resident warps per SM at that many CTAs.
    pub warps_per_sm: u32,
    /// Theoretical occupancy: warps per SM / maximum warps per SM (0 to 1).
    pub theoretical_occupancy: f64,
    /// The resources that bind (`registers`, `shared_memory`, …).
    pub limited_by: Vec<String>,
}

/// Resident work at one moment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct OccupancySample {
    /// Core cycle of the sample.
    pub cycle: u64,
    /// CTAs resident on all SMs.
    pub resident_ctas: u32,
    /// Resident CTAs not parked (equal to `resident_ctas` for schemes that never park).
    pub active_ctas: u32,
    /// Warps resident on all SMs (finished warps of unfinished CTAs excluded).
    pub resident_warps: u32,
    /// Achieved occupancy: resident warps / (SMs × maximum warps per SM), 0 to 1.
    pub achieved_occupancy: f64,
}

/// Occupancy over time, sampled every `interval_cycles` (doubled, merging pairs, whenever more
/// than 1024 samples would be kept).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct OccupancyTimeline {
    /// Cycles between samples.
    pub interval_cycles: u64,
    /// Samples in cycle order.
    pub samples: Vec<OccupancySample>,
}

/// How the run ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Outcome {
    /// Every CTA completed.
    Finished,
    /// The cycle budget ran out first; figures cover the cycles simulated.
    BudgetExceeded {
        /// The budget in cycles.
        budget_cycles: u64,
    },
    /// Not finished yet (a report taken mid-run).
    Running,
}

/// Register-file traffic and energy.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RegisterFileReport {
    /// Accesses (warp registers) and energy per access by structure.
    pub scheme: SchemeStats,
    /// Warp-register reads, all structures.
    pub reads: u64,
    /// Warp-register writes, all structures.
    pub writes: u64,
    /// Bank conflicts: read-request cycles lost to another read or a write, plus writes delayed by
    /// another write.
    pub bank_conflicts: u64,
    /// Energy by structure in nJ.
    pub energy_nj: BTreeMap<String, f64>,
    /// Total register-file energy in nJ.
    pub energy_total_nj: f64,
}

/// Everything measured in one timing run. `scheme` is the run's label: the registry name, or
/// `NAME:key=value,…` when parameters were set (unique within a simulation).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Register-file scheme.
    pub scheme: String,
    /// GPU preset name.
    pub gpu: String,
    /// SMs simulated.
    pub sms: u32,
    /// Warp schedulers per SM.
    pub schedulers_per_sm: u32,
    /// How the run ended.
    pub outcome: Outcome,
    /// Kernels in launch order of first appearance.
    pub kernels: Vec<KernelPlacement>,
    /// CTAs completed.
    pub ctas: u64,
    /// Core cycles from the first CTA dispatch to the last CTA's completion.
    pub cycles: u64,
    /// Warp-instructions issued.
    pub warp_instructions: u64,
    /// Thread-instructions issued: lanes whose guard held, as the executor and GPGPU-Sim's
    /// `gpu_sim_insn` count them.
    pub thread_instructions: u64,
    /// Instructions per cycle.
    pub ipc: Ipc,
    /// Scheduler cycles by cause.
    pub stalls: StallBreakdown,
    /// Register-file traffic, bank conflicts and energy.
    pub register_file: RegisterFileReport,
    /// Reads per produced value and producer→consumer distances (from the streams).
    pub values: ValueReport,
    /// Resident and active CTAs and achieved occupancy over time.
    pub occupancy_over_time: OccupancyTimeline,
    /// Memory statistics.
    pub memory: MemoryStats,
    /// CTAs a scheme parked (see [`crate::timing::sm::hooks::ResidencyAction`]); the same as
    /// `residency.parks`.
    pub cta_park_requests: u64,
    /// CTA switches and the cost of moving registers (listed only when a scheme moved any).
    #[serde(default, skip_serializing_if = "ResidencyStats::is_empty")]
    pub residency: ResidencyStats,
    /// What the functional run has to tell its user (divisions by zero, …: behaviour PTX leaves
    /// to the machine), each with its first site; [`Report::locate`] fills in their lines.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notices: Vec<crate::exec::Notice>,
    /// The slice allocation of a `compression` run: every value's format, physical registers,
    /// slice masks and live interval (absent for the other schemes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slice_map: Option<crate::timing::regfile::compression_slices::SliceMap>,
    /// Quick mode ([`crate::timing::TimingOptions::quick_waves`]): the run timed only the first
    /// CTAs of the launch sequence; every figure of the report is of those CTAs, and this says how
    /// many of how many, the estimated cycles of the whole sequence and how steady the sample was
    /// (absent for a full run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample: Option<CtaSample>,
    /// The scheme's full config, every parameter with its value (defaults included); as a
    /// `--scheme-file` entry it reproduces this run's scheme. Kept last: the pinned digests hash
    /// the report without it.
    #[serde(default)]
    pub config: SchemeSpec,
}

impl Report {
    /// Fills in the notices' line numbers from the source text the module was compiled from.
    pub fn locate(&mut self, src: &str) {
        self.notices.iter_mut().for_each(|n| n.locate(src));
        if let Some(m) = &mut self.slice_map {
            m.locate(src);
        }
    }
}

/// What a quick-mode run sampled ([`Report::sample`]): one wave of consecutive CTAs in every
/// `every` waves of each launch (about `waves` waves of `SMs × CTAs per SM`,
/// [`crate::timing::quick_sample`]), and the whole sequence estimated from it: the CTAs not
/// timed issue the sample's average warp-instructions per CTA, at the steady warp-IPC of the
/// sample's inner waves (after the first, which ramps up, and before the last, during which the
/// chip drains: the whole sequence does each once, as the sample does).
///
/// ```text
/// 4 096 CTAs, 15 SMs × 6 CTAs/SM: waves of 90, 3 waves = 270 → every 15th wave: CTAs 0–89,
/// 1350–1439, 2700–2789, 4050–4095: 316 timed in 15 054 cycles, 374 460 warp-insts; the inner
/// waves ran at 17.48 warp-IPC → 374 460 × 4 096 / 316 = 4 853 760 warp-insts in
/// 15 054 + (4 853 760 − 374 460) / 17.48 ≈ 271 307 cycles (IPC ≈ 17.9)
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CtaSample {
    /// CTAs timed (the report's `ctas`; every other figure of the report is of these).
    pub simulated_ctas: u64,
    /// One wave of CTAs timed in this many, in each launch.
    pub every: u64,
    /// CTAs of the whole launch sequence.
    pub total_ctas: u64,
    /// The whole sequence's cycles, estimated (with fewer than three waves, the CTAs not timed
    /// go at the sample's average rate).
    pub estimated_cycles: u64,
    /// The whole sequence's warp-instructions per cycle, estimated.
    pub estimated_ipc: f64,
    /// Warp-instructions per cycle of each wave of the sample, in order.
    pub wave_ipc: Vec<f64>,
    /// How far the sample is to be trusted (an indicator, not an error bound), 0 to 1 or more:
    /// the larger of (a) the largest relative difference of an inner wave's IPC from the inner
    /// waves' mean (with one inner wave: from the first wave's; with none: 1) and (b) the largest
    /// relative difference of a wave's warp-instructions from the waves' mean — large when the
    /// sample never settled, or when the work sits in some CTAs only (then the extrapolation
    /// does not hold).
    pub spread: f64,
    /// How many times quick mode doubled the waves before this sample because the earlier one
    /// spread too much ([`crate::timing::quick_sample::refine`]); 0: the first sample.
    #[serde(default)]
    pub refinements: u32,
}

/// What a scheme's residency actions did and cost, summed over SMs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResidencyStats {
    /// CTAs parked (by a park or a swap).
    pub parks: u64,
    /// CTA switches: parked CTAs made active again (by an activation or a swap).
    pub cta_switches: u64,
    /// Cycles of the moves, as the scheme stated them, summed.
    pub move_cycles: u64,
    /// Warp-register reads of the moves.
    pub moved_register_reads: u64,
    /// Warp-register writes of the moves.
    pub moved_register_writes: u64,
}

impl ResidencyStats {
    /// Nothing was moved.
    pub fn is_empty(&self) -> bool {
        *self == ResidencyStats::default()
    }

    /// Adds another SM's counts.
    pub fn add(&mut self, o: &ResidencyStats) {
        self.parks += o.parks;
        self.cta_switches += o.cta_switches;
        self.move_cycles += o.move_cycles;
        self.moved_register_reads += o.moved_register_reads;
        self.moved_register_writes += o.moved_register_writes;
    }
}
