//! Versions of a study design. Answers mean something only against the
//! design that collected them: a threshold's level is "over the reference
//! the participant saw", a staircase's reversals exist only under a
//! staircase. So a design that has answers, or that is published on a
//! study server (participants may be answering it), is **frozen**: an edit
//! to it makes a new version with its own id ([`Study::new_version`]) and
//! the answers stay with the version that collected them.
//!
//! - [`Study::fingerprint`] names what participants were shown: the design
//!   as a participant's browser holds it ([`Study::blinded`]: condition
//!   names, which participants never see, do not count), hashed with
//!   64-bit FNV-1a over its compact JSON. Sessions record it, so results
//!   can leave out the researcher's test runs of an earlier draft.
//! - [`Frozen`] says why a design cannot change in place, for people.

use super::Study;

/// Why a design cannot be edited in place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frozen {
    /// Participants' answers were collected with it (test runs aside).
    Answered(usize),
    /// It is published on a study server.
    Published,
}

impl Frozen {
    /// Why, given the answers collected with the design (the researcher's
    /// test runs left out) and whether it is published. `None`: it can
    /// change in place.
    pub fn of(answers: usize, published: bool) -> Option<Self> {
        match (answers, published) {
            (0, false) => None,
            (0, true) => Some(Self::Published),
            (n, _) => Some(Self::Answered(n)),
        }
    }

    /// What an edit will do, said before it is made.
    pub fn hint(&self) -> String {
        let why = match self {
            Self::Answered(n) => format!("This design has {n} answer(s)"),
            Self::Published => "This design is published on the study server".to_string(),
        };
        format!(
            "{why}: a change to it makes a new version, so the answers stay with the design that collected them."
        )
    }

    /// What happened to an edit of design `old`, now version `new`.
    pub fn explain(&self, old: &str, new: &str) -> String {
        let why = match self {
            Self::Answered(n) => {
                format!("\"{old}\" already has {n} answer(s), collected with the design as it was")
            }
            Self::Published => {
                format!("\"{old}\" is published on the study server, where participants may be answering it")
            }
        };
        format!(
            "{why}, so this change made a new version, \"{new}\". The answers stay with \"{old}\": choose it under Saved studies to see them."
        )
    }
}

/// The `-vN` suffix of a version id, if any: `(base, N)`.
fn split_version(id: &str) -> (&str, u32) {
    if let Some((base, n)) = id.rsplit_once("-v")
        && let Ok(n) = n.parse::<u32>()
        && !base.is_empty()
        && n >= 2
    {
        return (base, n);
    }
    (id, 1)
}

impl Study {
    /// What participants are shown, as a short hex name (module docs).
    pub fn fingerprint(&self) -> String {
        let json = serde_json::to_string(&self.blinded()).unwrap_or_default();
        let hash = json
            .bytes()
            .fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
        format!("{hash:016x}")
    }

    /// This design as the next version: the id `<base>-v2`, `-v3`… (the
    /// first not `taken`), the title marked with the version.
    pub fn new_version(&self, taken: impl Fn(&str) -> bool) -> Study {
        let (base, n) = split_version(&self.id);
        let mut next = self.clone();
        let k = (n + 1..).find(|k| !taken(&format!("{base}-v{k}"))).unwrap_or(n + 1);
        next.id = format!("{base}-v{k}");
        let title = self.title.strip_suffix(&format!(" (v{n})")).unwrap_or(&self.title);
        next.title = format!("{title} (v{k})");
        next
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::study::threshold::design::{Dimension, ThresholdDesign};

    #[test]
    fn what_participants_see_names_the_design() {
        let s = Study::example();
        let mut renamed = s.clone();
        renamed.conditions[0].name = "the researcher's own words".into();
        assert_eq!(s.fingerprint(), renamed.fingerprint(), "names never reach participants");
        assert_eq!(s.fingerprint(), s.blinded().fingerprint());
        let mut t =
            Study::new_threshold(ThresholdDesign::new(Dimension::Ttft, "ttft=200,tokens=40".into(), 1));
        let before = t.fingerprint();
        t.edit_threshold(|d| d.reference = "ttft=400,tokens=40".into());
        assert_ne!(before, t.fingerprint());
        assert_eq!(before.len(), 16);
    }

    #[test]
    fn a_new_version_takes_the_next_free_id() {
        let mut s = Study::example();
        s.title = "Wait or stutter".into();
        let v2 = s.new_version(|_| false);
        assert_eq!((v2.id.as_str(), v2.title.as_str()), ("ttft-vs-jitter-v2", "Wait or stutter (v2)"));
        let v3 = v2.new_version(|id| id == "ttft-vs-jitter-v3");
        assert_eq!((v3.id.as_str(), v3.title.as_str()), ("ttft-vs-jitter-v4", "Wait or stutter (v4)"));
        assert_eq!(v3.conditions, s.conditions);
        let mut odd = s.clone();
        odd.id = "-v9".into();
        assert_eq!(odd.new_version(|_| false).id, "-v9-v2");
    }

    #[test]
    fn frozen_says_why() {
        assert_eq!(Frozen::of(0, false), None);
        assert_eq!(Frozen::of(0, true), Some(Frozen::Published));
        assert_eq!(Frozen::of(135, true), Some(Frozen::Answered(135)));
        let text = Frozen::Answered(135).explain("jnd", "jnd-v2");
        assert_eq!(
            text,
            "\"jnd\" already has 135 answer(s), collected with the design as it was, so this change made a new version, \"jnd-v2\". The answers stay with \"jnd\": choose it under Saved studies to see them."
        );
        assert!(Frozen::Published.explain("a", "a-v2").contains("published on the study server"));
        assert!(
            Frozen::Answered(3)
                .hint()
                .starts_with("This design has 3 answer(s): a change to it makes a new version")
        );
    }
}
