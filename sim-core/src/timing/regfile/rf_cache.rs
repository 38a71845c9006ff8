//! The register-file cache (RFC) of one scheduler (Wyse §2.3.3.3, after Gebhart et al.): `K`
//! warp-register entries, fully associative, strict LRU. An ALU instruction allocates an entry
//! per destination register when it dispatches; the entry is *pinned* (it cannot be evicted)
//! until its result is written into it; results are written back to the main register file only
//! when a dirty entry is evicted (lazily).
//!
//! ```text
//! K = 2: alloc r1 (pinned) · write r1 (dirty, MRU) · alloc r2 · write r2 · alloc r3
//!        → r1 is LRU → evicted (dirty: written back) → r3 takes its entry
//! ```
//!
//! Entries are keyed by (warp slot, physical 32-bit register unit). Every access (a hit, a write,
//! an allocation) makes the entry the most recently used.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::vec::Vec;

/// An entry's key: warp slot and register unit.
pub type RegKey = (u32, u32);

#[derive(Clone, Copy, Debug)]
struct Entry {
    /// LRU stamp (larger = more recent).
    stamp: u64,
    /// Holds a value the main register file does not have.
    dirty: bool,
    /// Allocated for a result not yet written: not evictable.
    pinned: bool,
}

/// An entry that left the cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Evicted {
    /// Its key.
    pub key: RegKey,
    /// Its value must be written back to the main register file.
    pub dirty: bool,
}

/// One scheduler's register-file cache.
#[derive(Clone, Debug, Default)]
pub struct RfCache {
    capacity: usize,
    entries: BTreeMap<RegKey, Entry>,
    /// Unpinned entries in LRU order: (stamp, key).
    lru: BTreeSet<(u64, RegKey)>,
    next_stamp: u64,
}

impl RfCache {
    /// An empty cache of `capacity` entries.
    pub fn new(capacity: u32) -> Self {
        RfCache { capacity: capacity as usize, ..RfCache::default() }
    }

    /// Entries.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Whether `key` has a valid (written) value here.
    pub fn holds(&self, key: RegKey) -> bool {
        self.entries.get(&key).is_some_and(|e| !e.pinned)
    }

    /// Whether `key` has an entry pinned for a result in flight.
    pub fn pinned(&self, key: RegKey) -> bool {
        self.entries.get(&key).is_some_and(|e| e.pinned)
    }

    fn stamp(&mut self) -> u64 {
        self.next_stamp += 1;
        self.next_stamp
    }

    /// A read hit on `key`: it becomes the most recently used. `false` if absent.
    pub fn touch(&mut self, key: RegKey) -> bool {
        let s = self.stamp();
        let Some(e) = self.entries.get_mut(&key) else { return false };
        if !e.pinned {
            self.lru.remove(&(e.stamp, key));
            self.lru.insert((s, key));
        }
        e.stamp = s;
        true
    }

    /// Whether entries for `keys` could be allocated now (entries already held for a key are
    /// reused; others take free or unpinned entries).
    pub fn can_allocate(&self, keys: &[RegKey]) -> bool {
        let fresh = keys.iter().filter(|k| !self.entries.contains_key(k)).count();
        let pinned = self.entries.len() - self.lru.len();
        let reusable = keys.iter().filter(|k| self.holds(**k)).count();
        // Entries not pinned and not reused by this allocation can be evicted.
        self.capacity >= pinned + reusable + fresh
    }

    /// Allocates (pins) an entry for each of `keys`, evicting LRU entries as needed into
    /// `evicted`; `false` (and nothing changed) when [`RfCache::can_allocate`] says no.
    pub fn allocate(&mut self, keys: &[RegKey], evicted: &mut Vec<Evicted>) -> bool {
        if !self.can_allocate(keys) {
            return false;
        }
        // Entries held for the keys first (so that evictions below cannot take them), then new ones.
        for &key in keys {
            if let Some(e) = self.entries.get(&key).copied() {
                // Overwritten by the coming result: the old value need not be written back.
                if !e.pinned {
                    self.lru.remove(&(e.stamp, key));
                }
                let s = self.stamp();
                self.entries.insert(key, Entry { stamp: s, dirty: false, pinned: true });
            }
        }
        for &key in keys {
            if self.entries.contains_key(&key) {
                continue;
            }
            while self.entries.len() >= self.capacity {
                let Some(&(stamp, victim)) = self.lru.iter().next() else { return false };
                self.lru.remove(&(stamp, victim));
                if let Some(e) = self.entries.remove(&victim) {
                    evicted.push(Evicted { key: victim, dirty: e.dirty });
                }
            }
            let s = self.stamp();
            self.entries.insert(key, Entry { stamp: s, dirty: false, pinned: true });
        }
        true
    }

