//! The span a streamed completion is recorded as, attribute by attribute.
//!
//! **OpenTelemetry GenAI semantic conventions** (client inference span,
//! status Development): span name `{gen_ai.operation.name}
//! {gen_ai.request.model}`, kind CLIENT, from the request's send to the
//! stream's end. Times in the conventions are seconds; token counts are
//! integers.
//!
//! **The lab's extra timings** live under [`LAB`] (`latency_lab.`), so any
//! collector keeps them and any GenAI reader can ignore them. Offsets are
//! milliseconds from the span's start (the send), as doubles; arrays are
//! OTLP `arrayValue`s. Each is listed once, with its type and meaning, in
//! [`LAB_ATTRIBUTES`] (the GenAI conventions' attributes: [`GENAI_ATTRIBUTES`]);
//! the reference page `docs/src/reference/otlp.md` is made from both.
//!
//! **Never stored** ([`is_text`]): the conversation itself, whatever
//! attribute a sender puts it in (the conventions' `gen_ai.input.messages`,
//! `gen_ai.output.messages`, `gen_ai.system_instructions`, older
//! `gen_ai.prompt…`/`gen_ai.completion…`, and other instrumentations'
//! prompt and completion attributes).

/// The lab's attribute namespace.
pub const LAB: &str = "latency_lab.";

/// `gen_ai.operation.name`: `chat`, `text_completion`, `generate_content`.
pub const OPERATION: &str = "gen_ai.operation.name";
/// `gen_ai.provider.name` (older instrumentations: [`SYSTEM`]).
pub const PROVIDER: &str = "gen_ai.provider.name";
/// `gen_ai.system`, the provider's older name.
pub const SYSTEM: &str = "gen_ai.system";
/// `gen_ai.request.model`.
pub const REQUEST_MODEL: &str = "gen_ai.request.model";
/// `gen_ai.response.model`.
pub const RESPONSE_MODEL: &str = "gen_ai.response.model";
/// `gen_ai.usage.input_tokens`.
pub const INPUT_TOKENS: &str = "gen_ai.usage.input_tokens";
/// `gen_ai.usage.output_tokens`.
pub const OUTPUT_TOKENS: &str = "gen_ai.usage.output_tokens";
/// `gen_ai.usage.cache_read.input_tokens`.
pub const CACHE_READ_TOKENS: &str = "gen_ai.usage.cache_read.input_tokens";
/// `gen_ai.response.time_to_first_chunk` (seconds from the request).
pub const TIME_TO_FIRST_CHUNK: &str = "gen_ai.response.time_to_first_chunk";
/// `gen_ai.response.finish_reasons` (string[]).
pub const FINISH_REASONS: &str = "gen_ai.response.finish_reasons";
/// `error.type`: an HTTP status or an error's class.
pub const ERROR_TYPE: &str = "error.type";
/// `server.address`.
pub const SERVER_ADDRESS: &str = "server.address";
/// `service.name` (a resource attribute): the site, when no lab site is set.
pub const SERVICE_NAME: &str = "service.name";

/// Operations that generate text (the others, embeddings or tool
/// executions, have no stream to read).
pub const INFERENCE_OPERATIONS: [&str; 3] = ["chat", "text_completion", "generate_content"];

