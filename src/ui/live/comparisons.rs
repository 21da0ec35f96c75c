//! Client vs server timing: what the network, the browser and the parser
//! added on the way to this page, per request, against the replay
//! endpoint's own record.

use lab_core::measure::groundtruth::{TimingComparison, median_deltas};
use leptos::prelude::*;

use crate::ui::format::{ms, opt};

/// Requests listed at most.
pub const MAX_ROWS: usize = 32;

/// The comparison table.
#[component]
pub fn Comparisons(rows: Vec<(usize, TimingComparison)>) -> impl IntoView {
    let (ttft_delta, itl_delta) = median_deltas(rows.iter().map(|(_, c)| c));
    view! {
        <section class="comparison" data-testid="comparison">
            <h4>"Client vs server timing"</h4>
            <p class="hint">
                "The replay endpoint recorded when it sent each chunk. The difference is what the network, the browser and "
                "the parser added on the way to this page."
            </p>
            <p>
                "Median TTFT difference: " <b data-testid="ttft-delta">{opt(ttft_delta, ms)}</b> " ms; "
                "median ITL difference: " <b data-testid="itl-delta">{opt(itl_delta, ms)}</b> " ms."
            </p>
            <div class="table-scroll" tabindex="0">
                <table class="metrics">
                    <thead>
                        <tr>
                            <th scope="col">"request"</th>
                            <th scope="col">"TTFT client"</th>
                            <th scope="col">"TTFT server"</th>
                            <th scope="col">"ITL median client"</th>
                            <th scope="col">"ITL median server"</th>
                            <th scope="col">"max delivery delay"</th>
                        </tr>
                    </thead>
                    <tbody>
                        {rows.iter().take(MAX_ROWS).map(|(i, c)| view! {
                            <tr data-testid="comparison-row">
                                <th scope="row">{i + 1}</th>
                                <td data-testid="cmp-ttft-client">{ms(c.ttft_client_ms)}</td>
                                <td data-testid="cmp-ttft-server">{ms(c.ttft_server_ms)}</td>
                                <td data-testid="cmp-itl-client">{opt(c.itl_median_client_ms, ms)}</td>
                                <td data-testid="cmp-itl-server">{opt(c.itl_median_server_ms, ms)}</td>
                                <td>{opt(c.delivery_delay_ms.map(|d| d.max), ms)}</td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
            </div>
        </section>
    }
}
