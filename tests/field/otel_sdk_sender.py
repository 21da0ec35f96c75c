#!/usr/bin/env python3
"""Sends GenAI client spans with the real OpenTelemetry Python SDK and its
OTLP/HTTP (protobuf) exporter, as a back end instrumented with the GenAI
semantic conventions would, to a collector.

Usage: otel_sdk_sender.py ENDPOINT KEY N
  ENDPOINT  e.g. http://127.0.0.1:8377/v1/traces
  KEY       the site's ingest key (sent as Authorization: Bearer KEY)
  N         streamed chat spans to send (one more fails with a 429)

Prints one JSON object: the span ids (hex) and the TTFT (ms) of each
streamed span, and the failed span's id.
"""
import json
import sys
import time

from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExportResult
from opentelemetry.trace import SpanKind, Status, StatusCode


class Checked(OTLPSpanExporter):
    """The SDK's exporter, remembering how each export ended (the SDK only
    logs a refused export)."""

    results = []

    def export(self, spans):
        result = super().export(spans)
        Checked.results.append(result)
        return result


def main():
    endpoint, key, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    provider = TracerProvider(resource=Resource.create({"service.name": "chat-backend"}))
    exporter = Checked(endpoint=endpoint, headers={"Authorization": f"Bearer {key}"})
    provider.add_span_processor(BatchSpanProcessor(exporter))
    tracer = provider.get_tracer("lab-field-test", "1.0")
    t0 = time.time_ns() - 60_000_000_000
    sent = {"spans": [], "failed": None}
    for i in range(n):
        start = t0 + i * 2_000_000_000
        ttft_s = 0.2 + 0.05 * i
        span = tracer.start_span(
            "chat tiny-chat",
            kind=SpanKind.CLIENT,
            start_time=start,
            attributes={
                "gen_ai.operation.name": "chat",
                "gen_ai.provider.name": "openai",
                "gen_ai.request.model": "tiny-chat",
                "gen_ai.usage.input_tokens": 30,
                "gen_ai.usage.output_tokens": 10,
                "gen_ai.response.time_to_first_chunk": ttft_s,
                "gen_ai.input.messages": json.dumps([{"role": "user", "parts": [{"type": "text", "content": "sdk secret prompt"}]}]),
            },
        )
        sent["spans"].append({"id": format(span.get_span_context().span_id, "016x"), "ttft_ms": ttft_s * 1000})
        span.end(end_time=start + 1_000_000_000)
    failed = tracer.start_span(
        "chat tiny-chat",
        kind=SpanKind.CLIENT,
        start_time=t0 + n * 2_000_000_000,
        attributes={"gen_ai.operation.name": "chat", "gen_ai.request.model": "tiny-chat", "error.type": "429", "gen_ai.response.time_to_first_chunk": 0.05},
    )
    failed.set_status(Status(StatusCode.ERROR, "Too Many Requests"))
    sent["failed"] = format(failed.get_span_context().span_id, "016x")
    failed.end(end_time=t0 + n * 2_000_000_000 + 60_000_000)
    ok = provider.force_flush(30_000)
    provider.shutdown()
    if not ok or not Checked.results or any(r != SpanExportResult.SUCCESS for r in Checked.results):
        print(f"the collector did not take every export: flushed={ok}, results={Checked.results}", file=sys.stderr)
        sys.exit(1)
    print(json.dumps(sent))


if __name__ == "__main__":
    main()