/// Response headers received (ms from the send).
pub const HEADERS_MS: &str = "latency_lab.headers_ms";
/// How long before the send the user's last action came (ms, 0 to
/// [`ACTION_MAX_MS`]; the latest click, Enter or form submit before it,
/// so a click that submits a form counts from the submit, where the page's
/// handler starts): the page's own work before it sent (its SDK, a token
/// refresh, a retrieval in the browser), which the user waited through.
/// The lab's request starts at the action ([`super::span`]).
pub const ACTION_MS: &str = "latency_lab.action_ms";
/// The longest [`ACTION_MS`] taken (ms): the snippet gives an action to a
/// request sent at most this long after it (longer, the request starts at
/// its send), and the reader ignores larger values.
pub const ACTION_MAX_MS: f64 = 1000.0;
/// Each chunk's arrival (ms from the send).
pub const CHUNK_MS: &str = "latency_lab.chunk_ms";
/// Tokens per chunk.
pub const CHUNK_TOKENS: &str = "latency_lab.chunk_tokens";
/// Kind per chunk: 0 answer, 1 reasoning, 2 tool-call fragment.
pub const CHUNK_KINDS: &str = "latency_lab.chunk_kinds";
/// Characters each chunk added.
pub const CHUNK_CHARS: &str = "latency_lab.chunk_chars";
/// Each paint of new text (ms from the send).
pub const PAINT_MS: &str = "latency_lab.paint_ms";
/// Characters shown after each paint.
pub const PAINT_CHARS: &str = "latency_lab.paint_chars";
/// The user stopped the answer.
pub const ABORTED: &str = "latency_lab.aborted";
/// The site the page belongs to (set by the collector from the ingest key).
pub const SITE: &str = "latency_lab.site";
/// Browser name ("Firefox").
pub const BROWSER: &str = "latency_lab.browser";
/// Engine ("Gecko").
pub const ENGINE: &str = "latency_lab.engine";
/// Browser version.
pub const BROWSER_VERSION: &str = "latency_lab.browser_version";
/// The page clock's smallest step (ms).
pub const CLOCK_STEP_MS: &str = "latency_lab.clock_step_ms";
/// The display's refresh rate (Hz).
pub const DISPLAY_HZ: &str = "latency_lab.display_hz";
/// The share of requests the page reports.
pub const SAMPLE_RATE: &str = "latency_lab.sample_rate";
/// The wire the answer streamed in (`lab_core::stream::wire::Wire::id`), or
/// [`UNKNOWN_WIRE`].
pub const WIRE: &str = "latency_lab.wire";
/// [`WIRE`] of a stream the page could not read.
pub const UNKNOWN_WIRE: &str = "unknown";

/// One attribute of a span: its key, OTLP type and meaning.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Attribute {
    /// The key.
    pub key: &'static str,
    /// Its OTLP value type (`double[]` for an `arrayValue` of doubles).
    pub kind: &'static str,
    /// What it says.
    pub meaning: &'static str,
}

const fn attr(key: &'static str, kind: &'static str, meaning: &'static str) -> Attribute {
    Attribute { key, kind, meaning }
}

/// The conventions' attributes the snippet writes (and the readers use where they need them).
pub const GENAI_ATTRIBUTES: [Attribute; 13] = [
    attr(
        OPERATION,
        "string",
        "`chat`, `text_completion` or `generate_content` (other operations have no stream and are skipped)",
    ),
    attr(PROVIDER, "string", "the provider (older instrumentations: `gen_ai.system`)"),
    attr(SYSTEM, "string", "the provider's older name"),
    attr(REQUEST_MODEL, "string", "the model asked for"),
    attr(RESPONSE_MODEL, "string", "the model that answered"),
    attr(INPUT_TOKENS, "int", "prompt tokens"),
    attr(OUTPUT_TOKENS, "int", "generated tokens"),
    attr(CACHE_READ_TOKENS, "int", "prompt tokens read from the provider's cache"),
    attr(
        TIME_TO_FIRST_CHUNK,
        "double",
        "seconds from the request to the first chunk (used when the lab's chunk times are absent)",
    ),
    attr(FINISH_REASONS, "string[]", "why the answer ended"),
    attr(ERROR_TYPE, "string", "an HTTP status or an error's class: the request failed"),
    attr(SERVER_ADDRESS, "string", "the host asked"),
    attr(SERVICE_NAME, "string", "a resource attribute: the site, when no lab site is set"),
];

