//! The browser's localStorage, for the small choices the app remembers (guided start,
//! animation, exercise attempts, progress). Storage can be disabled or full: a read then
//! finds nothing and a write is lost, and the choice lasts for this visit only.

fn local() -> Option<web_sys::Storage> {
    leptos::prelude::window().local_storage().ok().flatten()
}

pub fn get(key: &str) -> Option<String> {
    local()?.get_item(key).ok().flatten()
}

pub fn set(key: &str, value: &str) {
    if let Some(storage) = local() {
        let _ = storage.set_item(key, value);
    }
}

pub fn remove(key: &str) {
    if let Some(storage) = local() {
        let _ = storage.remove_item(key);
    }
}
