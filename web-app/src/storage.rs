//! Keeps the editor text and the user's settings in the browser's local storage so a reload never
//! loses work.
//!
//! ```text
//! localStorage["reglab.v1.source"]       = "<the PTX text>"
//! localStorage["reglab.v1.source-check"] = "1443:9f0c…"      (length and FNV-1a digest of the text)
//! localStorage["reglab.v1.settings"]     = "gpu=fermi-gtx480\nthreads=320"   (see settings.rs)
//! ```
//!
//! Storage can be missing or refuse (private mode, a sandboxed iframe, a full quota): every
//! function reports that as a value ([`SaveError`]) and the page keeps working without it. A saved
//! text that does not match its check, or is not text at all (control characters), is returned as
//! [`Restored::Unreadable`] so the page can offer it as a download instead of loading it as source.
//! Off the browser (native builds and tests) there is no storage.

/// The key of the editor text; the version lets a later format move elsewhere without confusion.
pub const SOURCE_KEY: &str = "reglab.v1.source";

/// The key of the text's check (`<length in bytes>:<FNV-1a 64 in hex>`), written after the text.
pub const CHECK_KEY: &str = "reglab.v1.source-check";

/// Why something could not be saved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SaveError {
    /// Local storage cannot be used at all (disabled, private mode, a sandboxed iframe).
    Unavailable,
    /// Local storage refused the text: its quota (a few MB per site) is full.
    Full,
}

/// What local storage held for the editor text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Restored {
    /// Nothing (first visit, or no storage).
    Nothing,
    /// The text, as saved.
    Text(String),
    /// Something that cannot be the saved text; kept to be downloaded, never loaded as source.
    Unreadable {
        /// What was stored.
        text: String,
        /// Why it is not trusted, in plain words.
        why: &'static str,
    },
}

/// The saved editor text, checked.
pub fn load_source() -> Restored {
    match imp::get(SOURCE_KEY) {
        None => Restored::Nothing,
        Some(text) => match check_saved(&text, imp::get(CHECK_KEY).as_deref()) {
            Ok(()) => Restored::Text(text),
            Err(why) => Restored::Unreadable { text, why },
        },
    }
}

/// Saves the editor text and its check. The old check goes first, so a text saved without its
/// check (quota reached in between) is trusted as an older save would be, never refused.
pub fn save_source(text: &str) -> Result<(), SaveError> {
    imp::remove(CHECK_KEY)?;
    imp::set(SOURCE_KEY, text)?;
    // Best effort: without its check the text is still trusted on reload.
    let _ = imp::set(CHECK_KEY, &check_of(text));
    Ok(())
}

/// Whether local storage can be used at all (a full one still counts as usable).
pub fn available() -> bool {
    imp::available()
}

/// The check stored beside a text: its length in bytes and its FNV-1a 64-bit digest.
pub fn check_of(text: &str) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in text.as_bytes() {
        hash = (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    format!("{}:{hash:016x}", text.len())
}

/// Whether a stored text can be loaded as source: it matches its check (if one was stored) and
/// has no control characters other than tab, line and page breaks.
pub fn check_saved(text: &str, check: Option<&str>) -> Result<(), &'static str> {
    if check.is_some_and(|c| c != check_of(text)) {
        return Err("it does not match the check saved with it");
    }
    if text.chars().any(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r' | '\u{c}')) {
        return Err("it holds control characters, so it is not PTX text");
    }
    Ok(())
}

/// The key of the settings (kernel, GPU, launch); versioned like the text's.
pub const SETTINGS_KEY: &str = "reglab.v1.settings";

/// The saved settings' text form, if storage works and holds one.
pub fn load_settings() -> Option<String> {
    imp::get(SETTINGS_KEY)
}

/// Saves the settings' text form; false if storage is unavailable or refused it.
pub fn save_settings(text: &str) -> bool {
    imp::set(SETTINGS_KEY, text).is_ok()
}

/// The key of the launch setup (JSON text of `sim_core::exec::LaunchSetup`).
pub const LAUNCH_KEY: &str = "reglab.v1.launch";

/// The saved launch setup (JSON text), if any.
pub fn load_launch() -> Option<String> {
    imp::get(LAUNCH_KEY)
}

