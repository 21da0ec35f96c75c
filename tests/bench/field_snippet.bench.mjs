// What the field snippet (its built field.js, as the demo pages carry it)
// costs the page it runs in, in Chromium and Firefox, per wire a page
// streams (OpenAI Chat, the AI SDK's UI message stream, plain text): the
// main-thread time a streamed answer's chunks take to read through fetch
// with the snippet against without it (the same stream, both ways,
// interleaved 9 times in one page: the snippet's read wrapper, the wire's
// decoding and recording, and the MutationObserver callback of the answer
// element the page writes each chunk into), the work of one paint stamp
// (finding the answer element and counting its characters, in the frame
// after new text), and per request the span built and encoded when the
// answer settles. Answers that arrive by EventSource or WebSocket
// (transports.js, the events and socket pages' setting) are measured the
// same way per message: OpenAI Chat chunks dispatched as message events on
// an open connection whose server stays silent, the page's own listener
// writing each into the answer, with the snippet's transport against the
// browser's own class.
//   node tests/bench/field_snippet.bench.mjs        (CHUNKS=2000 RUNS=9 WIRES=chat,ui_stream,text,eventsource,websocket)
import { launchBrowser, startServer } from '../e2e/lib/lab.mjs';
import { launchFirefox, setViewport } from '../e2e/lib/firefox.mjs';
import { spanOf } from '../../packages/field/core.js';

const CHUNKS = Number(process.env.CHUNKS ?? 2000);
const RUNS = Number(process.env.RUNS ?? 9);
const WIRES = (process.env.WIRES ?? 'chat,ui_stream,text,eventsource,websocket').split(',');
const TRANSPORTS = ['eventsource', 'websocket'];

/** Runs in the page: the medians, in µs. */
async function measure({ chunks, runs, wire }) {
  const { installField } = await import('/examples/chat/field.js');
  const enc = new TextEncoder();
  const event = {
    chat: (i) => `data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"word${i % 97} "}}]}\n\n`,
    ui_stream: (i) => `data: {"type":"text-delta","id":"t1","delta":"word${i % 97} "}\n\n`,
    text: (i) => `word${i % 97} `,
  }[wire];
  const parts = Array.from({ length: chunks }, (_, i) => enc.encode(event(i)));
  if (wire === 'chat') parts.push(enc.encode('data: [DONE]\n\n'));
  if (wire === 'ui_stream') parts.push(enc.encode('data: {"type":"finish"}\n\ndata: [DONE]\n\n'));
  const headers = {
    chat: { 'content-type': 'text/event-stream' },
    ui_stream: { 'content-type': 'text/event-stream', 'x-vercel-ai-ui-message-stream': 'v1' },
    text: { 'content-type': 'text/plain; charset=utf-8' },
  }[wire];
  // The page's own fetch: a stream whose chunks are all there at once, so
  // the loop measures main-thread work only, never the network.
  const stub = async () =>
    new Response(new ReadableStream({ start(c) { for (const p of parts) c.enqueue(p); c.close(); } }), { headers });
  globalThis.fetch = stub;
  const field = installField({ collector: '/v1/traces', key: 'llk_bench', settleMs: 60_000, match: () => true });
  const wrapped = globalThis.fetch;
  const body = JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'x' }] });
  const answer = async (f) => {
    const el = document.createElement('div');
    el.dataset.llmAnswer = '';
    document.body.append(el);
    const td = new TextDecoder();
    const t0 = performance.now();
    const res = await f('/v1/chat/completions', { method: 'POST', body });
    const reader = res.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      el.append(td.decode(value, { stream: true }).length > 0 ? 'w ' : '');
    }
    const ms = performance.now() - t0;
    el.remove();
    return ms;
  };
  const plain = [], withSnippet = [];
  await answer(stub);
  await answer(wrapped);
  for (let i = 0; i < runs; i++) {
    plain.push(await answer(stub));
    withSnippet.push(await answer(wrapped));
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const perChunk = (xs) => (median(xs) * 1000) / chunks;
  // One paint stamp's work on an answer of 2,000 characters.
  const el = document.createElement('div');
  el.dataset.llmAnswer = '';
  el.textContent = 'x'.repeat(2000);
  document.body.append(el);
  let t0 = performance.now(), n = 0;
  for (let i = 0; i < 2000; i++) {
    const found = [...document.querySelectorAll('[data-llm-answer]')].pop();
    for (const _ of found.textContent) n++;
  }
  const stamp = ((performance.now() - t0) * 1000) / 2000;
  field.stop();
  return { plain: perChunk(plain), snippet: perChunk(withSnippet), stamp, n };
}

/**
 * Runs in the page: per message of an EventSource or WebSocket answer, the
 * page's own listener with the browser's class against the snippet's
 * (`transports.js`), on connections to the lab whose server sends nothing
 * for a minute (TTFT 60 s): every message is dispatched by the page, so
 * only main-thread work is measured.
 */
