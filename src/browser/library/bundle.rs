//! Library bundles: entries with their traces or file texts, exported to
//! move a library to another browser, and added back (new ids where they
//! clash).

use lab_core::share::library::{Bundle, BundleItem, Entry, EntryKind};
use lab_core::trace::Trace;
use leptos::prelude::*;
use wasm_bindgen::{JsCast, JsValue};

use super::Library;
use crate::browser::files::js_message;
use crate::browser::idb::{DATA, ENTRIES};
use crate::browser::idb::{StoreError, classify};
use crate::browser::page;

impl Library {
    /// A bundle of the given entries (all when empty).
    pub async fn bundle(&self, ids: &[String]) -> Result<Bundle, StoreError> {
        let db = self.opened().await?;
        let entries: Vec<Entry> = self
            .entries
            .get_untracked()
            .into_iter()
            .filter(|e| ids.is_empty() || ids.contains(&e.id))
            .collect();
        let mut items = Vec::new();
        for entry in entries {
            let v = db.get(DATA, &entry.id).await?;
            let (trace, text) = match v {
                Some(v) if v.is_string() => {
                    let text = v.as_string().unwrap_or_default();
                    match entry.kind {
                        EntryKind::Live | EntryKind::Replay => (Trace::from_json(&text).ok(), None),
                        _ => (None, Some(text)),
                    }
                }
                Some(v) => match v.dyn_into::<web_sys::Blob>() {
                    Ok(b) => {
                        let t = wasm_bindgen_futures::JsFuture::from(b.text())
                            .await
                            .map_err(|e| StoreError::Damaged { what: "file", message: js_message(&e) })?;
                        (None, t.as_string())
                    }
                    Err(_) => (None, None),
                },
                None => (None, None),
            };
            items.push(BundleItem { entry, trace, text });
        }
        Ok(Bundle::new(items))
    }

    /// Adds a bundle's items (new ids where they clash); returns how many.
    pub async fn add_bundle(&self, bundle: Bundle) -> Result<usize, StoreError> {
        let mut writes = Vec::new();
        let mut added = Vec::new();
        for mut item in bundle.items {
            if self.entries.with_untracked(|l| l.iter().any(|e| e.id == item.entry.id)) {
                item.entry.id = format!("{}-copy-{}", item.entry.id, page::epoch_ms() as u64);
            }
            let data = match (&item.trace, &item.text) {
                (Some(t), _) => JsValue::from_str(&t.to_json()),
                (None, Some(text)) if item.entry.kind != EntryKind::Import => JsValue::from_str(text),
                (None, Some(text)) => {
                    let parts = js_sys::Array::of1(&JsValue::from_str(text));
                    let name = item.entry.file_name.clone().unwrap_or_else(|| item.entry.name.clone());
                    web_sys::File::new_with_str_sequence(&parts, &name).map_err(|e| classify(&e))?.into()
                }
                (None, None) => continue,
            };
            writes.push((ENTRIES, item.entry.id.clone(), Some(Self::entry_value(&item.entry))));
            writes.push((DATA, item.entry.id.clone(), Some(data)));
            added.push(item.entry);
        }
        let n = added.len();
        self.write(writes).await?;
        for e in added {
            self.upsert(e);
        }
        Ok(n)
    }
}
