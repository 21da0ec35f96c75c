//! An OTLP/HTTP body as spans: JSON (`application/json`, or `text/plain`
//! as a page's `sendBeacon` sends it) through core's reader
//! ([`lab_core::field::otlp`]), protobuf (`application/x-protobuf`)
//! through OpenTelemetry's own generated messages (`opentelemetry-proto`,
//! decoded by prost), mapped onto the same [`RawSpan`]. Either way, text
//! attributes are dropped here ([`is_text`]) and an attribute array longer
//! than [`MAX_ARRAY`] refuses the body.

use lab_core::field::conventions::is_text;
use lab_core::field::otlp::{self, AttrValue, MAX_ARRAY, RawSpan};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{KeyValue, any_value};
use prost::Message;

/// The body's encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// OTLP/JSON.
    Json,
    /// OTLP protobuf.
    Protobuf,
}

impl Encoding {
    /// From a `Content-Type` (parameters ignored); `None`: not OTLP/HTTP.
    pub fn of(content_type: Option<&str>) -> Option<Self> {
        let t = content_type
            .unwrap_or("application/json")
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        match t.as_str() {
            "application/json" | "text/plain" | "" => Some(Self::Json),
            "application/x-protobuf" | "application/protobuf" => Some(Self::Protobuf),
            _ => None,
        }
    }
}

/// The spans of `body`, or why it is not OTLP.
pub fn spans(body: &[u8], encoding: Encoding) -> Result<Vec<RawSpan>, String> {
    match encoding {
        Encoding::Json => {
            let text = std::str::from_utf8(body)
                .map_err(|_| "the body is not UTF-8 text (OTLP/JSON expected)".to_string())?;
            otlp::read(text).map_err(|e| e.to_string())
        }
        Encoding::Protobuf => {
            let req = ExportTraceServiceRequest::decode(body)
                .map_err(|e| format!("not an OTLP protobuf ExportTraceServiceRequest: {e}"))?;
            from_proto(&req)
        }
    }
}

fn from_proto(req: &ExportTraceServiceRequest) -> Result<Vec<RawSpan>, String> {
    let mut out = Vec::new();
    for rs in &req.resource_spans {
        let resource = attributes(rs.resource.as_ref().map_or(&[][..], |r| &r.attributes))?;
        for ss in &rs.scope_spans {
            for s in &ss.spans {
                let status = s.status.as_ref();
                out.push(RawSpan {
                    span_id: s.span_id.iter().map(|b| format!("{b:02x}")).collect(),
                    name: s.name.clone(),
                    start_ns: s.start_time_unix_nano,
                    end_ns: s.end_time_unix_nano,
                    error: status.is_some_and(|st| st.code == 2),
                    status_message: status.map(|st| st.message.clone()).filter(|m| !m.is_empty()),
                    attrs: attributes(&s.attributes)?,
                    resource: resource.clone(),
                });
            }
        }
    }
    Ok(out)
}

fn attributes(kvs: &[KeyValue]) -> Result<Vec<(String, AttrValue)>, String> {
    let mut out = Vec::new();
    for kv in kvs.iter().filter(|kv| !is_text(&kv.key)) {
        if let Some(v) =
            kv.value.as_ref().and_then(|v| v.value.as_ref()).map(|v| value(v, &kv.key)).transpose()?.flatten()
        {
            out.push((kv.key.clone(), v));
        }
    }
    Ok(out)
}

fn value(v: &any_value::Value, key: &str) -> Result<Option<AttrValue>, String> {
    use any_value::Value as V;
    Ok(match v {
        V::StringValue(s) => Some(AttrValue::Str(s.clone())),
        V::BoolValue(b) => Some(AttrValue::Bool(*b)),
        V::IntValue(i) => Some(AttrValue::Int(*i)),
        V::DoubleValue(d) => Some(AttrValue::Double(*d)),
        V::ArrayValue(a) => {
            if a.values.len() > MAX_ARRAY {
                return Err(format!(
                    "attribute {key} holds {} values; at most {MAX_ARRAY} are read",
                    a.values.len()
                ));
            }
            let mut items = Vec::with_capacity(a.values.len());
            for x in a.values.iter().filter_map(|x| x.value.as_ref()) {
                if let Some(item) = value(x, key)? {
                    items.push(item);
                }
            }
            Some(AttrValue::Array(items))
        }
        V::KvlistValue(_) | V::BytesValue(_) | V::StringValueStrindex(_) => None,
    })
}
