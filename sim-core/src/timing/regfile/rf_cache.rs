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

use alloc::vec::Vec;

/// An entry's key: warp slot and register unit.
pub type RegKey = (u32, u32);

#[derive(Clone, Copy, Debug, Default)]
struct Entry {
    /// Its key.
    key: RegKey,
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

/// One scheduler's register-file cache. Entries live in slots; a short list per warp slot maps
/// its cached register units to their slots (a warp holds few entries, whatever the capacity),
/// and the LRU victim is the unpinned entry with the smallest stamp (stamps are unique).
#[derive(Clone, Debug, Default)]
pub struct RfCache {
    capacity: usize,
    slots: Vec<Option<Entry>>,
    /// Free slot indices.
    free: Vec<u32>,
    /// `index[warp]`: `(unit, slot)` of that warp's entries.
    index: Vec<Vec<(u32, u32)>>,
    len: usize,
    /// Entries not pinned.
    unpinned: usize,
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

    fn slot_of(&self, key: RegKey) -> Option<usize> {
        let units = self.index.get(key.0 as usize)?;
        units.iter().find(|&&(u, _)| u == key.1).map(|&(_, slot)| slot as usize)
    }

    fn entry(&self, key: RegKey) -> Option<&Entry> {
        self.slots.get(self.slot_of(key)?)?.as_ref()
    }

    /// Whether `key` has a valid (written) value here.
    pub fn holds(&self, key: RegKey) -> bool {
        self.entry(key).is_some_and(|e| !e.pinned)
    }

    /// Whether `key` has an entry pinned for a result in flight.
    pub fn pinned(&self, key: RegKey) -> bool {
        self.entry(key).is_some_and(|e| e.pinned)
    }

    fn stamp(&mut self) -> u64 {
        self.next_stamp += 1;
        self.next_stamp
    }

    /// Puts `entry` in a free slot.
    fn insert(&mut self, entry: Entry) {
        let slot = match self.free.pop() {
            Some(i) => i as usize,
            None => {
                self.slots.push(None);
                self.slots.len() - 1
            }
        };
        if let Some(x) = self.slots.get_mut(slot) {
            *x = Some(entry);
        }
        let w = entry.key.0 as usize;
        if self.index.len() <= w {
            self.index.resize(w + 1, Vec::new());
        }
        if let Some(units) = self.index.get_mut(w) {
            units.push((entry.key.1, slot as u32));
        }
        self.len += 1;
        self.unpinned += usize::from(!entry.pinned);
    }

    /// Takes `key`'s entry out of the cache.
    fn take(&mut self, key: RegKey) -> Option<Entry> {
        let slot = self.slot_of(key)?;
        let e = self.slots.get_mut(slot)?.take()?;
        if let Some(units) = self.index.get_mut(key.0 as usize) {
            units.retain(|&(u, _)| u != key.1);
        }
        self.free.push(slot as u32);
        self.len -= 1;
        self.unpinned -= usize::from(!e.pinned);
        Some(e)
    }

    /// A read hit on `key`: it becomes the most recently used. `false` if absent.
    pub fn touch(&mut self, key: RegKey) -> bool {
        let s = self.stamp();
        let Some(slot) = self.slot_of(key) else { return false };
        let Some(Some(e)) = self.slots.get_mut(slot) else { return false };
        e.stamp = s;
        true
    }

    /// Whether entries for `keys` could be allocated now (entries already held for a key are
    /// reused; others take free or unpinned entries).
    pub fn can_allocate(&self, keys: &[RegKey]) -> bool {
        let fresh = keys.iter().filter(|k| self.slot_of(**k).is_none()).count();
        let pinned = self.len - self.unpinned;
        let reusable = keys.iter().filter(|k| self.holds(**k)).count();
        // Entries not pinned and not reused by this allocation can be evicted.
        self.capacity >= pinned + reusable + fresh
    }

    /// The least recently used unpinned entry.
    fn victim(&self) -> Option<RegKey> {
        self.slots.iter().flatten().filter(|e| !e.pinned).min_by_key(|e| e.stamp).map(|e| e.key)
    }

    /// Allocates (pins) an entry for each of `keys`, evicting LRU entries as needed into
    /// `evicted`; `false` (and nothing changed) when [`RfCache::can_allocate`] says no.
    pub fn allocate(&mut self, keys: &[RegKey], evicted: &mut Vec<Evicted>) -> bool {
        if !self.can_allocate(keys) {
            return false;
        }
        // Entries held for the keys first (so that evictions below cannot take them), then new ones.
        for &key in keys {
            if let Some(slot) = self.slot_of(key) {
                // Overwritten by the coming result: the old value need not be written back.
                let s = self.stamp();
                if let Some(Some(e)) = self.slots.get_mut(slot) {
                    self.unpinned -= usize::from(!e.pinned);
                    *e = Entry { key, stamp: s, dirty: false, pinned: true };
                }
            }
        }
        for &key in keys {
            if self.slot_of(key).is_some() {
                continue;
            }
            while self.len >= self.capacity {
                let Some(victim) = self.victim() else { return false };
                if let Some(e) = self.take(victim) {
                    evicted.push(Evicted { key: victim, dirty: e.dirty });
                }
            }
            let s = self.stamp();
            self.insert(Entry { key, stamp: s, dirty: false, pinned: true });
        }
        true
    }

    /// A result for `key` is written into its entry (pinned for it, or holding an older value):
    /// valid, dirty, most recently used. `false` if `key` has no entry.
    pub fn fill(&mut self, key: RegKey) -> bool {
        let s = self.stamp();
        let Some(slot) = self.slot_of(key) else { return false };
        let Some(Some(e)) = self.slots.get_mut(slot) else { return false };
        self.unpinned += usize::from(e.pinned);
        *e = Entry { key, stamp: s, dirty: true, pinned: false };
        true
    }

    /// Drops `key`'s valid entry (a stale copy, a dead value); returns it, pinned entries stay.
    pub fn remove(&mut self, key: RegKey) -> Option<Evicted> {
        if self.entry(key)?.pinned {
            return None;
        }
        let e = self.take(key)?;
        Some(Evicted { key, dirty: e.dirty })
    }

    /// Drops `key`'s entry whatever its state (the main register file is written with a newer
    /// value); `true` if there was one.
    pub fn discard(&mut self, key: RegKey) -> bool {
        self.take(key).is_some()
    }

    /// Drops every entry of `warp` (in register order): valid ones into `out`; pinned ones are
    /// unpinned and freed (their results, when they come, are not cached).
    pub fn remove_warp(&mut self, warp: u32, out: &mut Vec<Evicted>) {
        let mut units: Vec<u32> =
            self.index.get(warp as usize).map(|l| l.iter().map(|&(u, _)| u).collect()).unwrap_or_default();
        units.sort_unstable();
        for u in units {
            let key = (warp, u);
            match self.entry(key).map(|e| e.pinned) {
                Some(false) => out.extend(self.remove(key)),
                Some(true) => {
                    self.take(key);
                }
                None => {}
            }
        }
    }

    /// Entries in use.
    pub fn len(&self) -> usize {
        self.len
    }

    /// No entry in use.
    pub fn is_empty(&self) -> bool {
        self.len == 0
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
