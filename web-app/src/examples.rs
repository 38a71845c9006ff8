//! The bundled example kernels, embedded at build time from `static/examples/` (see `build.rs`).
//!
//! Embedded rather than fetched: all of them together are about 30 KB of text (a few KB of the
//! gzipped wasm), the default content (vector add) must be there synchronously on the first visit,
//! and embedding means no loading state, no failure path, and a page that keeps working offline or
//! from any sub-path. Trunk still copies the folder into the site so each file can be downloaded.

/// One bundled kernel with the metadata from `static/examples/index.json`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Example {
    /// Stable identifier (also the `<option>` value in the picker).
    pub id: &'static str,
    /// Short human title.
    pub title: &'static str,
    /// One sentence on what the kernel does and why it is interesting.
    pub description: &'static str,
    /// File name under `static/examples/` (and `./examples/` in the built site).
    pub file: &'static str,
    /// The PTX text.
    pub source: &'static str,
}

include!(concat!(env!("OUT_DIR"), "/examples.rs"));

/// The example with this id.
pub fn find(id: &str) -> Option<&'static Example> {
    EXAMPLES.iter().find(|e| e.id == id)
}

/// What the editor shows when nothing was saved: the vector-add kernel.
pub fn default_example() -> Option<&'static Example> {
    find("vector_add").or(EXAMPLES.first())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_lists_the_required_kernels_with_sources() {
        assert!(EXAMPLES.len() >= 5);
        for id in ["vector_add", "matmul_tiled", "reduction", "hotspot", "histogram"] {
            let e = find(id);
            assert!(e.is_some_and(|e| e.source.contains(".entry")), "{id}");
        }
        assert_eq!(default_example().map(|e| e.id), Some("vector_add"));
    }
}
