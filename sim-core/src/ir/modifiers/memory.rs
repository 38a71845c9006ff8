//! Modifier values of memory instructions: cache operators, eviction hints, memory semantics, scopes,
//! atomic operations, proxies and completion mechanisms.
//!
//! ```text
//! ld.relaxed.gpu.global.L1::evict_last.u32 ...; atom.global.cas.b32 ...;
//! ```

use crate::ir::types::keyword_enum;

keyword_enum! {
    /// Cache operators of `ld`, `st` and `cp.async`.
    CacheOp {
        /// Cache at all levels.
        Ca = ".ca",
        /// Cache at global level (L2).
        Cg = ".cg",
        /// Streaming, likely accessed once.
        Cs = ".cs",
        /// Last use.
        Lu = ".lu",
        /// Don't cache, fetch again.
        Cv = ".cv",
        /// Write back.
        Wb = ".wb",
        /// Write through.
        Wt = ".wt",
    }
}

keyword_enum! {
    /// Cache eviction priority hints (`.L1::evict_last`, `.L2::evict_first`, …).
    Eviction {
        /// L1 normal priority.
        L1EvictNormal = ".L1::evict_normal",
        /// L1 keep current priority.
        L1EvictUnchanged = ".L1::evict_unchanged",
        /// L1 evict first.
        L1EvictFirst = ".L1::evict_first",
        /// L1 evict last.
        L1EvictLast = ".L1::evict_last",
        /// Do not allocate in L1.
        L1NoAllocate = ".L1::no_allocate",
        /// L2 normal priority.
        L2EvictNormal = ".L2::evict_normal",
        /// L2 evict first.
        L2EvictFirst = ".L2::evict_first",
        /// L2 evict last.
        L2EvictLast = ".L2::evict_last",
        /// L2 keep current priority.
        L2EvictUnchanged = ".L2::evict_unchanged",
    }
}

impl Eviction {
    /// True for the `.L1::…` hints.
    pub fn is_l1(self) -> bool {
        self.as_str().starts_with(".L1")
    }
}

keyword_enum! {
    /// How `createpolicy` builds a cache policy.
    PolicyKind {
        /// A fraction of the accesses gets the primary priority.
        Fractional = ".fractional",
        /// An address range gets the primary priority.
        Range = ".range",
        /// Converts a CUDA access property.
        Cvt = ".cvt",
    }
}

keyword_enum! {
    /// L2 prefetch size hint (`.L2::64B` …).
    PrefetchSize {
        /// 64 bytes.
        B64 = ".L2::64B",
        /// 128 bytes.
        B128 = ".L2::128B",
        /// 256 bytes.
        B256 = ".L2::256B",
    }
}

keyword_enum! {
    /// Memory-consistency semantics of a memory operation or fence.
    MemSem {
        /// Weak (the default, spelled out).
        Weak = ".weak",
        /// Volatile.
        Volatile = ".volatile",
        /// Relaxed (with a scope).
        Relaxed = ".relaxed",
        /// Acquire.
        Acquire = ".acquire",
        /// Release.
        Release = ".release",
        /// Acquire-release.
        AcqRel = ".acq_rel",
        /// Sequentially consistent (`fence.sc`).
        Sc = ".sc",
    }
}

keyword_enum! {
    /// Scope of a memory operation, fence or barrier. `membar.gl` is `Gpu`.
    Scope {
        /// The CTA.
        Cta = ".cta",
        /// The cluster.
        Cluster = ".cluster",
        /// The whole GPU (`.gpu`, `membar.gl`).
        Gpu = ".gpu",
        /// The system.
        Sys = ".sys",
    }
}

keyword_enum! {
    /// Atomic operations of `atom` and `red`.
    AtomOp {
        /// Bitwise and.
        And = ".and",
        /// Bitwise or.
        Or = ".or",
        /// Bitwise xor.
        Xor = ".xor",
        /// Compare and swap.
        Cas = ".cas",
        /// Exchange.
        Exch = ".exch",
        /// Add.
        Add = ".add",
        /// Wrapping increment.
        Inc = ".inc",
        /// Wrapping decrement.
        Dec = ".dec",
        /// Minimum.
        Min = ".min",
        /// Maximum.
        Max = ".max",
    }
}

keyword_enum! {
    /// Proxy kind of `fence.proxy`.
    ProxyKind {
        /// Virtual aliases.
        Alias = ".alias",
        /// Async proxy, all state spaces.
        Async = ".async",
        /// Async proxy, global memory.
        AsyncGlobal = ".async.global",
        /// Async proxy, shared memory of the CTA.
        AsyncSharedCta = ".async.shared::cta",
        /// Async proxy, shared memory of the cluster.
        AsyncSharedCluster = ".async.shared::cluster",
        /// Tensormap proxy.
        TensormapGeneric = ".tensormap::generic",
    }
}

keyword_enum! {
    /// Cache level of `prefetch`/`prefetchu`.
    CacheLevel {
        /// L1.
        L1 = ".L1",
        /// L2.
        L2 = ".L2",
    }
}

keyword_enum! {
    /// Completion mechanism of bulk asynchronous copies.
    Completion {
        /// Signals an mbarrier with the transferred byte count.
        MbarrierCompleteTx = ".mbarrier::complete_tx::bytes",
        /// Bulk async-group completion.
        BulkGroup = ".bulk_group",
    }
}
