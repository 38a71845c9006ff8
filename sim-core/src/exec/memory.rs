//! Device memory: global buffers and module variables at distinct, well-separated addresses with
//! guard gaps (so out-of-bounds accesses are caught), constant and kernel-parameter banks, shared
//! memory per CTA and local memory per thread, and the generic address space that maps windows
//! onto them (`cvta`).
//!
//! ```text
//! ld.global.f32 %f1, [%rd4];       // %rd4 inside a buffer (or its allocation granule) → the bytes
//! st.shared.u32 [%r6+4096], %r1;   // past the CTA's shared memory → Fault { space: "shared", … }
//! cvta.shared.u64 %rd1, %rd2;      // shared offset → generic address in the shared window
//! ```
//!
//! Allocation follows CUDA's granularity: a buffer owns its size rounded up to
//! [`GRANULE`] bytes, and an access past the requested length but inside the granule does not
//! fault (the hardware would not either); it is counted as a *slack access* and reported. Between
//! allocations lie [`GUARD_GAP`] unmapped bytes.

use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

/// Allocation granularity of global memory in bytes.
pub const GRANULE: u64 = 512;
/// Unmapped bytes between two global allocations.
pub const GUARD_GAP: u64 = 1 << 20;
/// Most local memory per thread in bytes (CUDA's limit).
pub const MAX_LOCAL_BYTES: usize = 512 * 1024;

/// A state space as the executor resolves it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Space {
    /// Global memory (buffers and `.global` variables).
    Global,
    /// The CTA's shared memory.
    Shared,
    /// The thread's local memory (also function parameters and call arguments).
    Local,
    /// Constant memory.
    Const,
    /// The kernel's parameters.
    Param,
}

impl Space {
    /// The PTX name without the dot.
    pub fn name(self) -> &'static str {
        match self {
            Space::Global => "global",
            Space::Shared => "shared",
            Space::Local => "local",
            Space::Const => "const",
            Space::Param => "param",
        }
    }
}

/// Where the generic windows and global allocations lie for one address size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AddressLayout {
    /// First global address handed out.
    pub global_base: u64,
    /// Generic address of shared offset 0.
    pub shared_window: u64,
    /// Generic address of local offset 0.
    pub local_window: u64,
    /// Generic address of constant offset 0.
    pub const_window: u64,
    /// Generic address of kernel-parameter offset 0.
    pub param_window: u64,
    /// Generic address of the first function (for indirect calls).
    pub func_window: u64,
    /// Size of each window.
    pub window: u64,
}

impl AddressLayout {
    /// The layout for `.address_size 64`.
    pub const fn bits64() -> Self {
        AddressLayout {
            global_base: 0x0000_0002_0000_0000,
            shared_window: 0x0000_7E00_0000_0000,
            local_window: 0x0000_7F00_0000_0000,
            const_window: 0x0000_7D00_0000_0000,
            param_window: 0x0000_7C00_0000_0000,
            func_window: 0x0000_7B00_0000_0000,
            window: 1 << 32,
        }
    }

    /// The layout for 32-bit addresses.
    pub const fn bits32() -> Self {
        AddressLayout {
            global_base: 0x1000_0000,
            shared_window: 0xE000_0000,
            local_window: 0xF000_0000,
            const_window: 0xD000_0000,
            param_window: 0xC000_0000,
            func_window: 0xB000_0000,
            window: 0x1000_0000,
        }
    }

    /// The space a generic address falls in and the offset within it.
    pub fn classify(&self, addr: u64) -> (Space, u64) {
        for (space, base) in [
            (Space::Shared, self.shared_window),
            (Space::Local, self.local_window),
            (Space::Const, self.const_window),
            (Space::Param, self.param_window),
        ] {
            if addr.wrapping_sub(base) < self.window {
                return (space, addr - base);
            }
        }
        (Space::Global, addr)
    }

    /// The generic address of `offset` in `space`.
    pub fn to_generic(&self, space: Space, offset: u64) -> u64 {
        match space {
            Space::Global => offset,
            Space::Shared => self.shared_window.wrapping_add(offset),
            Space::Local => self.local_window.wrapping_add(offset),
            Space::Const => self.const_window.wrapping_add(offset),
            Space::Param => self.param_window.wrapping_add(offset),
        }
    }

    /// The `space` offset of a generic address (wrapping, so a wrong space faults later).
    pub fn from_generic(&self, space: Space, addr: u64) -> u64 {
        match space {
            Space::Global => addr,
            Space::Shared => addr.wrapping_sub(self.shared_window),
            Space::Local => addr.wrapping_sub(self.local_window),
            Space::Const => addr.wrapping_sub(self.const_window),
            Space::Param => addr.wrapping_sub(self.param_window),
        }
    }
}

