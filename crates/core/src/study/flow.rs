//! The participant flow: where one participant is in a study, and what each
//! of their actions does. Pure: the browser plays the samples, stores the
//! session after every change and shows the step.
//!
//! Steps: **consent** (when the study asks for it) → **instructions** →
//! for every trial: **ready** (the Play button) → **playing** → **answer**
//! (one question at a time; the response time runs from the end of playback
//! to the answer) → the next trial's ready … → **done**. A participant who
//! comes back after a reload lands on **resume** (or consent, if they had not
//! agreed yet, or done). A hidden tab during playback returns the trial to
//! ready: it is played again from the start.
//!
//! Blindness: a trial shows only "Sample n" (rating) or "Pair n: A and B"
//! (choice) ([`trial_title`]); a condition's name or profile never reaches
//! the participant's screen. Every condition plays the study's text
//! ([`trial_panes`]), so only the timing differs.

use crate::replay::pane::{PaneConfig, PaneSource, ProfileDraft};
use crate::replay::profile::TextSource;
use crate::study::answer::{Answer, AnswerError};
pub use crate::study::answer::{TEST_PREFIX, is_test, participant_id, test_participant_id};
use crate::study::plan::{Block, Trial};
use crate::study::session::Session;
use crate::study::timing::Timing;
use crate::study::{ConditionSource, Question, Study};

/// Where the participant is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Step {
    /// Reading (and accepting) the consent text.
    Consent,
    /// Reading the instructions.
    Instructions,
    /// Came back after a reload.
    Resume,
    /// Before a trial plays.
    Ready,
    /// The trial plays.
    Playing,
    /// Answering; playback ended at this page time (ms).
    Answer(f64),
    /// Every trial answered.
    Done,
    /// The consent declined: nothing plays and nothing is recorded (the
    /// participant may read the consent again, [`Flow::reconsider`]).
    Declined,
}

/// What an answer led to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AfterAnswer {
    /// Another question of the same trial.
    NextQuestion,
    /// The next trial is ready to play.
    NextTrial,
    /// The study is complete.
    Done,
}

/// One participant's flow through a study.
#[derive(Debug, Clone, PartialEq)]
pub struct Flow {
    /// The study.
    pub study: Study,
    /// The session (what is stored).
    pub session: Session,
    /// The step shown.
    pub step: Step,
    /// What the browser could show in the trial played last (set when its
    /// playback ends, recorded with each of its answers).
    pub played: Option<Timing>,
}

/// Numbers drawn for participants of a study link without a server.
pub const DRAWN_NUMBERS: u32 = 10_000;

/// The number of a participant who opened a study link (no server to count
/// them): drawn at random from `random` in `[0, 1)`, so every row of the
/// Latin square is equally likely for every participant and the rows
/// balance in expectation across people (a study server numbers
/// participants in turn, which balances them exactly).
pub fn drawn_number(random: f64) -> u32 {
    ((random.clamp(0.0, 1.0) * f64::from(DRAWN_NUMBERS)) as u32).min(DRAWN_NUMBERS - 1)
}

impl Flow {
    /// A new participant, numbered after the `number` sessions already
    /// held for this study.
    pub fn begin(study: Study, number: u32, random: f64) -> Self {
        Self::begin_as(study, participant_id(number, random), number)
    }

    /// A new participant with the id and number a study server handed out.
    pub fn begin_as(study: Study, participant: String, number: u32) -> Self {
        let session = Session::new(&study, participant, number);
        let step = if study.consent.is_some() { Step::Consent } else { Step::Instructions };
        Self { study, session, step, played: None }
    }

    /// A session saved earlier, after a reload.
    pub fn resume(study: Study, session: Session) -> Self {
        let step = match (session.is_complete(&study), session.consented) {
            (true, _) => Step::Done,
            (false, false) => Step::Consent,
            (false, true) => Step::Resume,
        };
        Self { study, session, step, played: None }
    }

    /// Consent given (the session changed: store it).
    pub fn accept_consent(&mut self) {
        if self.step == Step::Consent {
            self.session.consented = true;
            self.step = Step::Instructions;
        }
    }