    /// A result for `key` is written into its entry (pinned for it, or holding an older value):
    /// valid, dirty, most recently used. `false` if `key` has no entry.
    pub fn fill(&mut self, key: RegKey) -> bool {
        let s = self.stamp();
        let Some(e) = self.entries.get_mut(&key) else { return false };
        if !e.pinned {
            self.lru.remove(&(e.stamp, key));
        }
        *e = Entry { stamp: s, dirty: true, pinned: false };
        self.lru.insert((s, key));
        true
    }

    /// Drops `key`'s valid entry (a stale copy, a dead value); returns it, pinned entries stay.
    pub fn remove(&mut self, key: RegKey) -> Option<Evicted> {
        let e = *self.entries.get(&key)?;
        if e.pinned {
            return None;
        }
        self.entries.remove(&key);
        self.lru.remove(&(e.stamp, key));
        Some(Evicted { key, dirty: e.dirty })
    }

    /// Drops `key`'s entry whatever its state (the main register file is written with a newer
    /// value); `true` if there was one.
    pub fn discard(&mut self, key: RegKey) -> bool {
        let Some(e) = self.entries.remove(&key) else { return false };
        if !e.pinned {
            self.lru.remove(&(e.stamp, key));
        }
        true
    }

    /// Drops every entry of `warp`: valid ones into `out`; pinned ones are unpinned and freed
    /// (their results, when they come, are not cached).
    pub fn remove_warp(&mut self, warp: u32, out: &mut Vec<Evicted>) {
        let keys: Vec<RegKey> = self.entries.range((warp, 0)..=(warp, u32::MAX)).map(|(k, _)| *k).collect();
        for k in keys {
            match self.remove(k) {
                Some(e) => out.push(e),
                None => {
                    self.entries.remove(&k);
                }
            }
        }
    }

    /// Entries in use.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// No entry in use.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lru_eviction_and_pinning() {
        let mut c = RfCache::new(2);
        let mut ev = Vec::new();
        assert!(c.allocate(&[(0, 1)], &mut ev));
        assert!(c.allocate(&[(0, 2)], &mut ev));
        // Both pinned: nothing can be evicted.
        assert!(!c.can_allocate(&[(0, 3)]));
        assert!(c.fill((0, 1)) && c.fill((0, 2)));
        // r1 is touched, so r2 is the LRU one.
        assert!(c.touch((0, 1)));
        assert!(c.allocate(&[(0, 3)], &mut ev));
        assert_eq!(ev, [Evicted { key: (0, 2), dirty: true }]);
        assert!(c.holds((0, 1)) && !c.holds((0, 3)) && c.pinned((0, 3)));
        // Re-allocating a held register reuses its entry: no eviction.
        ev.clear();
        assert!(c.allocate(&[(0, 1)], &mut ev));
        assert!(ev.is_empty() && c.len() == 2);
        // Two pinned entries: a third register cannot get one.
        assert!(!c.allocate(&[(1, 1)], &mut ev));
    }

    /// Two keys, one already held: the held one is kept for the allocation, not evicted to make
    /// room for the other (which would leave a half-allocated instruction).
    #[test]
    fn allocation_keeps_its_own_held_entries() {
        let mut c = RfCache::new(2);
        let mut ev = Vec::new();
        assert!(c.allocate(&[(0, 1)], &mut ev) && c.fill((0, 1)));
        assert!(c.allocate(&[(0, 2)], &mut ev) && c.fill((0, 2)));
        assert!(c.touch((0, 2)));
        // (0, 1) is the LRU entry but is one of the keys: (0, 2) is evicted instead.
        assert!(c.allocate(&[(0, 3), (0, 1)], &mut ev));
        assert_eq!(ev, [Evicted { key: (0, 2), dirty: true }]);
        assert!(c.pinned((0, 3)) && c.pinned((0, 1)));
        assert!(c.discard((0, 3)) && !c.pinned((0, 3)) && c.len() == 1);
    }

    #[test]
    fn remove_warp_frees_pinned_entries_too() {
        let mut c = RfCache::new(4);
        let mut ev = Vec::new();
        assert!(c.allocate(&[(3, 1), (3, 2), (4, 1)], &mut ev));
        assert!(c.fill((3, 1)) && c.fill((4, 1)));
        c.remove_warp(3, &mut ev);
        // Only the written value is reported (it may need a write-back); (3, 2) is just freed.
        assert_eq!(ev, [Evicted { key: (3, 1), dirty: true }]);
        assert!(!c.pinned((3, 2)) && c.holds((4, 1)) && c.len() == 1);
        assert!(!c.fill((3, 2)));
    }
}
