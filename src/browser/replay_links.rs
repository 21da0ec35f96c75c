//! Share links of the replay lab's panes: making one (compressed by the
//! browser, copied to the clipboard) and playing one as it was shared.

use lab_core::replay::pane::{PaneConfig, shared_panes, story_of};
use lab_core::replay::story;
use lab_core::share::link::{ShareError, Shared, SharedPane};
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::replay::{MAX_PANES, RenderMode};
use super::share;
use super::use_replay_lab::UseReplayLab;

impl UseReplayLab {
    /// Plays the panes of a share link as they were shared: as Markdown or
    /// text, at the speed they played (a shared story keeps its
    /// explanation); `Err` says why they cannot play.
    pub fn show_shared(
        &self,
        panes: &[SharedPane],
        markdown: bool,
        speed: Option<f64>,
    ) -> Result<(), ShareError> {
        let list = shared_panes(panes, MAX_PANES).map_err(ShareError::Pane)?;
        if list.is_empty() {
            return Err(ShareError::NoPane);
        }
        let story = story_of(panes, &story::stories()).map(|s| s.id.clone());
        self.render.set(if markdown { RenderMode::Markdown } else { RenderMode::Text });
        self.set_speed(speed.filter(|s| s.is_finite() && *s > 0.0).unwrap_or(1.0));
        self.show(list);
        self.story_id.set(story.unwrap_or_default());
        Ok(())
    }

    /// Makes (and copies) a link to every pane, or to pane `only`.
    pub fn share(&self, only: Option<usize>) {
        let cfgs = self.panes.get_untracked();
        let chosen: Vec<&PaneConfig> =
            cfgs.iter().enumerate().filter(|(i, _)| only.is_none_or(|o| o == *i)).map(|(_, c)| c).collect();
        let shared: Result<Vec<SharedPane>, String> = chosen.iter().map(|c| c.to_shared()).collect();
        let title = match only {
            Some(i) => cfgs.get(i).map(|c| c.title.clone()).unwrap_or_default(),
            None => story::story(&self.story_id.get_untracked())
                .map_or_else(|| "Side by side".to_string(), |s| s.title),
        };
        let link = self.share_link;
        let markdown = self.render.get_untracked() == RenderMode::Markdown;
        let speed = Some(self.speed.get_untracked()).filter(|s| *s != 1.0);
        match shared {
            Err(e) => link.set(Some(Err(ShareError::Pane(e)))),
            Ok(panes) => spawn_local(async move {
                link.set(Some(share::link_for(&Shared::Panes { title, panes, markdown, speed }).await));
            }),
        }
    }
}