    /// Consent declined: no trial plays, no answer is taken.
    pub fn decline_consent(&mut self) {
        if self.step == Step::Consent {
            self.step = Step::Declined;
        }
    }

    /// Back to the consent after declining it.
    pub fn reconsider(&mut self) {
        if self.step == Step::Declined {
            self.step = Step::Consent;
        }
    }

    /// From the instructions (or the welcome back) to the first open trial.
    pub fn start_trials(&mut self) {
        if matches!(self.step, Step::Instructions | Step::Resume) {
            self.step = self.ready_or_done();
        }
    }

    fn ready_or_done(&self) -> Step {
        if self.session.is_complete(&self.study) { Step::Done } else { Step::Ready }
    }

    /// The trial in progress.
    pub fn trial(&self) -> Option<&Trial> {
        self.session.current(&self.study)
    }

    /// Trials done and in all (a threshold study's procedure may stop
    /// before its most trials, which this gives).
    pub fn progress(&self) -> (usize, usize) {
        let all = match &self.study.threshold {
            Some(d) => d.max_trials() as usize,
            None => self.session.trials.len(),
        };
        (self.session.done_trials(&self.study), all)
    }

    /// The progress in words: "3 of 9 done", or "3 done (at most 80)".
    pub fn progress_text(&self) -> String {
        let (done, all) = self.progress();
        if self.study.is_threshold() {
            format!("{done} done (at most {all})")
        } else {
            format!("{done} of {all} done")
        }
    }

    /// Plays the current trial: the panes to load, blind (titled "A", "B").
    pub fn play(&mut self) -> Option<Vec<PaneConfig>> {
        if self.step != Step::Ready {
            return None;
        }
        let panes = trial_panes(&self.study, self.trial()?);
        self.step = Step::Playing;
        Some(panes)
    }

    /// Playback of the trial ended at `at_ms` (every pane on screen), with
    /// what the browser could show in it (`timing`: recorded with each of
    /// the trial's answers).
    pub fn playback_ended(&mut self, at_ms: f64, timing: Option<Timing>) {
        if self.step == Step::Playing {
            self.step = Step::Answer(at_ms);
            self.played = timing;
        }
    }

    /// Playback was cut (the tab was hidden): the trial plays again.
    pub fn interrupted(&mut self) {
        if self.step == Step::Playing {
            self.step = Step::Ready;
        }
    }

    /// The question to answer now: the first unanswered one of the trial.
    pub fn question(&self) -> Option<&Question> {
        let Step::Answer(_) = self.step else { return None };
        let t = self.trial()?;
        Session::questions(&self.study, t)
            .into_iter()
            .find(|q| !self.session.responses.iter().any(|r| r.trial == t.index && r.question == q.id()))
    }

    /// Records the answer given at `now_ms` (the session changed: store it).
    pub fn answer(
        &mut self,
        question: &str,
        answer: Answer,
        now_ms: f64,
    ) -> Result<AfterAnswer, AnswerError> {
        let Step::Answer(ended) = self.step else {
            return Err(AnswerError::Question(question.to_string()));
        };
        let before = self.trial().map(|t| t.index);
        self.session.answer_with(&self.study, question, answer, now_ms - ended, self.played)?;
        Ok(if self.session.is_complete(&self.study) {
            self.step = Step::Done;
            AfterAnswer::Done
        } else if self.trial().map(|t| t.index) != before {
            self.step = Step::Ready;
            AfterAnswer::NextTrial
        } else {
            AfterAnswer::NextQuestion
        })
    }
}

/// What a trial is called on the participant's screen.
pub fn trial_title(t: &Trial) -> String {
    match t.block {
        Block::Rating => format!("Sample {}", t.index + 1),
        Block::Choice => format!("Pair {}: A and B", t.index + 1),
    }
}

/// The blind label of pane `i` of a trial ("A"/"B" in pairs, none alone).
pub fn pane_label(t: &Trial, i: usize) -> &'static str {
    match (t.block, i) {
        (Block::Choice, 0) => "A",
        (Block::Choice, 1) => "B",
        _ => "",
    }
}