/// What a global allocation holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RegionKind {
    /// The buffer of launch parameter pool entry `i`.
    Buffer(usize),
    /// Buffer `k` of the pointer table of pool entry `i` (`Pointee(i, k)`).
    Pointee(usize, usize),
    /// A module (or function-scope) `.global` variable.
    Variable(String),
}

/// One global allocation.
#[derive(Clone, Debug)]
pub struct Region {
    /// First address.
    pub base: u64,
    /// Requested length in bytes.
    pub len: u64,
    /// The bytes (length rounded up to [`GRANULE`]).
    pub data: Vec<u8>,
    /// What it holds.
    pub kind: RegionKind,
}

/// Why an access failed (the executor adds the thread, CTA and instruction).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AccessFault {
    /// The space accessed.
    pub space: Space,
    /// The address as the instruction computed it (generic or space-specific).
    pub address: u64,
    /// Access size in bytes.
    pub size: u32,
    /// What went wrong.
    pub reason: FaultReason,
}

/// Kinds of memory fault.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultReason {
    /// No allocation holds the address.
    OutOfBounds,
    /// The address is not a multiple of the access size.
    Misaligned,
    /// A write to constant or kernel-parameter memory.
    ReadOnly,
    /// Local memory (stack) beyond [`MAX_LOCAL_BYTES`].
    StackOverflow,
}

impl FaultReason {
    /// A short description.
    pub fn describe(self) -> &'static str {
        match self {
            FaultReason::OutOfBounds => "out-of-bounds access",
            FaultReason::Misaligned => "misaligned access",
            FaultReason::ReadOnly => "write to read-only memory",
            FaultReason::StackOverflow => "local memory (stack) exhausted",
        }
    }
}

/// Global memory: every allocation, sorted by address.
#[derive(Clone, Debug, Default)]
pub struct GlobalMemory {
    regions: Vec<Region>,
    next: u64,
    /// Accesses past a buffer's requested length but inside its granule.
    pub slack_accesses: u64,
    /// The first such access (address, region base).
    pub first_slack: Option<(u64, u64)>,
    /// The region of the last access (most accesses hit the same buffer as the one before).
    last: usize,
}

impl GlobalMemory {
    /// Empty global memory allocating from `base`.
    pub fn new(base: u64) -> Self {
        GlobalMemory { regions: Vec::new(), next: base, slack_accesses: 0, first_slack: None, last: 0 }
    }

    /// Allocates `bytes` (copied) and returns the base address.
    pub fn allocate(&mut self, bytes: Vec<u8>, kind: RegionKind) -> u64 {
        let len = bytes.len() as u64;
        let mapped = len.div_ceil(GRANULE).max(1) * GRANULE;
        let mut data = bytes;
        data.resize(mapped as usize, 0);
        let base = self.next;
        self.next = (base + mapped + GUARD_GAP).next_multiple_of(1 << 16);
        self.regions.push(Region { base, len, data, kind });
        base
    }

    /// The allocations in address order.
    pub fn regions(&self) -> &[Region] {
        &self.regions
    }

    /// The region at `base`, mutable.
    pub fn region_mut(&mut self, base: u64) -> Option<&mut Region> {
        self.regions.iter_mut().find(|r| r.base == base)
    }

    /// The requested bytes of the region at `base`.
    pub fn bytes_of(&self, base: u64) -> Option<&[u8]> {
        let r = self.regions.iter().find(|r| r.base == base)?;
        r.data.get(..r.len as usize)
    }

    fn find(&mut self, addr: u64, size: u32) -> Result<(usize, usize), AccessFault> {
        let fault = AccessFault { space: Space::Global, address: addr, size, reason: FaultReason::OutOfBounds };
        let hit = |r: &Region| addr >= r.base && addr - r.base < r.data.len() as u64;
        let i = match self.regions.get(self.last) {
            Some(r) if hit(r) => self.last,
            _ => match self.regions.binary_search_by(|r| r.base.cmp(&addr)) {
                Ok(i) => i,
                Err(0) => return Err(fault),
                Err(i) => i - 1,
            },
        };
        let r = self.regions.get(i).ok_or(fault)?;
        let off = addr.wrapping_sub(r.base);
        let end = off.checked_add(u64::from(size)).ok_or(fault)?;
        if addr < r.base || end > r.data.len() as u64 {
            return Err(fault);
        }
        if end > r.len {
            self.slack_accesses += 1;
            if self.first_slack.is_none() {
                self.first_slack = Some((addr, r.base));
            }
        }
        self.last = i;
        Ok((i, off as usize))
    }

