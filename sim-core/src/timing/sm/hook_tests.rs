//! Unit tests of the SM hooks with small test schemes and hand-worked timings.