/// The lab's own attributes ([`LAB`]), offsets in ms from the send.
pub const LAB_ATTRIBUTES: [Attribute; 17] = [
    attr(HEADERS_MS, "double", "response headers received"),
    attr(
        ACTION_MS,
        "double",
        "how long before the send the user's last action came (a click, Enter, a form sent; at most 1,000 ms)",
    ),
    attr(CHUNK_MS, "double[]", "each streamed chunk's arrival"),
    attr(CHUNK_TOKENS, "int[]", "tokens each chunk carried (1 each when absent)"),
    attr(
        CHUNK_KINDS,
        "int[]",
        "0 answer text, 1 reasoning, 2 a tool-call fragment (answer text when absent)",
    ),
    attr(CHUNK_CHARS, "int[]", "characters each chunk added (their number, never the text)"),
    attr(
        PAINT_MS,
        "double[]",
        "each paint of new text in the answer's element (the first frame after the DOM changed)",
    ),
    attr(PAINT_CHARS, "int[]", "characters shown after each paint"),
    attr(ABORTED, "bool", "the user stopped the answer"),
    attr(SITE, "string", "the site the page belongs to (set by the collector from the ingest key)"),
    attr(BROWSER, "string", "the page's browser (\"Firefox\")"),
    attr(ENGINE, "string", "its engine (\"Gecko\")"),
    attr(BROWSER_VERSION, "string", "its version"),
    attr(CLOCK_STEP_MS, "double", "the page clock's smallest step"),
    attr(DISPLAY_HZ, "double", "the display's refresh rate (Hz)"),
    attr(
        SAMPLE_RATE,
        "double",
        "the share of requests the page reports (0–1): counts are estimated as stored ÷ rate",
    ),
    attr(
        WIRE,
        "string",
        "the wire the answer streamed in (`chat`, `responses`, `anthropic`, `gemini`, `ollama`, `ui_stream`, `data_stream`, `text`), or `unknown`: a stream the page could not read, whose chunks are then not recorded (its paints are)",
    ),
];

/// Attribute keys that carry the conversation's text, never kept.
pub const TEXT_KEYS: [&str; 8] = [
    "gen_ai.input.messages",
    "gen_ai.output.messages",
    "gen_ai.system_instructions",
    "gen_ai.tool.definitions",
    "gen_ai.tool.call.arguments",
    "gen_ai.tool.call.result",
    "input.value",
    "output.value",
];

/// Key prefixes that carry text (older GenAI `gen_ai.prompt.0.content`,
/// OpenLLMetry `llm.prompts…`, OpenInference `llm.input_messages…`).
pub const TEXT_PREFIXES: [&str; 6] = [
    "gen_ai.prompt",
    "gen_ai.completion",
    "llm.prompts",
    "llm.completions",
    "llm.input_messages",
    "llm.output_messages",
];

/// Whether attribute `key` carries prompt or answer text (dropped on
/// reading and before anything is stored).
pub fn is_text(key: &str) -> bool {
    TEXT_KEYS.contains(&key) || TEXT_PREFIXES.iter().any(|p| key.starts_with(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_attributes_are_known_and_timings_are_not_text() {
        for k in [
            "gen_ai.input.messages",
            "gen_ai.output.messages",
            "gen_ai.prompt.0.content",
            "gen_ai.completion",
            "llm.prompts.0.user",
            "input.value",
        ] {
            assert!(is_text(k), "{k}");
        }
        for k in [
            OPERATION,
            REQUEST_MODEL,
            OUTPUT_TOKENS,
            TIME_TO_FIRST_CHUNK,
            CHUNK_MS,
            PAINT_MS,
            CHUNK_CHARS,
            "gen_ai.request.max_tokens",
        ] {
            assert!(!is_text(k), "{k}");
        }
        for a in LAB_ATTRIBUTES {
            assert!(a.key.starts_with(LAB), "{a:?}");
            assert!(!is_text(a.key), "{a:?}");
        }
        for a in GENAI_ATTRIBUTES {
            assert!(!a.key.starts_with(LAB) && !is_text(a.key), "{a:?}");
        }
        let mut keys: Vec<&str> = LAB_ATTRIBUTES.iter().chain(&GENAI_ATTRIBUTES).map(|a| a.key).collect();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), LAB_ATTRIBUTES.len() + GENAI_ATTRIBUTES.len(), "each attribute listed once");
        assert!(LAB_ATTRIBUTES.iter().any(|a| a.key == ACTION_MS
            && a.meaning.contains(&format!("{ACTION_MAX_MS:.0}").replace("1000", "1,000"))));
    }
}
