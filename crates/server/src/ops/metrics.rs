//! `GET /metrics`: the server's counters in the Prometheus text format
//! (version 0.0.4), from the official Rust client (`prometheus-client`).
//!
//! | metric | type | what |
//! |---|---|---|
//! | `latency_lab_http_requests_total{method,route,status}` | counter | requests answered, by route (the route's pattern as `/api/studies/:id`, `files` for the app's files) and status |
//! | `latency_lab_study_answers_stored_total` | counter | participant answers stored (not the retries found stored before) |
//! | `latency_lab_study_write_seconds{write}` | histogram | time of the study database's writes: `publish`, `join`, `answer`, `close` |
//! | `latency_lab_replay_open_streams` | gauge | replay responses in flight (streamed or not) |
//! | `latency_lab_replay_pacing_lateness_seconds` | histogram | how late each streamed chunk left, after its planned time |
//!
//! It shows how a study is going and whether the replay endpoint keeps its
//! schedule, so it is not public: it needs the researcher token, or is
//! served alone on `--metrics-bind` (an address only the scraper reaches).

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::encoding::prometheus_text;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

/// `Content-Type` of `/metrics`.
pub const CONTENT_TYPE: &str = prometheus_text::CONTENT_TYPE;

/// Labels of a request.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RequestLabels {
    /// `GET`, `POST`, …
    pub method: String,
    /// The route's pattern (`/api/studies/:id/answers`), or `files`.
    pub route: String,
    /// The response's status.
    pub status: u16,
}

/// Labels of a study database write.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct WriteLabels {
    /// `publish`, `join`, `answer` or `close`.
    pub write: &'static str,
}

/// The server's metrics (cheap to clone: every handle shares its values).
pub struct Metrics {
    registry: Registry,
    /// Requests by route and status.
    pub requests: Family<RequestLabels, Counter>,
    /// Answers stored.
    pub answers_stored: Counter,
    /// Study database write times.
    pub writes: Family<WriteLabels, Histogram>,
    /// Replay responses in flight.
    pub open_streams: Gauge,
    /// Lateness of streamed chunks.
    pub lateness: Histogram,
}

fn write_histogram() -> Histogram {
    // 0.25 ms … 4 s: a WAL commit to a PostgreSQL round trip under load.
    Histogram::new(exponential_buckets(0.000_25, 2.0, 15))
}

impl Default for Metrics {
    fn default() -> Self {
        let mut registry = Registry::with_prefix("latency_lab");
        let requests = Family::<RequestLabels, Counter>::default();
        registry.register("http_requests", "Requests answered, by route and status", requests.clone());
        let answers_stored = Counter::default();
        registry.register("study_answers_stored", "Participant answers stored", answers_stored.clone());
        let writes =
            Family::<WriteLabels, Histogram>::new_with_constructor(write_histogram as fn() -> Histogram);
        registry.register("study_write_seconds", "Time of the study database's writes", writes.clone());
        let open_streams = Gauge::default();
        registry.register("replay_open_streams", "Replay responses in flight", open_streams.clone());
        // 50 µs … 0.8 s: a precise pacer is well under 1 ms late.
        let lateness = Histogram::new(exponential_buckets(0.000_05, 2.0, 15));
        registry.register(
            "replay_pacing_lateness_seconds",
            "How late each streamed chunk left after its planned time",
            lateness.clone(),
        );
        Self { registry, requests, answers_stored, writes, open_streams, lateness }
    }
}

impl Metrics {
    /// Counts a request.
    pub fn request(&self, method: &str, route: &str, status: u16) {
        let labels = RequestLabels { method: method.to_string(), route: route.to_string(), status };
        self.requests.get_or_create(&labels).inc();
    }

    /// Records a study database write of `seconds`.
    pub fn write(&self, write: &'static str, seconds: f64) {
        self.writes.get_or_create(&WriteLabels { write }).observe(seconds);
    }

    /// The text a scraper reads.
    pub fn encode(&self) -> String {
        let mut out = String::new();
        // Writing to a String cannot fail.
        let _ = prometheus_text::encode(&mut out, &self.registry);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scrape(m: &Metrics) -> prometheus_parse::Scrape {
        let text = m.encode();
        prometheus_parse::Scrape::parse(text.lines().map(|l| Ok(l.to_string()))).unwrap()
    }

    fn value(s: &prometheus_parse::Scrape, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
        s.samples.iter().find_map(|x| {
            let matches = x.metric == name && labels.iter().all(|(k, v)| x.labels.get(k) == Some(*v));
            match (&x.value, matches) {
                (prometheus_parse::Value::Counter(v) | prometheus_parse::Value::Gauge(v), true) => Some(*v),
                _ => None,
            }
        })
    }

    #[test]
    fn counts_parse_back_as_a_scraper_reads_them() {
        let m = Metrics::default();
        m.request("GET", "/healthz", 200);
        m.request("GET", "/healthz", 200);
        m.request("POST", "/api/studies/:id/answers", 403);
        m.answers_stored.inc();
        m.write("answer", 0.002);
        m.open_streams.inc();
        m.lateness.observe(0.000_3);
        let s = scrape(&m);
        let requests = "latency_lab_http_requests_total";
        assert_eq!(
            value(&s, requests, &[("route", "/healthz"), ("status", "200"), ("method", "GET")]),
            Some(2.0)
        );
        assert_eq!(
            value(&s, requests, &[("route", "/api/studies/:id/answers"), ("status", "403")]),
            Some(1.0)
        );
        assert_eq!(value(&s, "latency_lab_study_answers_stored_total", &[]), Some(1.0));
        assert_eq!(value(&s, "latency_lab_replay_open_streams", &[]), Some(1.0));
        let hist =
            s.samples.iter().find(|x| x.metric == "latency_lab_replay_pacing_lateness_seconds").unwrap();
        let prometheus_parse::Value::Histogram(buckets) = &hist.value else { panic!("{:?}", hist.value) };
        let le_1ms = buckets.iter().find(|b| (b.less_than - 0.0008).abs() < 1e-9).unwrap();
        assert_eq!(le_1ms.count, 1.0);
        assert!(m.encode().contains("# TYPE latency_lab_study_write_seconds histogram"));
    }
}
