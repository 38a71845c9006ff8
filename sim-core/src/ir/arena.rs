//! Arenas with typed handles, and span side tables.
//!
//! Every IR entity that other entities refer to (registers, blocks, instructions, variables,
//! functions) lives in an [`Arena`] and is named by a [`Handle`], a typed `u32` index. Source spans
//! are kept beside the arena in a [`SpanTable`] keyed by the same handle, so the IR itself stays
//! span-free and two IRs can be compared structurally.
//!
//! ```text
//! .reg .b32 %r<3>;      // three entries in the register arena: Handle(0) .. Handle(2)
//! ```

use alloc::vec::Vec;
use core::fmt;
use core::hash::{Hash, Hasher};
use core::marker::PhantomData;

use serde::{Deserialize, Serialize};

use crate::diagnostic::Span;

/// A typed index into an [`Arena<T>`].
#[derive(Serialize, Deserialize)]
#[serde(transparent)]
pub struct Handle<T> {
    index: u32,
    #[serde(skip)]
    marker: PhantomData<fn() -> T>,
}

impl<T> Handle<T> {
    /// The handle of the `index`-th element (no bounds check: use it with the arena it came from).
    pub const fn from_index(index: u32) -> Self {
        Handle { index, marker: PhantomData }
    }

    /// The position of the element in its arena.
    pub const fn index(self) -> usize {
        self.index as usize
    }

    /// The raw `u32` index.
    pub const fn raw(self) -> u32 {
        self.index
    }
}

impl<T> Clone for Handle<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Handle<T> {}
impl<T> PartialEq for Handle<T> {
    fn eq(&self, other: &Self) -> bool {
        self.index == other.index
    }
}
impl<T> Eq for Handle<T> {}
impl<T> PartialOrd for Handle<T> {
    fn partial_cmp(&self, other: &Self) -> Option<core::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl<T> Ord for Handle<T> {
    fn cmp(&self, other: &Self) -> core::cmp::Ordering {
        self.index.cmp(&other.index)
    }
}
impl<T> Hash for Handle<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.index.hash(state);
    }
}
impl<T> fmt::Debug for Handle<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.index)
    }
}

/// A growable store of `T` addressed by [`Handle<T>`]; elements are never removed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Arena<T> {
    items: Vec<T>,
}

impl<T> Default for Arena<T> {
    fn default() -> Self {
        Arena { items: Vec::new() }
    }
}

impl<T> Arena<T> {
    /// An empty arena.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `value` and returns its handle. Arenas hold at most `u32::MAX` elements; past that the
    /// handle saturates (no real PTX comes close).
    pub fn alloc(&mut self, value: T) -> Handle<T> {
        let index = u32::try_from(self.items.len()).unwrap_or(u32::MAX);
        self.items.push(value);
        Handle::from_index(index)
    }

    /// The element, or `None` for a handle from another arena that is out of range.
    pub fn get(&self, handle: Handle<T>) -> Option<&T> {
        self.items.get(handle.index())
    }

    /// Mutable access to the element.
    pub fn get_mut(&mut self, handle: Handle<T>) -> Option<&mut T> {
        self.items.get_mut(handle.index())
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Elements with their handles, in allocation order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (Handle<T>, &T)> + '_ {
        self.items.iter().enumerate().map(|(i, v)| (Handle::from_index(i as u32), v))
    }

    /// Handles in allocation order.
    pub fn handles(&self) -> impl ExactSizeIterator<Item = Handle<T>> {
        (0..self.items.len() as u32).map(Handle::from_index)
    }

    /// Elements in allocation order.
    pub fn values(&self) -> core::slice::Iter<'_, T> {
        self.items.iter()
    }

    /// Whether `handle` is in range.
    pub fn contains(&self, handle: Handle<T>) -> bool {
        handle.index() < self.items.len()
    }
}