/// The pane a condition plays: its profile with the study's text (so every
/// condition streams the same words), or its recorded request.
pub fn condition_pane(study: &Study, id: &str) -> Option<PaneConfig> {
    let c = study.conditions.iter().find(|c| c.id == id)?;
    let source = match &c.source {
        ConditionSource::Profile(_) => {
            let mut profile = c.profile().ok()??;
            profile.text = TextSource::Sample { id: study.text.clone() };
            PaneSource::Profile(ProfileDraft { profile, prompt_tokens: 0 })
        }
        ConditionSource::Recorded(r) => PaneSource::Recorded { label: c.id.clone(), request: r.clone() },
    };
    Some(PaneConfig { title: c.id.clone(), source, smoothing: c.smoothing })
}

/// The panes of a trial, titled with their blind labels only.
pub fn trial_panes(study: &Study, t: &Trial) -> Vec<PaneConfig> {
    if let Some(d) = &study.threshold {
        return crate::study::threshold::in_study::pair_panes(d, &study.text, t);
    }
    t.conditions
        .iter()
        .enumerate()
        .filter_map(|(k, id)| {
            let mut p = condition_pane(study, id)?;
            p.title = ["A", "B"].get(k).copied().unwrap_or("").to_string();
            Some(p)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer_current(f: &mut Flow, now: f64) -> AfterAnswer {
        let q = f.question().cloned().expect("a question is open");
        let a = match q {
            Question::Rating { .. } => Answer::Rating(4),
            Question::Choice { .. } => Answer::Choice(1),
        };
        f.answer(q.id(), a, now).unwrap()
    }

    /// Issue 44: consent offered only "I agree".
    #[test]
    fn a_declined_consent_plays_nothing_and_can_be_read_again() {
        let mut study = Study::example();
        study.consent = Some("ok?".into());
        let mut f = Flow::begin(study, 2, 0.5);
        f.decline_consent();
        assert_eq!(f.step, Step::Declined);
        assert!(!f.session.consented);
        f.start_trials();
        assert_eq!((f.step, f.play()), (Step::Declined, None), "nothing starts or plays");
        assert!(f.question().is_none() && f.session.responses.is_empty());
        f.reconsider();
        assert_eq!(f.step, Step::Consent);
        f.accept_consent();
        assert_eq!(f.step, Step::Instructions);
        f.decline_consent();
        assert_eq!(f.step, Step::Instructions, "declining is for the consent only");
    }

    #[test]
    fn a_participant_goes_from_consent_to_done() {
        let mut study = Study::example();
        study.consent = Some("ok?".into());
        let mut f = Flow::begin(study, 2, 0.5);
        assert_eq!(f.session.participant, "p003-7fffff");
        assert_eq!(f.step, Step::Consent);
        assert_eq!(f.play(), None, "nothing plays before consent");
        f.start_trials();
        assert_eq!(f.step, Step::Consent, "instructions come after consent");
        f.accept_consent();
        assert!(f.session.consented);
        assert_eq!(f.step, Step::Instructions);
        f.start_trials();
        assert_eq!(f.step, Step::Ready);
        let total = f.session.trials.len();
        let mut trials = 0;
        loop {
            let panes = f.play().expect("a trial plays");
            let t = f.trial().unwrap().clone();
            assert_eq!(panes.len(), t.conditions.len());
            for (i, p) in panes.iter().enumerate() {
                assert_eq!(p.title, ["A", "B"][i], "blind titles only");
            }
            assert_eq!(f.step, Step::Playing);
            assert_eq!(f.question(), None, "no question while playing");
            f.playback_ended(1000.0, None);
            let mut outcome = answer_current(&mut f, 1250.0);
            while outcome == AfterAnswer::NextQuestion {
                outcome = answer_current(&mut f, 1300.0);
            }
            trials += 1;
            let last = f.session.responses.last().unwrap();
            assert!(last.rt_ms >= 250.0, "rt runs from the end of playback");
            if outcome == AfterAnswer::Done {
                break;
            }
            assert_eq!(f.step, Step::Ready);
            assert_eq!(f.progress(), (trials, total));
        }
        assert_eq!((trials, f.step), (total, Step::Done));
        assert!(f.session.is_complete(&f.study));
    }

    #[test]
    fn reload_resumes_and_hidden_tab_replays() {
        let mut study = Study::example();
        study.consent = None;
        let mut f = Flow::begin(study.clone(), 0, 0.0);
        assert_eq!(f.step, Step::Instructions, "no consent asked");
        assert!(f.session.consented, "nothing to agree to");
        f.start_trials();
        f.play();
        f.interrupted();
        assert_eq!(f.step, Step::Ready, "a cut playback plays again");
        assert!(f.answer("q1", Answer::Rating(3), 5.0).is_err(), "no answer before playback ends");
        f.play();
        let fell_back = Timing {
            engine: crate::study::timing::Engine::WebKit,
            isolated: true,
            scheduler: crate::study::timing::SchedulerPath::MainThread,
            ..Timing::default()
        };
        f.playback_ended(10.0, Some(fell_back));
        answer_current(&mut f, 20.0);
        let answered = f.session.responses.last().unwrap();
        assert_eq!(answered.timing, Some(fell_back), "the answer carries the playback's timing");
        assert!(!answered.precise());
        let back = Flow::resume(study.clone(), f.session.clone());
        assert_eq!(back.step, Step::Resume);
        let mut unconsented = f.session.clone();
        unconsented.consented = false;
        assert_eq!(Flow::resume(study, unconsented).step, Step::Consent);
    }

    #[test]
    fn titles_and_labels_are_blind() {
        let rating = Trial { index: 2, block: Block::Rating, conditions: vec!["c1".into()], level: None };
        let pair =
            Trial { index: 7, block: Block::Choice, conditions: vec!["c2".into(), "c1".into()], level: None };
        assert_eq!(trial_title(&rating), "Sample 3");
        assert_eq!(trial_title(&pair), "Pair 8: A and B");
        assert_eq!((pane_label(&rating, 0), pane_label(&pair, 0), pane_label(&pair, 1)), ("", "A", "B"));
        let study = Study::example();
        let p = condition_pane(&study, "c1").unwrap();
        match p.source {
            PaneSource::Profile(d) => {
                assert_eq!(d.profile.text, TextSource::Sample { id: study.text.clone() })
            }
            PaneSource::Recorded { .. } => panic!("the example's conditions are profiles"),
        }
        assert!(condition_pane(&study, "nope").is_none());
    }

    #[test]
    fn a_condition_plays_with_its_smoothing_and_keeps_it_in_json() {
        use crate::replay::smooth::Smoothing;
        let mut study = Study::example();
        study.conditions[1].smoothing = Smoothing::from_key("words");
        let json = serde_json::to_string(&study).unwrap();
        let back: Study = serde_json::from_str(&json).unwrap();
        assert_eq!(condition_pane(&back, "c2").unwrap().smoothing, Smoothing::from_key("words"));
        assert_eq!(condition_pane(&back, "c1").unwrap().smoothing, Smoothing::Off);
        assert_eq!(json.matches("smoothing").count(), 1, "an unsmoothed condition writes nothing new");
    }

    #[test]
    fn test_sessions_are_marked_and_link_numbers_drawn_uniformly() {
        assert!(is_test("test-001-abc") && !is_test("p001-abc"));
        assert_eq!(test_participant_id(0, 0.0), "test-001-000000");
        assert!(is_test(&test_participant_id(41, 0.5)));
        assert_eq!((drawn_number(0.0), drawn_number(0.99999), drawn_number(1.0)), (0, 9999, 9999));
        // Equal draws land equally often on each of 6 rows.
        let mut rows = [0u32; 6];
        for i in 0..6000 {
            rows[(drawn_number((f64::from(i) + 0.5) / 6000.0) % 6) as usize] += 1;
        }
        assert!(rows.iter().all(|&n| (990..=1010).contains(&n)), "{rows:?}");
        let study = Study::example();
        let mut f = Flow::begin_as(study.clone(), "test-001-x".into(), 0);
        f.accept_consent();
        f.start_trials();
        assert_eq!(f.session.participant, "test-001-x");
    }
}
