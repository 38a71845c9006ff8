//! Keeps the editor text and the user's settings in the browser's local storage so a reload never
//! loses work.
//!
//! ```text
//! localStorage["reglab.v1.source"]   = "<the PTX text>"
//! localStorage["reglab.v1.settings"] = "gpu=fermi-gtx480\nthreads=320"   (see settings.rs)
//! ```
//!
//! Storage can be missing or refuse (private mode, a sandboxed iframe, a full quota): every
//! function reports that as a value and the page keeps working without it. Off the browser
//! (native builds and tests) there is no storage.

/// The key of the editor text; the version lets a later format move elsewhere without confusion.
pub const SOURCE_KEY: &str = "reglab.v1.source";

/// The saved editor text, if storage works and holds one.
pub fn load_source() -> Option<String> {
    imp::get(SOURCE_KEY)
}

/// Saves the editor text; false if storage is unavailable or refused it.
pub fn save_source(text: &str) -> bool {
    imp::set(SOURCE_KEY, text)
}

/// The key of the settings (kernel, GPU, launch); versioned like the text's.
pub const SETTINGS_KEY: &str = "reglab.v1.settings";

/// The saved settings' text form, if storage works and holds one.
pub fn load_settings() -> Option<String> {
    imp::get(SETTINGS_KEY)
}

/// Saves the settings' text form; false if storage is unavailable or refused it.
pub fn save_settings(text: &str) -> bool {
    imp::set(SETTINGS_KEY, text)
}

#[cfg(target_arch = "wasm32")]
mod imp {
    fn storage() -> Option<web_sys::Storage> {
        web_sys::window()?.local_storage().ok().flatten()
    }

    pub fn get(key: &str) -> Option<String> {
        storage()?.get_item(key).ok().flatten()
    }

    pub fn set(key: &str, value: &str) -> bool {
        storage().is_some_and(|s| s.set_item(key, value).is_ok())
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    pub fn get(_key: &str) -> Option<String> {
        None
    }

    pub fn set(_key: &str, _value: &str) -> bool {
        false
    }
}
