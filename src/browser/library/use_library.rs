//! [`use_library`]: opens the library, lists its entries and saves to it.

use std::cell::RefCell;
use std::rc::Rc;

use lab_core::share::library::{Entry, EntryKind, fresh_id, trace_id};
use lab_core::trace::Trace;
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::{JsCast, JsValue};

use crate::browser::clock::sleep_ms;
use crate::browser::idb::{self, DATA, Db, ENTRIES, StoreError};
use crate::browser::page;

use super::sync::Channel;

/// Resolves after `ms` milliseconds.
/// A fresh entry id of `kind`.
fn new_id(kind: EntryKind) -> String {
    fresh_id(kind, page::epoch_ms(), page::random())
}

/// The library (provided as context by the app).
#[derive(Clone, Copy)]
pub struct Library {
    db: StoredValue<Rc<RefCell<Option<Db>>>, LocalStorage>,
    /// Saved entries, newest first.
    pub entries: RwSignal<Vec<Entry>>,
    /// The last storage problem, for people.
    pub error: RwSignal<Option<StoreError>>,
    /// True once the saved entries are listed.
    pub ready: RwSignal<bool>,
    pub(super) channel: StoredValue<Option<Rc<Channel>>, LocalStorage>,
}

/// Opens the library and lists what is saved.
pub fn use_library() -> Library {
    let lib = Library {
        db: StoredValue::new_local(Rc::new(RefCell::new(None))),
        entries: RwSignal::new(Vec::new()),
        error: RwSignal::new(None),
        ready: RwSignal::new(false),
        channel: StoredValue::new_local(None),
    };
    // Closed when the owner goes (the stored channel is dropped with it).
    lib.channel.set_value(lib.listen());
    spawn_local(async move {
        match idb::open().await {
            Ok(db) => {
                lib.db.get_value().replace(Some(db.clone()));
                match db.all(ENTRIES).await {
                    Ok(values) => {
                        let mut entries: Vec<Entry> = values
                            .iter()
                            .filter_map(|v| v.as_string())
                            .filter_map(|s| serde_json::from_str(&s).ok())
                            .collect();
                        entries.sort_by(|a, b| b.saved_ms.total_cmp(&a.saved_ms));
                        lib.entries.set(entries);
                    }
                    Err(e) => lib.error.set(Some(e)),
                }
            }
            Err(e) => lib.error.set(Some(e)),
        }
        lib.ready.set(true);
    });
    lib
}

impl Library {
    fn db(&self) -> Option<Db> {
        self.db.try_get_value().and_then(|c| c.borrow().clone())
    }

    /// Waits until the database is open (or failed to open), at most 10 s.
    pub async fn opened(&self) -> Result<Db, StoreError> {
        for _ in 0..500 {
            // Ready, or the library is gone with its owner (nothing to wait for).
            if self.ready.try_get_untracked().is_none_or(|ready| ready) {
                break;
            }
            sleep_ms(20.0).await;
        }
        self.db().ok_or_else(|| {
            self.error
                .try_get_untracked()
                .flatten()
                .unwrap_or_else(|| StoreError::Unavailable("it did not open within 10 s".into()))
        })
    }

    /// Stores a JSON document in a side store ([`idb::SESSIONS`],
    /// [`idb::STUDIES`]); resolves once committed.
    pub async fn put_doc(&self, store: &'static str, key: &str, json: String) -> Result<(), StoreError> {
        self.opened().await?;
        self.write(vec![(store, key.to_string(), Some(JsValue::from_str(&json)))]).await
    }

    /// Deletes a document of a side store.
    pub async fn delete_doc(&self, store: &'static str, key: &str) -> Result<(), StoreError> {
        self.opened().await?;
        self.write(vec![(store, key.to_string(), None)]).await
    }

    /// A document of a side store.
    pub async fn get_doc(&self, store: &'static str, key: &str) -> Result<Option<String>, StoreError> {
        let db = self.opened().await?;
        Ok(db.get(store, key).await?.and_then(|v| v.as_string()))
    }

    /// Every document of a side store, in key order.
    pub async fn all_docs(&self, store: &'static str) -> Result<Vec<String>, StoreError> {
        let db = self.opened().await?;
        Ok(db.all(store).await?.iter().filter_map(JsValue::as_string).collect())
    }

    pub(super) fn upsert(&self, entry: Entry) {
        self.entries.update(|list| match list.iter_mut().find(|e| e.id == entry.id) {
            Some(e) => *e = entry,
            None => list.insert(0, entry),
        });
    }

    pub(super) async fn write(&self, writes: Vec<idb::Write>) -> Result<(), StoreError> {
        let db = self.opened().await?;
        let changes: Vec<idb::Write> = writes.iter().filter(|(s, ..)| *s == ENTRIES).cloned().collect();
        let r = db.write(writes).await;
        match &r {
            Ok(()) => self.announce(&changes),
            Err(e) => self.error.set(Some(e.clone())),
        }
        r
    }

    pub(super) fn entry_value(e: &Entry) -> JsValue {
        JsValue::from_str(&serde_json::to_string(e).unwrap_or_default())
    }

    /// Saves (or updates) a trace under its library id (a live run keeps
    /// one across its checkpoints); keeps the name and tags already given.
    pub fn save_trace(&self, trace: &Trace, complete: bool) {
        let lib = *self;
        let (_, writes) = self.trace_writes(trace, complete);
        spawn_local(async move {
            let _ = lib.write(writes).await;
        });
    }

