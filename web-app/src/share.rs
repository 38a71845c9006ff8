//! Share links: an [`Experiment`] in a URL fragment, compressed and versioned. Pure Rust (tested
//! natively); nothing of it is sent to any server, since browsers never send the fragment.
//!
//! ```text
//! #v1.eNqrVkrOz0nNTUxXslIqSk0tS…      "v1." + base64url(zlib(experiment JSON)), no padding
//! ```
//!
//! Limits (refused with a message, before any work is done): a fragment of at most
//! [`MAX_FRAGMENT_CHARS`] characters (1 MiB; browsers accept URLs of about 2 MB), inflating to at
//! most [`MAX_STATE_BYTES`] (the experiment format's document limit, 16 MiB). Reading a fragment
//! never panics: anything that is not a `v<N>.` link of this or an older version, or that does not
//! inflate and check (zlib's Adler-32 catches corruption), is an error in plain words.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use sim_core::experiment::{Experiment, ExperimentError, FORMAT_VERSION, MAX_DOCUMENT_BYTES};

/// Longest fragment read, in characters.
pub const MAX_FRAGMENT_CHARS: usize = 1 << 20;

/// Largest experiment a fragment may inflate to, in bytes.
pub const MAX_STATE_BYTES: usize = MAX_DOCUMENT_BYTES;

/// Deflate level (miniz's best; links are written rarely and read once).
const LEVEL: u8 = 10;

/// What a URL fragment holds.
#[derive(Clone, Debug, PartialEq)]
pub enum Fragment {
    /// Nothing (no fragment, or `#`).
    Empty,
    /// An in-page anchor such as `#gpu-preset`: not ours, left alone.
    Anchor,
    /// A link's state, or why it cannot be read.
    State(Result<Box<Experiment>, ShareError>),
}

/// Why a link cannot be opened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShareError {
    /// Not a RegLab link at all.
    Foreign,
    /// Longer than [`MAX_FRAGMENT_CHARS`].
    TooLong(usize),
    /// Cut short or changed on the way (bad base64, bad deflate data, checksum mismatch).
    Corrupt(&'static str),
    /// Inflates to more than [`MAX_STATE_BYTES`].
    TooLarge,
    /// The state inside is not a usable experiment.
    Experiment(ExperimentError),
}

impl core::fmt::Display for ShareError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            ShareError::Foreign => write!(f, "its fragment is not a RegLab state (it should start with #v1.)"),
            ShareError::TooLong(n) => {
                write!(f, "its state is {n} characters long, over the limit of {MAX_FRAGMENT_CHARS}")
            }
            ShareError::Corrupt(why) => write!(f, "it is damaged or cut short ({why})"),
            ShareError::TooLarge => write!(f, "its state unpacks to more than {MAX_STATE_BYTES} bytes"),
            ShareError::Experiment(e) => write!(f, "{e}"),
        }
    }
}

/// The fragment (without `#`) of a link to `experiment`.
pub fn encode(experiment: &Experiment) -> String {
    let json = experiment.to_json();
    let packed = miniz_oxide::deflate::compress_to_vec_zlib(json.as_bytes(), LEVEL);
    format!("v{FORMAT_VERSION}.{}", URL_SAFE_NO_PAD.encode(packed))
}

/// Reads a fragment (with or without its `#`); `examples` are the bundled examples' ids.
pub fn read_fragment(fragment: &str, examples: &[&str]) -> Fragment {
    let text = fragment.strip_prefix('#').unwrap_or(fragment);
    if text.is_empty() {
        return Fragment::Empty;
    }
    if is_anchor(text) {
        return Fragment::Anchor;
    }
    Fragment::State(decode(text, examples).map(Box::new))
}

/// An in-page anchor: a short name of letters, digits, `-` and `_`, starting with a letter.
fn is_anchor(text: &str) -> bool {
    text.len() <= 64
        && text.starts_with(|c: char| c.is_ascii_alphabetic())
        && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// Reads a link's state (`v<N>.<payload>`).
pub fn decode(text: &str, examples: &[&str]) -> Result<Experiment, ShareError> {
    if text.len() > MAX_FRAGMENT_CHARS {
        return Err(ShareError::TooLong(text.len()));
    }
    let (tag, payload) = text.split_once('.').ok_or(ShareError::Foreign)?;
    let version = tag
        .strip_prefix('v')
        .filter(|d| !d.is_empty() && d.len() <= 9 && d.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|d| d.parse::<u64>().ok())
        .ok_or(ShareError::Foreign)?;
    if version > u64::from(FORMAT_VERSION) {
        return Err(ShareError::Experiment(ExperimentError::TooNew(version)));
    }
    if version == 0 {
        return Err(ShareError::Foreign);
    }
    let packed =
        URL_SAFE_NO_PAD.decode(payload.trim_end_matches('=')).map_err(|_| ShareError::Corrupt("not base64url"))?;
    let json =
        miniz_oxide::inflate::decompress_to_vec_zlib_with_limit(&packed, MAX_STATE_BYTES).map_err(|e| {
            match e.status {
                miniz_oxide::inflate::TINFLStatus::HasMoreOutput => ShareError::TooLarge,
                miniz_oxide::inflate::TINFLStatus::Adler32Mismatch => ShareError::Corrupt("checksum mismatch"),
                miniz_oxide::inflate::TINFLStatus::FailedCannotMakeProgress => ShareError::Corrupt("cut short"),
                _ => ShareError::Corrupt("not deflate data"),
            }
        })?;
    let json = String::from_utf8(json).map_err(|_| ShareError::Corrupt("not text"))?;
    Experiment::from_json(&json, examples).map_err(ShareError::Experiment)
}

#[cfg(test)]
#[path = "share_tests.rs"]
mod tests;
