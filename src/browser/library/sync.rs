//! The library's list kept in step across the page's modules and the
//! browser's tabs: each library announces the entries it wrote or removed
//! on a `BroadcastChannel` ([`CHANNEL`]), and every other library (another
//! module's, another tab's) applies the same changes to its list. The
//! changes travel whole (the entry's JSON, or its removal), so a list
//! never has to be read again while its own writes are in flight.

use std::rc::Rc;

use lab_core::share::library::Entry;
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

use super::Library;
use crate::browser::idb::{self, ENTRIES};

/// The channel's name.
pub const CHANNEL: &str = "latency-lab-library";

/// An open channel and its listener (closed when the library goes).
pub(super) struct Channel {
    channel: web_sys::BroadcastChannel,
    _on: Closure<dyn FnMut(web_sys::MessageEvent)>,
}

impl Drop for Channel {
    fn drop(&mut self) {
        self.channel.close();
    }
}

/// The list changes in `writes`: each entry key with its JSON, or `None`
/// when removed; `None` when they touch no entry.
fn changes_of(writes: &[idb::Write]) -> Option<String> {
    let changes: Vec<(&str, Option<String>)> = writes
        .iter()
        .filter(|(store, ..)| *store == ENTRIES)
        .map(|(_, key, value)| (key.as_str(), value.as_ref().and_then(JsValue::as_string)))
        .collect();
    (!changes.is_empty()).then(|| serde_json::to_string(&changes).unwrap_or_default())
}

impl Library {
    /// Opens the channel and applies what others announce.
    pub(super) fn listen(self) -> Option<Rc<Channel>> {
        let channel = web_sys::BroadcastChannel::new(CHANNEL).ok()?;
        let on = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |ev: web_sys::MessageEvent| {
            if let Some(json) = ev.data().as_string() {
                self.apply(&json);
            }
        });
        channel.set_onmessage(Some(on.as_ref().unchecked_ref()));
        Some(Rc::new(Channel { channel, _on: on }))
    }

    /// Tells the others what `writes` changed in the list.
    pub(super) fn announce(&self, writes: &[idb::Write]) {
        let Some(json) = changes_of(writes) else { return };
        if let Some(Some(c)) = self.channel.try_get_value() {
            let _ = c.channel.post_message(&JsValue::from_str(&json));
        }
    }

    fn apply(&self, json: &str) {
        let Ok(changes) = serde_json::from_str::<Vec<(String, Option<String>)>>(json) else { return };
        let _ = self.entries.try_update(|list| {
            for (id, entry) in changes {
                match entry.and_then(|e| serde_json::from_str::<Entry>(&e).ok()) {
                    Some(e) => match list.iter_mut().find(|x| x.id == id) {
                        Some(x) => *x = e,
                        None => list.insert(0, e),
                    },
                    None => list.retain(|x| x.id != id),
                }
            }
            list.sort_by(|a, b| b.saved_ms.total_cmp(&a.saved_ms));
        });
    }
}
