// The field snippet's (packages/field/field.js) paths that a page rarely
// walks in the demo: leaving the page mid-answer (the `pagehide` flush,
// sent with sendBeacon) and sampling (`sampleRate`). Run in Node against a
// page's globals the test provides (EventTarget for the window's events,
// navigator.sendBeacon recording what it is given, a fetch that streams
// SSE), so every answer and every beacon is counted exactly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { installField } from '../../packages/field/field.js';
import { LAB_BIN, startServer } from './lib/lab.mjs';

const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/148.0.0.0 Safari/537.36';
const URL_ = 'https://api.example/v1/chat/completions';
const sse = (o) => `data: ${JSON.stringify(o)}\n\n`;
const chunk = (text) => sse({ choices: [{ index: 0, delta: { content: text } }] });

/** Node's own fetch, for talking to the lab (a page's is replaced below). */
const realFetch = globalThis.fetch;

/** A page: its window events, the batches sent to the collector (parsed;
 *  by sendBeacon, or by fetch when too large for it), a fetch that answers
 *  with `reads` (strings) and then ends, or hangs when `hang`. */
function page() {
  const win = new EventTarget();
  const beacons = [];
  // The answer elements the page shows (`show` replaces them, as a
  // framework re-rendering does; at first one, empty) and the
  // MutationObserver that hears it.
  let answers = [{ textContent: '' }];
  const observers = [];
  Object.assign(globalThis, {
    addEventListener: win.addEventListener.bind(win),
    removeEventListener: win.removeEventListener.bind(win),
    dispatchEvent: win.dispatchEvent.bind(win),
    requestAnimationFrame: (cb) => setTimeout(() => cb(performance.now()), 16),
    document: { querySelectorAll: () => answers, documentElement: {} },
    location: new URL('https://shop.example/chat'),
    MutationObserver: class {
      constructor(cb) {
        this.cb = cb;
      }
      observe() {
        observers.push(this);
      }
      disconnect() {
        observers.splice(observers.indexOf(this), 1);
      }
    },
  });
  const show = (...texts) => {
    answers = texts.map((textContent) => ({ textContent }));
    for (const o of [...observers]) o.cb([]);
  };
  Object.defineProperty(globalThis, 'navigator', {
    configurable: true,
    value: {
      userAgent: UA,
      sendBeacon(url, blob) {
        beacons.push(blob.text().then((t) => ({ url, body: JSON.parse(t) })));
        return true;
      },
    },
  });
  globalThis.fetch = async (url, init) => {
    if (String(url).startsWith('https://collect.example/')) {
      // Batches go by fetch, with keepalive when under 60 kB (so they
      // outlive the page); a beacon only where fetch fails.
      beacons.push(Promise.resolve({ url, body: JSON.parse(init.body), keepalive: init.keepalive }));
      return new Response('{}');
    }
    const { reads, hang } = JSON.parse(init.body).test;
    const enc = new TextEncoder();
    let k = 0;
    const body = new ReadableStream({
      pull(ctl) {
        if (k < reads.length) return ctl.enqueue(enc.encode(reads[k++]));
        if (!hang) return ctl.close();
        return new Promise(() => {}); // the server is still thinking
      },
    });
    return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
  };
  return { leave: () => win.dispatchEvent(new Event('pagehide')), beacons, show };
}

/** The page asks for an answer, as its user does (a click, then the page's
 *  fetch), and reads `upTo` reads of it (all by default). */
async function ask(test, upTo = Infinity) {
  globalThis.dispatchEvent(new Event('click'));
  const body = JSON.stringify({ model: 'gpt-test', stream: true, messages: [{ role: 'user', content: 'hi' }], test });
  const res = await fetch(URL_, { method: 'POST', body });
  const reader = res.body.getReader();
  for (let n = 0; n < upTo; n++) if ((await reader.read()).done) break;
  return reader;
}

const spansOf = async (beacons) => (await Promise.all(beacons)).flatMap((b) => b.body.resourceSpans[0].scopeSpans[0].spans);
const scalar = (x) => x.boolValue ?? x.doubleValue ?? (x.intValue !== undefined ? Number(x.intValue) : x.stringValue);
const attrOf = (span, key) => {
  const v = span.attributes.find((a) => a.key === `latency_lab.${key}`)?.value;
  return v && (v.arrayValue ? v.arrayValue.values.map(scalar) : scalar(v));
};

test('a page left mid-answer sends its span on pagehide: what arrived, marked aborted', async () => {
  const { leave, beacons } = page();
  const field = installField({ collector: 'https://collect.example/v1/traces', key: 'llk_test', settleMs: 10 });
  try {
    await ask({ reads: [chunk('Hel'), chunk('lo'), chunk(' there')], hang: true }, 2);
    // The decoders arrive with the first answer (field.js fetches them then).
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(beacons.length, 0, 'nothing is sent while the answer streams');
    leave();
    assert.equal(beacons.length, 1, 'pagehide sends at once');
    const [b] = await Promise.all(beacons);
    assert.equal(b.url, 'https://collect.example/v1/traces?key=llk_test');
    assert.equal(b.keepalive, true, 'by fetch with keepalive, which outlives the page');
    const spans = await spansOf(beacons);
    assert.equal(spans.length, 1);
    assert.equal(attrOf(spans[0], 'aborted'), true);
    // The page read two; the third had arrived too (the snippet reads one
    // ahead of the page, as a stream's queue does), and the fourth never came.
    assert.equal(attrOf(spans[0], 'chunk_ms').length, 3, 'the three reads that arrived');
    assert.deepEqual(attrOf(spans[0], 'chunk_chars'), [3, 2, 6]);
    assert.equal(spans[0].attributes.find((a) => a.key === 'error.type'), undefined, 'left, not failed');
  } finally {
    field.stop();
  }
});

