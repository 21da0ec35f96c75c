//! Feeling an imported run: two of its requests, fetched whole from the
//! worker, handed to the main module's replay lab side by side (a
//! [`Command::Replay`]), which shows the Replay view.

use lab_core::share::command::{Command, RecordedPane};
use leptos::prelude::*;

use super::Importer;
use crate::browser::use_commands;

/// A request to replay: its index in the run and what it is ("worst (P99
/// TTFT)").
pub type Pick = (usize, String);

/// Replays requests `a` and `b` of run `key` (labelled `label`); `error`
/// hears why not.
pub fn replay_pair(
    importer: Importer,
    key: u32,
    label: String,
    a: Pick,
    b: Pick,
    error: RwSignal<Option<String>>,
) {
    let pane = move |(index, what): &Pick, request| {
        let title = format!("{what} · request #{}", index + 1);
        RecordedPane { title: title.clone(), label: format!("{label} · {title}"), request }
    };
    importer.request(key, a.0, move |first| match first {
        Err(e) => error.set(Some(e.to_string())),
        Ok(first) => importer.request(key, b.0, move |second| match second {
            Err(e) => error.set(Some(e.to_string())),
            Ok(second) => {
                error.set(None);
                use_commands::send(&Command::Replay { panes: vec![pane(&a, first), pane(&b, second)] });
            }
        }),
    });
}
