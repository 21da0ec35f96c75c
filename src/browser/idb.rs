//! A small async wrapper over IndexedDB (web-sys), enough for the run
//! library and study sessions: one database, string keys, values that are
//! strings (JSON) or Blobs (imported files). Every write waits for its
//! transaction to commit, so "saved" means on disk; a full disk or quota
//! shows up as [`StoreError::Quota`], never silently.

use std::rc::Rc;

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::files::js_message;

/// Database name.
pub const DB_NAME: &str = "latency-lab";
/// Schema version (bump and extend [`STORES`] to add stores).
pub const DB_VERSION: u32 = 1;
/// Library entries (JSON of `lab_core::share::library::Entry`).
pub const ENTRIES: &str = "entries";
/// The data of entries: trace JSON strings or file Blobs.
pub const DATA: &str = "data";
/// Participant sessions of studies (JSON).
pub const SESSIONS: &str = "sessions";
/// Saved study designs (JSON).
pub const STUDIES: &str = "studies";
/// All object stores.
pub const STORES: [&str; 4] = [ENTRIES, DATA, SESSIONS, STUDIES];

/// Why storage failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// IndexedDB cannot be used (private mode, disabled, blocked).
    #[error("browser storage (IndexedDB) is unavailable: {0}")]
    Unavailable(String),
    /// Out of space.
    #[error("browser storage is full (quota exceeded): {0}; delete runs or export and remove them")]
    Quota(String),
    /// Anything else.
    #[error("browser storage failed: {0}")]
    Failed(String),
    /// The entry's data is not there (deleted in another tab?).
    #[error("{0} is missing from browser storage")]
    Missing(&'static str),
    /// Stored data that cannot be read as what it should be.
    #[error("the saved {what} cannot be read: {message}")]
    Damaged {
        /// What it should be ("trace", "file", "text").
        what: &'static str,
        /// Why not.
        message: String,
    },
}

/// Classifies a storage exception (IndexedDB or Web Storage).
pub fn classify(v: &JsValue) -> StoreError {
    let name = v.dyn_ref::<web_sys::DomException>().map(|e| e.name()).unwrap_or_default();
    let msg = js_message(v);
    if name == "QuotaExceededError" {
        StoreError::Quota(msg)
    } else {
        StoreError::Failed(format!("{name} {msg}").trim().to_string())
    }
}

/// Resolves when an `IDBRequest` succeeds, with its result.
async fn done(req: &web_sys::IdbRequest) -> Result<JsValue, StoreError> {
    let promise = js_sys::Promise::new(&mut |resolve, reject| {
        let r = req.clone();
        let ok = Closure::once_into_js(move |_: web_sys::Event| {
            let _ = resolve.call1(&JsValue::NULL, &r.result().unwrap_or(JsValue::UNDEFINED));
        });
        let r = req.clone();
        let err = Closure::once_into_js(move |_: web_sys::Event| {
            let e = r.error().ok().flatten().map_or(JsValue::from_str("request failed"), JsValue::from);
            let _ = reject.call1(&JsValue::NULL, &e);
        });
        req.set_onsuccess(Some(ok.unchecked_ref()));
        req.set_onerror(Some(err.unchecked_ref()));
    });
    JsFuture::from(promise).await.map_err(|e| classify(&e))
}

/// Resolves when a transaction commits (or fails with its error).
async fn committed(tx: &web_sys::IdbTransaction) -> Result<(), StoreError> {
    let promise = js_sys::Promise::new(&mut |resolve, reject| {
        let ok = Closure::once_into_js(move |_: web_sys::Event| {
            let _ = resolve.call0(&JsValue::NULL);
        });
        let t = tx.clone();
        let reject2 = reject.clone();
        let err = Closure::once_into_js(move |_: web_sys::Event| {
            let e = t.error().map_or(JsValue::from_str("transaction failed"), JsValue::from);
            let _ = reject.call1(&JsValue::NULL, &e);
        });
        let t = tx.clone();
        let abort = Closure::once_into_js(move |_: web_sys::Event| {
            let e = t.error().map_or(JsValue::from_str("transaction aborted"), JsValue::from);
            let _ = reject2.call1(&JsValue::NULL, &e);
        });
        tx.set_oncomplete(Some(ok.unchecked_ref()));
        tx.set_onerror(Some(err.unchecked_ref()));
        tx.set_onabort(Some(abort.unchecked_ref()));
    });
    JsFuture::from(promise).await.map(|_| ()).map_err(|e| classify(&e))
}