impl<T> core::ops::Index<Handle<T>> for Arena<T> {
    type Output = T;
    /// Indexing with a handle of this arena. Library code that may hold a foreign handle uses
    /// [`Arena::get`]; handles produced by lowering are always in range (the verifier checks).
    fn index(&self, handle: Handle<T>) -> &T {
        &self.items[handle.index()]
    }
}

/// Source spans of the elements of one arena, keyed by handle.
///
/// Spans are not part of the identity of the IR: two span tables always compare equal, so
/// `PartialEq` on IR types compares structure only (a kernel parsed from emitted PTX equals the
/// original although every span moved).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SpanTable<T> {
    spans: Vec<Span>,
    #[serde(skip)]
    marker: PhantomData<fn() -> T>,
}

impl<T> Default for SpanTable<T> {
    fn default() -> Self {
        SpanTable::new()
    }
}

impl<T> PartialEq for SpanTable<T> {
    fn eq(&self, _other: &Self) -> bool {
        true
    }
}
impl<T> Eq for SpanTable<T> {}

impl<T> SpanTable<T> {
    /// An empty table.
    pub fn new() -> Self {
        SpanTable { spans: Vec::new(), marker: PhantomData }
    }

    /// Records the span of `handle` (missing entries in between are filled with empty spans).
    pub fn insert(&mut self, handle: Handle<T>, span: Span) {
        let i = handle.index();
        if self.spans.len() <= i {
            self.spans.resize(i + 1, Span::default());
        }
        self.spans[i] = span;
    }

    /// The span of `handle`, or an empty span at 0 if none was recorded.
    pub fn get(&self, handle: Handle<T>) -> Span {
        self.spans.get(handle.index()).copied().unwrap_or_default()
    }
}

/// Source spans of the operands of each instruction, keyed by instruction handle: one flat list,
/// so the table costs two allocations however many instructions there are. Like [`SpanTable`],
/// it never takes part in comparisons.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct OperandSpans {
    /// Where each instruction's spans start in `spans` (instructions in handle order).
    starts: Vec<u32>,
    spans: Vec<Span>,
}

impl PartialEq for OperandSpans {
    fn eq(&self, _other: &Self) -> bool {
        true
    }
}
impl Eq for OperandSpans {}

impl OperandSpans {
    /// Records the operand spans of instruction `index` (instructions must be added in order;
    /// missing ones get no spans).
    pub fn push(&mut self, index: usize, operands: impl IntoIterator<Item = Span>) {
        let here = u32::try_from(self.spans.len()).unwrap_or(u32::MAX);
        while self.starts.len() <= index {
            self.starts.push(here);
        }
        self.spans.extend(operands);
    }

    /// The span of operand `operand` of instruction `index`, if recorded.
    pub fn get(&self, index: usize, operand: usize) -> Option<Span> {
        let start = *self.starts.get(index)? as usize;
        let end = self.starts.get(index + 1).map_or(self.spans.len(), |e| *e as usize);
        self.spans.get(start..end)?.get(operand).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_index_their_arena() {
        let mut a: Arena<&str> = Arena::new();
        let x = a.alloc("x");
        let y = a.alloc("y");
        assert_eq!(a[x], "x");
        assert_eq!(a.get(y), Some(&"y"));
        assert_eq!(a.get(Handle::from_index(7)), None);
        assert_eq!(a.handles().collect::<Vec<_>>(), [x, y]);
        let mut spans = SpanTable::new();
        spans.insert(y, Span::new(3, 4));
        assert_eq!(spans.get(y), Span::new(3, 4));
        assert_eq!(spans.get(x), Span::default());
        assert_eq!(spans, SpanTable::new());
        let mut ops = OperandSpans::default();
        ops.push(0, [Span::new(1, 2), Span::new(3, 4)]);
        ops.push(2, [Span::new(9, 9)]);
        assert_eq!(ops.get(0, 1), Some(Span::new(3, 4)));
        assert_eq!(ops.get(1, 0), None);
        assert_eq!(ops.get(2, 0), Some(Span::new(9, 9)));
        assert_eq!(ops.get(3, 0), None);
    }
}