test('sampleRate 0.5 over 200 answers records about 100, each saying its rate, and the collector counts them back to about 200', async () => {
  const { leave, beacons } = page();
  const field = installField({ collector: 'https://collect.example/v1/traces', key: 'llk_test', sampleRate: 0.5, settleMs: 10 });
  try {
    for (let i = 0; i < 200; i++) await ask({ reads: [chunk('ok'), sse({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }), 'data: [DONE]\n\n'] });
    await new Promise((r) => setTimeout(r, 50)); // the last answers settle
    leave();
    const spans = await spansOf(beacons);
    // Binomial(200, 0.5): sd 7.1, so ±30 is 4.2 sd (a false alarm 3 in 100,000 runs).
    assert.ok(spans.length >= 70 && spans.length <= 130, `${spans.length} of 200 recorded at 0.5`);
    assert.ok(spans.every((s) => attrOf(s, 'sample_rate') === 0.5), 'every span says its rate');
    assert.ok(spans.every((s) => attrOf(s, 'aborted') === undefined), 'complete answers are not aborted');
    assert.equal(new Set(spans.map((s) => s.spanId)).size, spans.length, 'each answer once');
    // The collector keeps them with their rate; the Field view's summary
    // counts each as two: 200 ± 60 (the recorded count's ±30, doubled).
    const data = mkdtempSync(path.join(os.tmpdir(), 'lab-field-sampling-'));
    const key = execFileSync(LAB_BIN, ['field', 'add-site', 'sampled', '--origin', 'https://shop.example', '--data', data], { encoding: 'utf8' }).trim().split('\n').at(-1);
    const lab = await startServer(['--data', data]);
    try {
      for (const b of await Promise.all(beacons)) {
        const res = await realFetch(new URL(`/v1/traces?key=${key}`, lab.url), { method: 'POST', body: JSON.stringify(b.body), headers: { 'content-type': 'application/json' } });
        assert.equal(res.status, 200, await res.text());
      }
      const token = readFileSync(path.join(data, 'researcher-token'), 'utf8').trim();
      const res = await realFetch(new URL('/v1/field/summary?site=sampled&by=site', lab.url), { headers: { Authorization: `Bearer ${token}` } });
      const summary = await res.json();
      assert.equal(summary.requests, spans.length, 'every recorded answer kept');
      assert.equal(summary.estimated, spans.length * 2, 'each stands for two');
      assert.ok(summary.estimated >= 140 && summary.estimated <= 260, `the Field view estimates ${summary.estimated} of 200`);
      assert.equal(summary.groups[0].estimated, summary.estimated);
    } finally {
      lab.stop();
    }
  } finally {
    field.stop();
  }
});

test('paints follow the newest answer element as a framework re-creates it, and a selector that matches nothing is said once', async () => {
  const { leave, beacons, show } = page();
  const said = [];
  const warn = console.warn;
  console.warn = (m) => said.push(m);
  const field = installField({ collector: 'https://collect.example/v1/traces', key: 'llk_test', settleMs: 10 });
  const frame = () => new Promise((r) => setTimeout(r, 40));
  try {
    show('An earlier answer');
    await ask({ reads: [chunk('Hel'), chunk('lo'), chunk(' there')], hang: true }, 1);
    await frame();
    show('An earlier answer'); // the old answer re-created, the same text: no paint
    await frame();
    show('An earlier answer', 'Hel'); // the new answer appears
    await frame();
    show('An earlier answer', 'Hel'); // both re-created (a React re-render): no paint
    await frame();
    show('An earlier answer', 'Hello there'); // its node replaced, more text
    await frame();
    leave();
    const [span] = await spansOf(beacons);
    assert.deepEqual(attrOf(span, 'paint_chars'), [3, 11], 'two paints of new text, none for re-created nodes');
    assert.deepEqual(said, [], 'the selector matched');
    // A page whose answers the selector does not find: said once, however
    // many answers, and (no `match` naming them) none recorded.
    show();
    const before = beacons.length;
    for (let i = 0; i < 2; i++) await ask({ reads: [chunk('ok'), 'data: [DONE]\n\n'] });
    await new Promise((r) => setTimeout(r, 80));
    assert.equal(said.length, 1, `said once: ${said}`);
    assert.match(said[0], /nothing matches answer "\[data-llm-answer\]"/);
    field.flush();
    assert.equal(beacons.length, before, 'nothing sent for answers no element showed');
  } finally {
    console.warn = warn;
    field.stop();
  }
});

test('a stream of no wire the lab reads is "format unknown": its paints, no chunks, not a failure', async () => {
  const { leave, beacons, show } = page();
  const field = installField({ collector: 'https://collect.example/v1/traces', key: 'llk_test', settleMs: 10 });
  const frame = () => new Promise((r) => setTimeout(r, 40));
  try {
    // The page's own events: neither OpenAI's nor the AI SDK's nor any wire's.
    const own = (t) => `event: token\ndata: ${JSON.stringify({ t })}\n\n`;
    const reader = await ask({ reads: [own('Hel'), own('lo')], hang: true }, 2);
    show('Hel');
    await frame();
    show('Hello');
    await frame();
    await reader.cancel();
    await new Promise((r) => setTimeout(r, 80));
    leave();
    const [span] = await spansOf(beacons);
    assert.equal(attrOf(span, 'wire'), 'unknown');
    assert.deepEqual(attrOf(span, 'chunk_ms'), [], 'no chunks from a stream it cannot read');
    assert.deepEqual(attrOf(span, 'paint_chars'), [3, 5], 'what the user saw');
    assert.equal(span.attributes.find((a) => a.key === 'error.type'), undefined, 'not a failure');
  } finally {
    field.stop();
  }
});
