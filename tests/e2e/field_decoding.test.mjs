// The field snippet's decoders (packages/field/decode.js, detect.js and
// wires/) against the tables core's decoders are held to: OpenAI Chat's
// (tests/fixtures/sse/field_decoding.json, crates/core/tests/field_decoding.rs)
// and every other wire's (tests/fixtures/wires/wires.json,
// crates/core/tests/wires.rs): the same streams, read by read, give the same
// chunks, usage, finish reasons and ending in both, and each wire is told
// from its response as core tells it. And every build of the snippet stays
// within its size budget and is publishable.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { spanOf } from '../../packages/field/field.js';
import { createDecoder, text as TEXT } from '../../packages/field/decode.js';
import { wireOf } from '../../packages/field/detect.js';
import chat from '../../packages/field/wires/chat.js';
import { BUDGET, buildField } from '../../packages/field/build.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TABLE = JSON.parse(readFileSync(path.join(ROOT, 'tests/fixtures/sse/field_decoding.json'), 'utf8'));
const WIRES = JSON.parse(readFileSync(path.join(ROOT, 'tests/fixtures/wires/wires.json'), 'utf8')).wires;
const SNIPPET = path.join(ROOT, 'packages/field/core.js');

const read = (r) => (typeof r === 'string' ? new TextEncoder().encode(r) : Uint8Array.from(r.hex.match(/../g), (h) => parseInt(h, 16)));

test('the snippet decodes every stream of the shared table as core does', () => {
  assert.ok(TABLE.cases.length >= 20);
  for (const c of TABLE.cases) {
    const dec = createDecoder(chat);
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

test('the snippet decodes every case of every wire as core does', async () => {
  let cases = 0;
  for (const [id, w] of Object.entries(WIRES)) {
    const wire = id == 'text' ? TEXT : (await import(`../../packages/field/wires/${id}.js`)).default;
    assert.equal(wire.id, id);
    assert.ok(wire.ct.test(w.content_type), `${id}: its build takes ${w.content_type}`);
    for (const c of w.cases) {
      cases++;
      const dec = createDecoder(wire);
      const chunks = [];
      c.reads.forEach((r, i) => {
        for (const ch of dec.feed(read(r))) chunks.push([i, ch.kind, ch.chars]);
      });
      const u = dec.state.usage;
      const name = `${id}: ${c.name}`;
      assert.deepEqual(chunks, c.chunks, `${name}: chunks`);
      assert.deepEqual(u ? [u.input ?? null, u.output ?? null, u.cached ?? null, u.reasoning ?? null] : null, c.usage, `${name}: usage`);
      assert.deepEqual(dec.state.finish, c.finish, `${name}: finish reasons`);
      assert.equal(dec.close(), c.end, `${name}: end`);
    }
  }
  assert.ok(cases >= 40, `${cases} cases`);
});

test('the snippet tells each wire from its response as core does', () => {
  for (const [id, w] of Object.entries(WIRES)) {
    const header = (k) => w.headers[k] ?? null;
    for (const c of w.cases) {
      if (!c.reads.length) continue;
      const first = new TextDecoder().decode(read(c.reads[0]), { stream: true });
      assert.equal(wireOf(w.content_type.toLowerCase(), header, first), id, `${id}: ${c.name}`);
    }
  }
  const none = () => null;
  assert.equal(wireOf('text/event-stream', none, 'data: {"choices":[]}\n\n'), 'chat');
  assert.equal(wireOf('text/event-stream', none, ': keep-alive\n\n'), undefined, 'nothing to tell yet');
  assert.equal(wireOf('text/event-stream', none, 'data: {"token":"Hi"}\n\n'), 'unknown', "a page's own events");
  assert.equal(wireOf('text/plain', none, ''), undefined);
});

test('a span carries the GenAI conventions and the lab timings, and no text', () => {
  const dec = createDecoder(chat);
  dec.feed('data: {"choices":[{"delta":{"content":"secret words"}}]}\n\ndata: {"choices":[{"delta":{},"finish_reason":"stop"}]}\n\n');
  const r = {
    t0: 1000, op: 'chat', wire: 'chat', model: 'm', host: 'api.example', headers: 40, end: 120, err: null,
    at: [80.5], kind: [0], chars: [12], paint: [96.25], shown: [12], st: dec.state, act: 0.375,
  };
  const span = spanOf(r, { sampleRate: 0.5, step: 0.02, hz: 60 });
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
  assert.equal(a['latency_lab.wire'].stringValue, 'chat');
  assert.equal(a['latency_lab.browser'], undefined, 'the collector reads the browser from the request');
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

test(`each build of the snippet is at most ${BUDGET} bytes gzipped for the page's own wire, and publishable`, async () => {
  const sizes = await buildField(mkdtempSync(path.join(os.tmpdir(), 'field-build-')));
  const wires = Object.keys(WIRES).concat('chat');
  for (const w of wires) {
    const n = sizes[`field.${w}.js`];
    console.log(`field.${w}.js: ${n} bytes gzipped (budget ${BUDGET})`);
    assert.ok(n > 1000 && n <= BUDGET, `field.${w}.js: ${n} bytes gzipped, budget ${BUDGET}`);
  }
  // Any wire, decoders on demand: what the first visit loads.
  assert.ok(sizes['field.js'] <= BUDGET, `field.js: ${sizes['field.js']} bytes gzipped`);
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'packages/field/package.json'), 'utf8'));
  assert.equal(pkg.type, 'module');
  assert.deepEqual(pkg.dependencies ?? {}, {}, 'no dependencies');
  // dist/ is what build.mjs writes (npm's prepack runs it).
  for (const f of pkg.files.filter((f) => f != 'dist/')) assert.ok(existsSync(path.join(ROOT, 'packages/field', f)), f);
  assert.equal(pkg.scripts.prepack, 'node build.mjs');
  assert.equal(pkg.exports['.'], './field.js');
});
