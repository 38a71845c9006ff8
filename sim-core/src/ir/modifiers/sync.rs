//! Modifier values of barriers and warp-level instructions.
//!
//! ```text
//! bar.red.popc.u32 ...; vote.sync.ballot.b32 ...; shfl.sync.bfly.b32 ...;
//! ```

use crate::ir::types::keyword_enum;

keyword_enum! {
    /// What a `bar`/`barrier` does.
    BarMode {
        /// Arrive and wait.
        Sync = ".sync",
        /// Arrive only.
        Arrive = ".arrive",
        /// Arrive, wait and reduce a predicate.
        Red = ".red",
    }
}

keyword_enum! {
    /// Reductions of `bar.red` and `redux.sync`.
    ReduceOp {
        /// Population count of true predicates.
        Popc = ".popc",
        /// And.
        And = ".and",
        /// Or.
        Or = ".or",
        /// Xor.
        Xor = ".xor",
        /// Sum.
        Add = ".add",
        /// Minimum.
        Min = ".min",
        /// Maximum.
        Max = ".max",
    }
}

keyword_enum! {
    /// Modes of `vote`.
    VoteMode {
        /// True if the predicate is true in all active threads.
        All = ".all",
        /// True if it is true in any active thread.
        Any = ".any",
        /// True if it is the same in all active threads.
        Uni = ".uni",
        /// The mask of threads where it is true.
        Ballot = ".ballot",
    }
}

keyword_enum! {
    /// Modes of `shfl`.
    ShflMode {
        /// From a lower lane.
        Up = ".up",
        /// From a higher lane.
        Down = ".down",
        /// Butterfly (xor of the lane id).
        Bfly = ".bfly",
        /// Indexed lane.
        Idx = ".idx",
    }
}

keyword_enum! {
    /// Modes of `match.sync`.
    MatchMode {
        /// Mask of threads with the same value.
        Any = ".any",
        /// Mask if all threads have the same value.
        All = ".all",
    }
}

keyword_enum! {
    /// Direction of `setmaxnreg`.
    IncDec {
        /// Increase.
        Inc = ".inc",
        /// Decrease.
        Dec = ".dec",
    }
}
