//! The participant's cards outside trials (consent, instructions, welcome
//! back, done) and the question of a trial.

use lab_core::study::Question;
use lab_core::study::flow::Step;
use lab_core::study::results::Answer;
use leptos::prelude::*;

use crate::browser::study::UseParticipantFlow;

/// The card of the step, when it is not a trial.
#[component]
pub fn StepCard() -> impl IntoView {
    let f = expect_context::<UseParticipantFlow>();
    let progress = move || f.flow.with(|f| f.as_ref().map(|f| f.progress_text()));
    move || {
        let (step, title, consent, instructions) = f.flow.with(|fl| {
            fl.as_ref().map(|fl| {
                (fl.step, fl.study.title.clone(), fl.study.consent.clone(), fl.study.instructions.clone())
            })
        })?;
        Some(match step {
            Step::Consent => view! {
                <div class="participant-card" data-testid="participant-consent">
                    <h2>{title}</h2>
                    <p class="consent-text">{consent.unwrap_or_default()}</p>
                    <TimingNote/>
                    <button type="button" data-testid="consent-accept" data-autofocus="" on:click=move |_| f.accept_consent()>"I agree"</button>
                    " "<button type="button" class="secondary" data-testid="consent-decline" on:click=move |_| f.decline_consent(true)>"I do not agree"</button>
                </div>
            }
            .into_any(),
            Step::Declined => view! {
                <div class="participant-card" data-testid="participant-declined">
                    <h2>{title}</h2>
                    <p>"You did not agree, so nothing was recorded and nothing will be. You can close this page."</p>
                    <button type="button" class="secondary" data-testid="consent-again" data-autofocus="" on:click=move |_| f.decline_consent(false)>"Read the consent again"</button>
                </div>
            }
            .into_any(),
            Step::Instructions => view! {
                <div class="participant-card" data-testid="participant-instructions">
                    <h2>{title}</h2>
                    <p>{instructions}</p>
                    <TimingNote/>
                    <button type="button" data-testid="participant-begin" data-autofocus="" on:click=move |_| f.start_trials()>"Begin"</button>
                </div>
            }
            .into_any(),
            Step::Resume => view! {
                <div class="participant-card" data-testid="participant-resume">
                    <h2>"Welcome back"</h2>
                    <p>{move || progress().map(|p| format!("Your answers are saved: {p}. Continue where you left off."))}</p>
                    <button type="button" data-testid="participant-continue" data-autofocus="" on:click=move |_| f.start_trials()>"Continue"</button>
                </div>
            }
            .into_any(),
            Step::Done => view! {
                <div class="participant-card" data-testid="participant-done">
                    <h2>"Thank you!"</h2>
                    <DoneReceipt/>
                    <button type="button" data-testid="participant-download" data-autofocus="" on:click=move |_| f.download_answers()>"Download my answers"</button>
                    <button type="button" class="secondary" data-testid="participant-close" on:click=move |_| f.leave()>"Close"</button>
                </div>
            }
            .into_any(),
            Step::Ready | Step::Playing | Step::Answer(_) => ().into_any(),
        })
    }
}

/// What this browser can show, said before consent (and before the
/// instructions): checked once, when the flow opens.
#[component]
fn TimingNote() -> impl IntoView {
    let f = expect_context::<UseParticipantFlow>();
    move || {
        let t = f.timing.get();
        let precise = t.map(|t| t.precise());
        let text = t.map_or_else(|| "Checking what your browser can show…".to_string(), |t| t.sentence());
        view! {
            <p class=if precise == Some(false) { "warn" } else { "hint" } data-testid="participant-timing"
                data-precise=precise.map(|p| p.to_string())>{text}</p>
        }
    }
}

/// The question to answer now.
#[component]
pub fn QuestionView(question: Question) -> impl IntoView {
    let f = expect_context::<UseParticipantFlow>();
    match question {
        Question::Rating { id, prompt, points, low, high } => {
            let qid = id.clone();
            view! {
                <fieldset class="question" data-testid="question-rating" data-question=id tabindex="-1" data-autofocus="">
                    <legend>{prompt}</legend>
                    <div class="likert">
                        <span class="likert-end">{low}</span>
                        {(1..=points).map(|v| {
                            let qid = qid.clone();
                            view! {
                                <button type="button" class="likert-point" data-testid=format!("rate-{v}")
                                    on:click=move |_| f.answer(qid.clone(), Answer::Rating(v))>{v}</button>
                            }
                        }).collect_view()}
                        <span class="likert-end">{high}</span>
                    </div>
                </fieldset>
            }
            .into_any()
        }
        Question::Choice { id, prompt } => {
            let (a, b) = (id.clone(), id.clone());
            view! {
                <fieldset class="question" data-testid="question-choice" data-question=id tabindex="-1" data-autofocus="">
                    <legend>{prompt}</legend>
                    <div class="choice">
                        <button type="button" data-testid="choose-a" on:click=move |_| f.answer(a.clone(), Answer::Choice(0))>"A"</button>
                        <button type="button" data-testid="choose-b" on:click=move |_| f.answer(b.clone(), Answer::Choice(1))>"B"</button>
                    </div>
                </fieldset>
            }
            .into_any()
        }
    }
}

/// Where a finished participant's answers are: on the study server (with
/// the receipt), still on their way, or in this browser only.
#[component]
fn DoneReceipt() -> impl IntoView {
    let f = expect_context::<UseParticipantFlow>();
    let receipt = move || {
        let (participant, answers) = f
            .flow
            .with(|fl| fl.as_ref().map(|fl| (fl.session.participant.clone(), fl.session.responses.len())))?;
        if f.pending.get() > 0 {
            // The session's last save to this browser is still in flight.
            return Some(
                "You have finished this study. Saving your last answer in this browser…".to_string(),
            );
        }
        let server = f.server.get();
        Some(match (server, f.outbox.waiting.get()) {
            (Some(id), 0) => format!(
                "You have finished this study. All {answers} answers are saved to the study server (study {id}, participant {participant}); nothing more to do. You can also keep a copy."
            ),
            (Some(_), n) => format!(
                "You have finished this study. {n} of your {answers} answers are still on their way to the study server: they are kept in this browser and sent when the connection is back. Keep this page open, or come back to the link later."
            ),
            (None, _) => "You have finished this study. Your answers are saved in this browser. If the researcher asked for them, download them here and send the file.".to_string(),
        })
    };
    view! { <p data-testid="participant-receipt">{receipt}</p> }
}
