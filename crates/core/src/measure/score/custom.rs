//! Scenarios people made (a threshold study's perceived tiers, an edited
//! preset), kept beside the presets: a JSON list, each scenario validated
//! when read so a damaged entry is dropped with its reason instead of
//! breaking every score.

use super::{Scenario, presets};

/// Reads a stored list: the valid scenarios, and why each other one was
/// left out.
pub fn read(text: &str) -> (Vec<Scenario>, Vec<String>) {
    if text.trim().is_empty() {
        return (Vec::new(), Vec::new());
    }
    let values: Vec<serde_json::Value> = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => return (Vec::new(), vec![format!("saved scenarios unreadable: {e}")]),
    };
    let mut good = Vec::new();
    let mut bad = Vec::new();
    for v in values {
        match serde_json::from_value::<Scenario>(v).map_err(|e| e.to_string()).and_then(|s| {
            s.validate().map_err(|e| format!("{}: {e}", s.id))?;
            Ok(s)
        }) {
            Ok(s) => good.push(s),
            Err(e) => bad.push(e),
        }
    }
    (good, bad)
}

/// The list as stored.
pub fn write(list: &[Scenario]) -> String {
    serde_json::to_string(list).unwrap_or_default()
}

/// `list` with `s` in it (replacing the one of the same id).
pub fn with(list: &[Scenario], s: Scenario) -> Vec<Scenario> {
    let mut out: Vec<Scenario> = list.iter().filter(|x| x.id != s.id).cloned().collect();
    out.push(s);
    out
}

/// Presets first, then the custom ones (a custom one never hides a preset
/// of the same id: it is left out).
pub fn all(custom: &[Scenario]) -> Vec<Scenario> {
    let mut out = presets();
    out.extend(custom.iter().filter(|c| !out.iter().any(|p| p.id == c.id)).cloned().collect::<Vec<_>>());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::score::preset;

    #[test]
    fn a_custom_list_round_trips_and_drops_what_is_broken() {
        let mut mine = preset("chat").unwrap();
        mine.id = "chat-perceived".into();
        let list = with(&with(&[], mine.clone()), mine.clone());
        assert_eq!(list.len(), 1, "the same id replaces");
        let (back, bad) = read(&write(&list));
        assert_eq!((back, bad.len()), (list.clone(), 0));
        let mut broken = serde_json::to_value(&mine).unwrap();
        broken["targets"] = serde_json::json!([]);
        let text = serde_json::to_string(&vec![serde_json::to_value(&mine).unwrap(), broken]).unwrap();
        let (good, bad) = read(&text);
        assert_eq!((good.len(), bad.len()), (1, 1));
        assert_eq!(read("{").1.len(), 1);
        assert_eq!(all(&good).len(), presets().len() + 1);
        assert_eq!(
            all(&[preset("chat").unwrap()]).len(),
            presets().len(),
            "a preset's id is kept for the preset"
        );
    }
}