/// An open database.
#[derive(Clone)]
pub struct Db(Rc<web_sys::IdbDatabase>);

/// One write of a batch: store, key, value (`None` deletes).
pub type Write = (&'static str, String, Option<JsValue>);

/// Opens (and on first use creates) the database.
pub async fn open() -> Result<Db, StoreError> {
    let factory = web_sys::window()
        .and_then(|w| w.indexed_db().ok().flatten())
        .ok_or_else(|| StoreError::Unavailable("this browser offers no IndexedDB here".into()))?;
    let req =
        factory.open_with_u32(DB_NAME, DB_VERSION).map_err(|e| StoreError::Unavailable(js_message(&e)))?;
    let upgrade = Closure::<dyn FnMut(web_sys::IdbVersionChangeEvent)>::new(
        move |ev: web_sys::IdbVersionChangeEvent| {
            let Some(db) = ev
                .target()
                .and_then(|t| t.dyn_into::<web_sys::IdbOpenDbRequest>().ok())
                .and_then(|r| r.result().ok())
                .and_then(|r| r.dyn_into::<web_sys::IdbDatabase>().ok())
            else {
                return;
            };
            let names = db.object_store_names();
            for store in STORES {
                if !names.contains(store) {
                    let _ = db.create_object_store(store);
                }
            }
        },
    );
    req.set_onupgradeneeded(Some(upgrade.as_ref().unchecked_ref()));
    let result = done(&req).await;
    drop(upgrade);
    let db = result
        .map_err(|e| StoreError::Unavailable(e.to_string()))?
        .dyn_into::<web_sys::IdbDatabase>()
        .map_err(|_| StoreError::Unavailable("open returned no database".into()))?;
    Ok(Db(Rc::new(db)))
}

impl Db {
    fn tx(&self, stores: &[&str], write: bool) -> Result<web_sys::IdbTransaction, StoreError> {
        let names = js_sys::Array::new();
        for s in stores {
            names.push(&JsValue::from_str(s));
        }
        let mode = if write {
            web_sys::IdbTransactionMode::Readwrite
        } else {
            web_sys::IdbTransactionMode::Readonly
        };
        self.0.transaction_with_str_sequence_and_mode(&names, mode).map_err(|e| classify(&e))
    }

    /// Writes (and deletes) atomically, across stores; resolves once
    /// committed.
    pub async fn write(&self, writes: Vec<Write>) -> Result<(), StoreError> {
        let mut stores: Vec<&str> = writes.iter().map(|w| w.0).collect();
        stores.sort_unstable();
        stores.dedup();
        let tx = self.tx(&stores, true)?;
        for (store, key, value) in &writes {
            let os = tx.object_store(store).map_err(|e| classify(&e))?;
            let key = JsValue::from_str(key);
            let r = match value {
                Some(v) => os.put_with_key(v, &key),
                None => os.delete(&key),
            };
            r.map_err(|e| classify(&e))?;
        }
        committed(&tx).await
    }

    /// One value, `None` when absent.
    pub async fn get(&self, store: &str, key: &str) -> Result<Option<JsValue>, StoreError> {
        let tx = self.tx(&[store], false)?;
        let os = tx.object_store(store).map_err(|e| classify(&e))?;
        let req = os.get(&JsValue::from_str(key)).map_err(|e| classify(&e))?;
        let v = done(&req).await?;
        Ok((!v.is_undefined()).then_some(v))
    }

    /// Every value of a store, in key order.
    pub async fn all(&self, store: &str) -> Result<Vec<JsValue>, StoreError> {
        let tx = self.tx(&[store], false)?;
        let os = tx.object_store(store).map_err(|e| classify(&e))?;
        let req = os.get_all().map_err(|e| classify(&e))?;
        let v = done(&req).await?;
        Ok(js_sys::Array::from(&v).iter().collect())
    }
}
