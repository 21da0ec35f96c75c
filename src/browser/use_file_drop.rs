//! A drop zone for files (`leptos-use`'s `use_drop_zone`): files dropped on
//! the target go to a callback; whether something is being dragged over it
//! is a signal (for styling).

use leptos::prelude::*;
use leptos_use_drop_zone::{UseDropZoneEvent, UseDropZoneOptions, use_drop_zone_with_options};

/// What the drop zone tells.
#[derive(Clone, Copy)]
pub struct UseFileDrop {
    /// Files are being dragged over the target.
    pub over: Signal<bool>,
}

/// Makes `target` a drop zone; `on_files` receives each drop's files.
pub fn use_file_drop(
    target: NodeRef<leptos::html::Label>,
    on_files: Callback<Vec<web_sys::File>>,
) -> UseFileDrop {
    let options = UseDropZoneOptions::default().on_drop(move |ev: UseDropZoneEvent| {
        if !ev.files.is_empty() {
            on_files.run(ev.files);
        }
    });
    let zone = use_drop_zone_with_options(target, options);
    UseFileDrop { over: zone.is_over_drop_zone }
}