    /// Saves `trace` and answers once it is written: its entry's id.
    pub async fn saved_trace(&self, trace: &Trace, complete: bool) -> Result<String, StoreError> {
        let (id, writes) = self.trace_writes(trace, complete);
        self.write(writes).await.map(|()| id)
    }

    /// The entry of `trace` (listed at once) and the writes that keep it.
    fn trace_writes(&self, trace: &Trace, complete: bool) -> (String, Vec<idb::Write>) {
        let id = trace_id(trace, page::epoch_ms(), page::random());
        let mut entry =
            Entry::for_trace(id.clone(), EntryKind::of_trace(trace), trace, complete, page::epoch_ms());
        if let Some(old) = self.entries.with_untracked(|l| l.iter().find(|e| e.id == id).cloned()) {
            entry.name = old.name;
            entry.tags = old.tags;
        }
        self.upsert(entry.clone());
        let json = JsValue::from_str(&trace.to_json());
        (id.clone(), vec![(ENTRIES, id.clone(), Some(Self::entry_value(&entry))), (DATA, id, Some(json))])
    }

    /// Saves an imported file (the file itself, as a Blob).
    pub fn save_file(&self, file: &web_sys::File) {
        let id = new_id(EntryKind::Import);
        let entry = Entry::for_file(id.clone(), &file.name(), file.size() as u64, page::epoch_ms());
        self.upsert(entry.clone());
        let blob: JsValue = file.clone().into();
        let lib = *self;
        spawn_local(async move {
            let _ = lib
                .write(vec![(ENTRIES, id.clone(), Some(Self::entry_value(&entry))), (DATA, id, Some(blob))])
                .await;
        });
    }

    /// Saves a text document (a study's answers) as an entry of `kind`;
    /// `count` is what its list row shows (answers).
    pub fn save_text(&self, kind: EntryKind, name: &str, text: &str, count: usize) {
        self.save_text_as(new_id(kind), kind, name, text, count);
    }

    /// Saves (or updates) a text document under `id` (a study server's
    /// answers keep one entry that follows them); a name or tags given in
    /// the library stay.
    pub fn save_text_as(&self, id: String, kind: EntryKind, name: &str, text: &str, count: usize) {
        let mut entry = Entry::for_file(id.clone(), name, text.len() as u64, page::epoch_ms());
        entry.kind = kind;
        entry.file_name = None;
        entry.requests = count;
        if let Some(old) = self.entries.with_untracked(|l| l.iter().find(|e| e.id == id).cloned()) {
            entry.name = old.name;
            entry.tags = old.tags;
        }
        self.upsert(entry.clone());
        let value = JsValue::from_str(text);
        let lib = *self;
        spawn_local(async move {
            let _ = lib
                .write(vec![(ENTRIES, id.clone(), Some(Self::entry_value(&entry))), (DATA, id, Some(value))])
                .await;
        });
    }

    /// The text of a text entry (study answers).
    pub async fn text(&self, id: &str) -> Result<String, StoreError> {
        let db = self.opened().await?;
        let v = db.get(DATA, id).await?.ok_or(StoreError::Missing("its data"))?;
        v.as_string().ok_or_else(|| damaged("text", "it holds a file".into()))
    }

    /// Renames and retags an entry.
    pub fn edit(&self, id: &str, name: String, tags: Vec<String>) {
        let Some(mut entry) = self.entries.with_untracked(|l| l.iter().find(|e| e.id == id).cloned()) else {
            return;
        };
        entry.name = name;
        entry.tags = tags;
        self.upsert(entry.clone());
        let lib = *self;
        spawn_local(async move {
            let _ = lib.write(vec![(ENTRIES, entry.id.clone(), Some(Self::entry_value(&entry)))]).await;
        });
    }

    /// Deletes entries and their data; the rows go once the deletion is
    /// committed (a failure leaves them listed, with the reason).
    pub async fn delete(&self, ids: &[String]) -> Result<(), StoreError> {
        let writes =
            ids.iter().flat_map(|id| [(ENTRIES, id.clone(), None), (DATA, id.clone(), None)]).collect();
        self.write(writes).await?;
        self.entries.update(|l| l.retain(|e| !ids.contains(&e.id)));
        Ok(())
    }

    /// The saved trace of an entry.
    pub async fn trace(&self, id: &str) -> Result<Trace, StoreError> {
        let db = self.opened().await?;
        let v = db.get(DATA, id).await?.ok_or(StoreError::Missing("its data"))?;
        let text = v.as_string().ok_or_else(|| damaged("trace", "it holds a file".into()))?;
        Trace::from_json(&text).map_err(|e| damaged("trace", e.to_string()))
    }

    /// The saved file of an import entry.
    pub async fn file(&self, id: &str) -> Result<web_sys::File, StoreError> {
        let db = self.opened().await?;
        let v = db.get(DATA, id).await?.ok_or(StoreError::Missing("its file"))?;
        v.dyn_into::<web_sys::File>().map_err(|_| damaged("file", "it holds text".into()))
    }
}

fn damaged(what: &'static str, message: String) -> StoreError {
    StoreError::Damaged { what, message }
}
