// The field snippet's (packages/field/field.js) paths that a page rarely
// walks in the demo: leaving the page mid-answer (the `pagehide` flush,
// sent with sendBeacon) and sampling (`sampleRate`). Run in Node against a
// page's globals the test provides (EventTarget for the window's events,
// navigator.sendBeacon recording what it is given, a fetch that streams
// SSE), so every answer and every beacon is counted exactly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { installField } from '../../packages/field/field.js';

const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/148.0.0.0 Safari/537.36';
const URL_ = 'https://api.example/v1/chat/completions';
const sse = (o) => `data: ${JSON.stringify(o)}\n\n`;
const chunk = (text) => sse({ choices: [{ index: 0, delta: { content: text } }] });

/** A page: its window events, the batches sent to the collector (parsed;
 *  by sendBeacon, or by fetch when too large for it), a fetch that answers
 *  with `reads` (strings) and then ends, or hangs when `hang`. */
function page() {
  const win = new EventTarget();
  const beacons = [];
  Object.assign(globalThis, {
    addEventListener: win.addEventListener.bind(win),
    removeEventListener: win.removeEventListener.bind(win),
    dispatchEvent: win.dispatchEvent.bind(win),
    requestAnimationFrame: (cb) => setTimeout(() => cb(performance.now()), 16),
    document: { querySelectorAll: () => [], documentElement: {} },
    location: new URL('https://shop.example/chat'),
  });
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
      // A batch over sendBeacon's 60 kB goes by fetch (keepalive when small).
      beacons.push(Promise.resolve({ url, body: JSON.parse(init.body), fetch: true }));
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
  return { leave: () => win.dispatchEvent(new Event('pagehide')), beacons };
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
    assert.equal(beacons.length, 1, 'pagehide sends at once, with sendBeacon');
    const [b] = await Promise.all(beacons);
    assert.equal(b.url, 'https://collect.example/v1/traces?key=llk_test');
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

test('sampleRate 0.5 over 200 answers records about 100, each saying its rate', async () => {
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
  } finally {
    field.stop();
  }
});
