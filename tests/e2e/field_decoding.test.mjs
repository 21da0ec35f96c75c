// The field snippet (packages/field/field.js) against the shared decoding
// table that core's decoder is held to (crates/core/tests/field_decoding.rs):
// the same streams, read by read, give the same chunks, usage, finish
// reasons and ending in both; the same user agents the same browser. And the
// snippet stays within its size budget and publishable.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { browserOf, createDecoder, spanOf } from '../../packages/field/field.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TABLE = JSON.parse(readFileSync(path.join(ROOT, 'tests/fixtures/sse/field_decoding.json'), 'utf8'));
const SNIPPET = path.join(ROOT, 'packages/field/field.js');
/** The snippet's budget: 5 kB gzipped, as the page downloads it. */
const BUDGET_GZIP = 5000;

const read = (r) => (typeof r === 'string' ? new TextEncoder().encode(r) : Uint8Array.from(r.hex.match(/../g), (h) => parseInt(h, 16)));

test('the snippet decodes every stream of the shared table as core does', () => {
  assert.ok(TABLE.cases.length >= 20);
  for (const c of TABLE.cases) {
    const dec = createDecoder();
    const chunks = [];
    c.reads.forEach((r, i) => {
      for (const ch of dec.feed(read(r))) chunks.push([i, ch.kind, ch.chars]);
    });
    const u = dec.state.usage;
    assert.deepEqual(chunks, c.chunks, `${c.name}: chunks`);
    assert.deepEqual(u ? [u.input ?? null, u.output ?? null, u.cached ?? null] : null, c.usage, `${c.name}: usage`);
    assert.deepEqual(dec.state.finish, c.finish, `${c.name}: finish reasons`);
    assert.equal(dec.close(), c.end, `${c.name}: end`);
  }
});

test('the snippet reads every browser of the shared table as core does', () => {
  for (const { ua, is } of TABLE.browsers) assert.deepEqual(browserOf(ua), is, ua);
});

test('a span carries the GenAI conventions and the lab timings, and no text', () => {
  const dec = createDecoder();
  dec.feed('data: {"choices":[{"delta":{"content":"secret words"}}]}\n\ndata: {"choices":[{"delta":{},"finish_reason":"stop"}]}\n\n');
  const r = {
    t0: 1000, op: 'chat', model: 'm', host: 'api.example', headers: 40, end: 120, err: null,
    at: [80.5], kind: [0], chars: [12], paint: [96.25], shown: [12], st: dec.state, act: 0.375,
  };
  const span = spanOf(r, { sampleRate: 0.5, browser: ['Firefox', 'Gecko', '140.0'], step: 0.02, hz: 60 });
  const a = Object.fromEntries(span.attributes.map(({ key, value }) => [key, value]));
  assert.equal(span.name, 'chat m');
  assert.equal(span.kind, 3);
  assert.match(span.traceId, /^[0-9a-f]{32}$/);
  assert.match(span.spanId, /^[0-9a-f]{16}$/);
  const startNs = BigInt(span.startTimeUnixNano), endNs = BigInt(span.endTimeUnixNano);
  assert.ok(Math.abs(Number(endNs - startNs) / 1e6 - 120) < 0.01, 'the span lasts the request');
  assert.equal(a['gen_ai.operation.name'].stringValue, 'chat');
  assert.equal(a['gen_ai.request.model'].stringValue, 'm');
  assert.ok(Math.abs(a['gen_ai.response.time_to_first_chunk'].doubleValue - 0.0805) < 1e-9, 'seconds, as the conventions say');
  assert.deepEqual(a['gen_ai.response.finish_reasons'].arrayValue.values, [{ stringValue: 'stop' }]);
  assert.deepEqual(a['latency_lab.chunk_ms'].arrayValue.values, [{ doubleValue: 80.5 }]);
  assert.deepEqual(a['latency_lab.paint_chars'].arrayValue.values, [{ intValue: '12' }]);
  assert.equal(a['latency_lab.browser'].stringValue, 'Firefox');
  assert.equal(a['latency_lab.sample_rate'].doubleValue, 0.5);
  assert.equal(a['error.type'], undefined);
  assert.equal(a['latency_lab.action_ms'].doubleValue, 0.375, "the user's action before the send");
  assert.ok(!JSON.stringify(span).includes('secret'), 'no text in the span');
  assert.equal(spanOf({ ...r, act: undefined }, {}).attributes.find((x) => x.key === 'latency_lab.action_ms'), undefined);
});

test("the snippet's longest action wait is core's", () => {
  const snippet = readFileSync(SNIPPET, 'utf8').match(/const ACT = (\d+);/)?.[1];
  const core = readFileSync(path.join(ROOT, 'crates/core/src/field/conventions.rs'), 'utf8').match(/ACTION_MAX_MS: f64 = ([\d.]+);/)?.[1];
  assert.ok(snippet && core, 'both are written down');
  assert.equal(Number(snippet), Number(core));
});

test(`the snippet is at most ${BUDGET_GZIP} bytes gzipped and ready to publish`, () => {
  const gz = gzipSync(readFileSync(SNIPPET), { level: 9 }).length;
  console.log(`packages/field/field.js: ${gz} bytes gzipped (budget ${BUDGET_GZIP})`);
  assert.ok(gz <= BUDGET_GZIP, `${gz} bytes gzipped, over the ${BUDGET_GZIP} budget`);
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'packages/field/package.json'), 'utf8'));
  assert.equal(pkg.type, 'module');
  assert.deepEqual(pkg.dependencies ?? {}, {}, 'no dependencies');
  for (const f of pkg.files) assert.ok(readFileSync(path.join(ROOT, 'packages/field', f)).length > 0, f);
  assert.equal(pkg.exports['.'], './field.js');
});