    /// The whole allocation holding `[lo, hi)` and its base address, if one does (accesses past
    /// the requested length are counted as slack accesses).
    pub fn window(&mut self, lo: u64, hi: u64) -> Option<(&mut [u8], u64)> {
        let size = u32::try_from(hi.checked_sub(lo)?).ok()?;
        let (i, _) = self.find(lo, size).ok()?;
        let r = self.regions.get_mut(i)?;
        Some((r.data.as_mut_slice(), r.base))
    }

    /// The bytes at `addr`, mutable.
    pub fn slice_mut(&mut self, addr: u64, size: u32) -> Result<&mut [u8], AccessFault> {
        let (i, off) = self.find(addr, size)?;
        let fault = AccessFault { space: Space::Global, address: addr, size, reason: FaultReason::OutOfBounds };
        self.regions.get_mut(i).and_then(|r| r.data.get_mut(off..off + size as usize)).ok_or(fault)
    }
}

/// The local memory of the 32 threads of one warp (grows with the call stack).
#[derive(Clone, Debug, Default)]
pub struct LocalMemory {
    lanes: Vec<Vec<u8>>,
}

impl LocalMemory {
    /// Makes sure every lane has at least `bytes` of local memory.
    pub fn ensure(&mut self, bytes: usize) -> Result<(), FaultReason> {
        if bytes > MAX_LOCAL_BYTES {
            return Err(FaultReason::StackOverflow);
        }
        if self.lanes.is_empty() {
            self.lanes = alloc::vec![Vec::new(); 32];
        }
        for l in &mut self.lanes {
            if l.len() < bytes {
                l.resize(bytes, 0);
            }
        }
        Ok(())
    }

    /// The bytes of `lane` at `offset`.
    pub fn slice_mut(&mut self, lane: usize, offset: u64, size: u32) -> Option<&mut [u8]> {
        let off = usize::try_from(offset).ok()?;
        self.lanes.get_mut(lane)?.get_mut(off..off.checked_add(size as usize)?)
    }
}

/// Reads a little-endian value of `bytes.len()` bytes (at most 8 are used).
#[inline]
pub fn read_le(bytes: &[u8]) -> u64 {
    match *bytes {
        [a] => u64::from(a),
        [a, b] => u64::from(u16::from_le_bytes([a, b])),
        [a, b, c, d] => u64::from(u32::from_le_bytes([a, b, c, d])),
        [a, b, c, d, e, f, g, h] => u64::from_le_bytes([a, b, c, d, e, f, g, h]),
        _ => {
            let mut buf = [0u8; 8];
            for (d, s) in buf.iter_mut().zip(bytes) {
                *d = *s;
            }
            u64::from_le_bytes(buf)
        }
    }
}

/// Writes the low `out.len()` bytes of `v`, little-endian.
#[inline]
pub fn write_le(out: &mut [u8], v: u64) {
    let bytes = v.to_le_bytes();
    match out.len() {
        1 => out[0] = bytes[0],
        2 => out.copy_from_slice(&bytes[..2]),
        4 => out.copy_from_slice(&bytes[..4]),
        8 => out.copy_from_slice(&bytes),
        _ => {
            for (d, s) in out.iter_mut().zip(bytes) {
                *d = s;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocations_are_separated_and_checked() {
        let mut g = GlobalMemory::new(AddressLayout::bits64().global_base);
        let a = g.allocate(alloc::vec![1, 2, 3, 4], RegionKind::Buffer(0));
        let b = g.allocate(alloc::vec![0; 1000], RegionKind::Buffer(1));
        assert!(b >= a + GRANULE + GUARD_GAP);
        assert_eq!(g.slice_mut(a, 4).map(|s| s.to_vec()), Ok(alloc::vec![1, 2, 3, 4]));
        assert!(g.slice_mut(a + 8, 4).is_ok());
        assert_eq!(g.slack_accesses, 1);
        assert!(g.slice_mut(a + GRANULE, 4).is_err());
        assert!(g.slice_mut(a - 4, 4).is_err());
        assert!(g.slice_mut(u64::MAX - 1, 4).is_err());
        assert!(g.slice_mut(b + 1020, 4).is_ok());
        assert!(g.slice_mut(b + 1024, 4).is_err());
    }

    #[test]
    fn generic_windows() {
        let l = AddressLayout::bits64();
        assert_eq!(l.classify(l.to_generic(Space::Shared, 16)), (Space::Shared, 16));
        assert_eq!(l.classify(l.global_base + 8), (Space::Global, l.global_base + 8));
        let s = AddressLayout::bits32();
        assert_eq!(s.classify(s.to_generic(Space::Local, 4)), (Space::Local, 4));
    }
}
