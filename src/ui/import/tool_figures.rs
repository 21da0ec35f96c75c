//! The tool's own summary beside the lab's recomputation, differences
//! flagged with why.

use lab_core::import::FigureComparison;
use leptos::prelude::*;

use crate::ui::format::{ms, opt};

/// The comparison table.
#[component]
pub fn ToolFigures(rows: Vec<FigureComparison>) -> impl IntoView {
    let differs = rows.iter().filter(|r| r.differs).count();
    view! {
        <details class="tool-comparison" open=true>
            <summary data-testid="tool-comparison-summary">
                {format!("The tool's own summary beside the lab's recomputation: {} of {} figures equal within rounding", rows.len() - differs, rows.len())}
            </summary>
            <div class="table-scroll" tabindex="0">
                <table class="metrics" data-testid="tool-comparison">
                    <thead><tr>
                        <th scope="col">"figure"</th><th scope="col">"tool"</th><th scope="col">"lab"</th>
                        <th scope="col">"lab − tool"</th><th scope="col">""</th>
                    </tr></thead>
                    <tbody>
                        {rows.into_iter().map(|r| {
                            let why = r.why.clone().unwrap_or_default();
                            view! {
                                <tr class:differs=r.differs data-testid="tool-figure" data-key=r.key.clone()>
                                    <th scope="row" title=r.key.clone()>{r.label.clone()}</th>
                                    <td>{ms(r.tool)}</td>
                                    <td>{opt(r.lab, ms)}</td>
                                    <td>{opt(r.diff, |v| format!("{v:+.2}"))}</td>
                                    <td>{if r.differs {
                                        view! { <span class="flag" title=why.clone()>{format!("differs: {why}")}</span> }.into_any()
                                    } else {
                                        view! { <span class="ok">"equal"</span> }.into_any()
                                    }}</td>
                                </tr>
                            }
                        }).collect_view()}
                    </tbody>
                </table>
            </div>
        </details>
    }
}