/// Saves the launch setup (JSON text); false if storage is unavailable or refused it.
pub fn save_launch(json: &str) -> bool {
    imp::set(LAUNCH_KEY, json).is_ok()
}

/// The key of the schemes to compare (one `NAME[:k=v,…]` spec per line).
pub const SCHEMES_KEY: &str = "reglab.v1.schemes";

/// The saved schemes, if any were saved.
pub fn load_schemes() -> Option<Vec<String>> {
    imp::get(SCHEMES_KEY).map(|t| t.lines().filter(|l| !l.trim().is_empty()).map(str::to_owned).collect())
}

/// Saves the schemes; false if storage is unavailable or refused them.
pub fn save_schemes(specs: &[String]) -> bool {
    imp::set(SCHEMES_KEY, &specs.join("\n")).is_ok()
}

/// The key of the work a link or experiment file replaced (experiment JSON, see
/// `sim_core::experiment`), kept so it survives a reload until the user lets it go.
pub const PREVIOUS_KEY: &str = "reglab.v1.previous";

/// The saved previous work (experiment JSON), if any.
pub fn load_previous() -> Option<String> {
    imp::get(PREVIOUS_KEY)
}

/// Saves the previous work (`Some`) or forgets it (`None`); false if storage refused.
pub fn save_previous(json: Option<&str>) -> bool {
    match json {
        Some(j) => imp::set(PREVIOUS_KEY, j).is_ok(),
        None => imp::remove(PREVIOUS_KEY).is_ok(),
    }
}

#[cfg(target_arch = "wasm32")]
mod imp {
    use super::SaveError;

    fn storage() -> Option<web_sys::Storage> {
        web_sys::window()?.local_storage().ok().flatten()
    }

    pub fn available() -> bool {
        storage().is_some()
    }

    pub fn get(key: &str) -> Option<String> {
        storage()?.get_item(key).ok().flatten()
    }

    pub fn set(key: &str, value: &str) -> Result<(), SaveError> {
        let storage = storage().ok_or(SaveError::Unavailable)?;
        storage.set_item(key, value).map_err(|e| {
            let name = js_sys::Reflect::get(&e, &"name".into()).ok().and_then(|n| n.as_string());
            match name.as_deref() {
                Some("QuotaExceededError" | "NS_ERROR_DOM_QUOTA_REACHED") => SaveError::Full,
                _ => SaveError::Unavailable,
            }
        })
    }

    pub fn remove(key: &str) -> Result<(), SaveError> {
        let storage = storage().ok_or(SaveError::Unavailable)?;
        storage.remove_item(key).map_err(|_| SaveError::Unavailable)
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    use super::SaveError;

    pub fn available() -> bool {
        false
    }

    pub fn get(_key: &str) -> Option<String> {
        None
    }

    pub fn set(_key: &str, _value: &str) -> Result<(), SaveError> {
        Err(SaveError::Unavailable)
    }

    pub fn remove(_key: &str) -> Result<(), SaveError> {
        Err(SaveError::Unavailable)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_matching_its_check_or_saved_without_one_is_trusted() {
        let text = ".version 8.5\n\tret;\n";
        assert_eq!(check_saved(text, Some(&check_of(text))), Ok(()));
        assert_eq!(check_saved(text, None), Ok(()), "saves from before the check existed");
        // FNV-1a 64 of the empty text is its offset basis.
        assert_eq!(check_of(""), "0:cbf29ce484222325");
        // One byte: (basis ^ 'a') * prime = 0xaf63dc4c8601ec8c (the published FNV-1a test vector).
        assert_eq!(check_of("a"), "1:af63dc4c8601ec8c");
    }

    #[test]
    fn a_changed_text_or_binary_garbage_is_unreadable() {
        let text = ".version 8.5\n";
        let check = check_of(text);
        assert!(check_saved(".version 8.4\n", Some(&check)).is_err(), "same length, other digest");
        assert!(check_saved(".version 8.5\n\n", Some(&check)).is_err(), "other length");
        assert!(check_saved("\u{0}\u{1}PK\u{3}\u{4}", None).is_err(), "a zip file's bytes");
        assert_eq!(check_saved("a\tb\r\nc\u{c}", None), Ok(()), "tab, CR LF and form feed are text");
    }
}
