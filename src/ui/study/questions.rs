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
    // Drawn again only when questions come, go or change kind, never as
    // one is typed in.
    let kinds = Memo::new(move |_| {
        d.draft.with(|s| s.questions.iter().map(|q| matches!(q, Question::Rating { .. })).collect::<Vec<_>>())
    });
    view! {
        <h3>"Questions"</h3>
        {move || kinds.get().into_iter().enumerate().map(|(i, rating)| view! { <QuestionEdit designer=d index=i rating=rating/> }).collect_view()}
        <div class="row-actions">
            <button type="button" class="secondary" data-testid="question-add-rating" on:click=move |_| d.edit(|s| s.add_rating_question())>"Add a rating question"</button>
            <button type="button" class="secondary" data-testid="question-add-choice" on:click=move |_| d.edit(|s| s.add_choice_question())>"Add an A/B question"</button>
        </div>
    }
}

/// One question's fields.
#[component]
fn QuestionEdit(designer: UseStudyDesigner, index: usize, rating: bool) -> impl IntoView {
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
    let part = move |f: fn(&Question) -> Option<String>| {
        move || d.draft.with(|s| s.questions.get(i).and_then(f).unwrap_or_default())
    };
    let prompt = part(|q| Some(q.prompt().to_string()));
    let points = part(|q| match q {
        Question::Rating { points, .. } => Some(points.to_string()),
        Question::Choice { .. } => None,
    });
    let low = part(|q| match q {
        Question::Rating { low, .. } => Some(low.clone()),
        Question::Choice { .. } => None,
    });
    let high = part(|q| match q {
        Question::Rating { high, .. } => Some(high.clone()),
        Question::Choice { .. } => None,
    });
    match rating {
        true => view! {
            <fieldset class="question-edit" data-testid="question-edit-rating">
                <legend>"Rating after each sample"</legend>
                <label>"Question"<input type="text" prop:value=prompt data-testid="rating-prompt"
                    on:input=move |ev| set(Box::new(move |q| q.set_prompt(event_target_value(&ev))))/></label>
                <label>"Points"
                    <select prop:value=points on:change=move |ev| set(Box::new(move |q| q.set_points(event_target_value(&ev).parse().unwrap_or(7))))>
                        <option value="5">"5"</option><option value="7">"7"</option>
                    </select>
                </label>
                <label>"Label of 1"<input type="text" prop:value=low on:input=label(RatingPart::Low)/></label>
                <label>"Label of the top"<input type="text" prop:value=high on:input=label(RatingPart::High)/></label>
                <button type="button" class="secondary" data-testid="question-remove" on:click=remove>"Remove"</button>
            </fieldset>
        }
        .into_any(),
        false => view! {
            <fieldset class="question-edit" data-testid="question-edit-choice">
                <legend>"A/B choice after each pair (2AFC)"</legend>
                <label>"Question"<input type="text" prop:value=prompt data-testid="choice-prompt"
                    on:input=move |ev| set(Box::new(move |q| q.set_prompt(event_target_value(&ev))))/></label>
                <button type="button" class="secondary" data-testid="question-remove" on:click=remove>"Remove"</button>
            </fieldset>
        }
        .into_any(),
    }
}