async function messages({ chunks, runs, wire }) {
  const { installField } = await import('/examples/chat/field.js');
  const { eventSource, webSocket } = await import('/examples/events/transports.js');
  const model = 'profile:ttft=60000,tpot=10,tokens=5';
  const own = { eventsource: globalThis.EventSource, websocket: globalThis.WebSocket }[wire];
  // Each answer the snippet read, handed over when it stops: proof that the
  // wrapped class recorded every message as a chunk of its wire.
  const spans = [];
  const field = installField({ collector: '/v1/traces', key: 'llk_bench', settleMs: 60_000, match: () => true, transports: [wire === 'eventsource' ? eventSource : webSocket], onSpan: (s) => spans.push(s) });
  const wrapped = { eventsource: globalThis.EventSource, websocket: globalThis.WebSocket }[wire];
  const data = Array.from({ length: chunks }, (_, i) => `{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"word${i % 97} "}}]}`);
  const connect = async (Class) => {
    if (wire === 'eventsource') {
      const es = new Class(`/v1/lab/event-stream?model=${encodeURIComponent(model)}&q=x`);
      await new Promise((r) => es.addEventListener('open', r, { once: true }));
      return es;
    }
    const ws = new Class(`${location.origin.replace(/^http/, 'ws')}/v1/lab/ws`);
    await new Promise((r) => ws.addEventListener('open', r, { once: true }));
    ws.send(JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: 'x' }] }));
    return ws;
  };
  const answer = async (Class) => {
    const el = document.createElement('div');
    el.dataset.llmAnswer = '';
    document.body.append(el);
    const conn = await connect(Class);
    conn.addEventListener('message', (e) => el.append(e.data.length > 0 ? 'w ' : ''));
    const t0 = performance.now();
    for (const d of data) {
      conn.dispatchEvent(new MessageEvent('message', { data: d }));
      await null; // the answer element's MutationObserver, as after a real message
    }
    const ms = performance.now() - t0;
    conn.close();
    el.remove();
    return ms;
  };
  const plain = [], withSnippet = [];
  await answer(own);
  await answer(wrapped);
  for (let i = 0; i < runs; i++) {
    plain.push(await answer(own));
    withSnippet.push(await answer(wrapped));
  }
  field.stop();
  const read = spans.map((s) => {
    const at = (k) => s.attributes.find((a) => a.key === `latency_lab.${k}`)?.value;
    return `${at('wire')?.stringValue}:${at('chunk_ms')?.arrayValue?.values?.length}`;
  });
  const want = `chat:${chunks}`;
  if (read.length !== runs + 1 || read.some((x) => x !== want)) throw new Error(`the snippet read ${read.join(', ')}; expected ${runs + 1} × ${want}`);
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const perChunk = (xs) => (median(xs) * 1000) / chunks;
  return { plain: perChunk(plain), snippet: perChunk(withSnippet), stamp: NaN, n: 0 };
}

const server = await startServer([]);
const url = new URL('/examples/chat/', server.url).href;
const rows = [];
try {
  for (const [name, launch, open] of [
    ['Chromium', launchBrowser, async (b) => (await (await b.newContext()).newPage())],
    ['Firefox', launchFirefox, async (b) => {
      const page = await (await b.createBrowserContext()).newPage();
      await setViewport(page, { width: 1280, height: 800 });
      return page;
    }],
  ]) {
    const browser = await launch();
    try {
      for (const wire of WIRES) {
        const page = await open(browser);
        await page.goto(url);
        const m = await page.evaluate(TRANSPORTS.includes(wire) ? messages : measure, { chunks: CHUNKS, runs: RUNS, wire });
        rows.push([`${name}, ${wire}`, m]);
      }
    } finally {
      await browser.close();
    }
  }
} finally {
  server.stop();
}
// A settled request's span for 500 chunks and 500 paints, built and encoded
// (in Node, from the source: the built file's record has shortened names).
const rec = {
  t0: 0, op: 'chat', wire: 'chat', model: 'm', host: 'api.example', headers: 40, end: 9000, err: null, st: { finish: ['stop'] },
  at: Array.from({ length: 500 }, (_, i) => 100 + i * 17.3), kind: Array(500).fill(0), chars: Array(500).fill(4),
  paint: Array.from({ length: 500 }, (_, i) => 101 + i * 17.3), shown: Array.from({ length: 500 }, (_, i) => 4 * i + 4),
};
globalThis.performance.timeOrigin ??= Date.now();
let t0 = performance.now(), bytes = 0;
for (let i = 0; i < 200; i++) bytes = JSON.stringify(spanOf(rec, { sampleRate: 1 })).length;
const spanUs = ((performance.now() - t0) * 1000) / 200;
const f = (x, d = 2) => x.toFixed(d);
console.log(`\nField snippet's main-thread cost (${CHUNKS} chunks per answer, median of ${RUNS} interleaved pairs)\n`);
console.log('| browser, wire | per chunk without (µs) | per chunk with the snippet (µs) | snippet per chunk (µs) | one paint stamp, 2,000 chars (µs) |');
console.log('|---|---:|---:|---:|---:|');
for (const [name, m] of rows) {
  console.log(`| ${name} | ${f(m.plain)} | ${f(m.snippet)} | ${f(m.snippet - m.plain)} | ${Number.isNaN(m.stamp) ? '(as above)' : f(m.stamp)} |`);
}
console.log(`\nA span of 500 chunks and 500 paints built and encoded (Node ${process.version}): ${f(spanUs, 0)} µs, ${bytes} bytes`);
