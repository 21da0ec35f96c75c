//! The questions of a study: ratings after single samples (Likert, 5 or 7
//! points) and A/B choices after pairs.

use lab_core::study::Question;
use lab_core::study::design::RatingPart;
use leptos::prelude::*;

use crate::browser::study::UseStudyDesigner;

/// The questions and their buttons.
#[component]
pub fn Questions(designer: UseStudyDesigner) -> impl IntoView {
    let d = designer;
    view! {
        <h3>"Questions"</h3>
        {move || d.draft.with(|s| s.questions.clone()).into_iter().enumerate().map(|(i, q)| view! { <QuestionEdit designer=d index=i question=q/> }).collect_view()}
        <div class="row-actions">
            <button type="button" class="secondary" data-testid="question-add-rating" on:click=move |_| d.edit(|s| s.add_rating_question())>"Add a rating question"</button>
            <button type="button" class="secondary" data-testid="question-add-choice" on:click=move |_| d.edit(|s| s.add_choice_question())>"Add an A/B question"</button>
        </div>
    }
}

/// One question's fields.
#[component]
fn QuestionEdit(designer: UseStudyDesigner, index: usize, question: Question) -> impl IntoView {
    let d = designer;
    let i = index;
    let set = move |f: Box<dyn FnOnce(&mut Question)>| {
        d.edit(|s| {
            if let Some(q) = s.questions.get_mut(i) {
                f(q);
            }
        })
    };
    let remove = move |_| d.edit(|s| s.remove_question(i));
    let label =
        move |part: RatingPart| move |ev| set(Box::new(move |q| q.set_label(part, event_target_value(&ev))));
    match question {
        Question::Rating { prompt, points, low, high, .. } => view! {
            <fieldset class="question-edit" data-testid="question-edit-rating">
                <legend>"Rating after each sample"</legend>
                <label>"Question"<input type="text" prop:value=prompt data-testid="rating-prompt"
                    on:change=move |ev| set(Box::new(move |q| q.set_prompt(event_target_value(&ev))))/></label>
                <label>"Points"
                    <select prop:value=points.to_string() on:change=move |ev| set(Box::new(move |q| q.set_points(event_target_value(&ev).parse().unwrap_or(7))))>
                        <option value="5">"5"</option><option value="7">"7"</option>
                    </select>
                </label>
                <label>"Label of 1"<input type="text" prop:value=low on:change=label(RatingPart::Low)/></label>
                <label>"Label of the top"<input type="text" prop:value=high on:change=label(RatingPart::High)/></label>
                <button type="button" class="secondary" data-testid="question-remove" on:click=remove>"Remove"</button>
            </fieldset>
        }
        .into_any(),
        Question::Choice { prompt, .. } => view! {
            <fieldset class="question-edit" data-testid="question-edit-choice">
                <legend>"A/B choice after each pair (2AFC)"</legend>
                <label>"Question"<input type="text" prop:value=prompt data-testid="choice-prompt"
                    on:change=move |ev| set(Box::new(move |q| q.set_prompt(event_target_value(&ev))))/></label>
                <button type="button" class="secondary" data-testid="question-remove" on:click=remove>"Remove"</button>
            </fieldset>
        }
        .into_any(),
    }
}
