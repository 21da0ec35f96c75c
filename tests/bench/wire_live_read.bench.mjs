// Where does Live lose time in Firefox on a wire that sends nothing before
// its first token (Gemini, Ollama, plain text)? The page's ReadableStream
// reads are watched from JavaScript (a `then` on each read's promise,
// attached before Live's own), so each first token has three times on the
// page clock: when the browser resolved the read (JS), when Live stamped it
// (its trace, after the wasm future's hop), and when the server sent it (its
// own record, as an offset from the request's send). Live is run over Chat
// and the wire, interleaved; a bare `fetch` reader of the same wire runs in
// the same page between them. BENCHMARKS.md, "Every wire".
//
//   node tests/bench/wire_live_read.bench.mjs [gemini|ollama|text|responses|…] [rounds] [firefox|chromium|webkit]
// STEPS=1: the fetch's resolution, the first read asked and resolved.
// PROXY=1: Live reads a JS-fed copy of its response's body.
// TWIN=1: a bare reader's twin of each of Live's requests, beside it
// (TWIN=signal: the twin keeps Live's AbortSignal; TWIN=first: the twin
// is sent before Live's request, not after).
// SINGLE=1: Live asked one request at a time, a second apart (nothing of
// the request before still being done while one waits), instead of 5 in a row.
import { startServer, launchBrowser, chromiumOpen } from '../e2e/lib/lab.mjs';
import { firefoxOpen, launchFirefox } from '../e2e/lib/firefox.mjs';
import { launchWebKit, webkitOpen } from '../e2e/lib/webkit.mjs';
import { downloadTrace, runLive, setValue } from '../e2e/lib/dom.mjs';
import { bareReaderDeltas } from '../e2e/lib/wires_suite.mjs';

const wire = process.argv[2] ?? 'gemini';
const rounds = Number(process.argv[3] ?? 4);
const which = process.argv[4] ?? 'firefox';
const TTFT = 150;
// TOKENS=30: the wires suite's answers (10 by default).
const MODEL = `profile:ttft=${TTFT},tpot=15,tokens=${process.env.TOKENS ?? 10},jitter=constant`;
const N = 5;

const server = await startServer([]);
// FFPREFS='{"pref": value}': Firefox preferences to try (e.g. its GC's).
const prefs = JSON.parse(process.env.FFPREFS ?? '{}');
const browser = await ({ firefox: () => launchFirefox({ extraPrefsFirefox: prefs }), webkit: launchWebKit }[which] ?? launchBrowser)();
const { page, close } = await ({ firefox: firefoxOpen, webkit: webkitOpen }[which] ?? chromiumOpen)(browser, `${server.url}#live`);
const root = server.url.replace(/\/$/, '');
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows = {};
const put = (k, v) => (rows[k] ??= []).push(v);
try {
  // Every read the page's streams resolve, timed from JS before Live's own `then`.
  await page.evaluate(() => {
    window.__reads = [];
    const read = ReadableStreamDefaultReader.prototype.read;
    window.__origRead = read;
    // STEPS=1: when each fetch resolved and each read was asked for.
    window.__steps = [];
    const f = window.fetch;
    window.fetch = function (...a) {
      const p = f.apply(this, a);
      p.then(() => window.__steps.push(['fetch', performance.now()]), () => {});
      return p;
    };
    // Each animation-frame callback's start and end (a frame run between a
    // read asked and its resolution holds the read back).
    const raf = window.requestAnimationFrame;
    window.requestAnimationFrame = function (cb) {
      return raf.call(this, (t) => {
        window.__steps.push(['frame', performance.now()]);
        try { cb(t); } finally { window.__steps.push(['frame end', performance.now()]); }
      });
    };
    const mc = new MessageChannel();
    mc.port1.onmessage = () => window.__steps.push(['free', performance.now()]);
    ReadableStreamDefaultReader.prototype.read = function () {
      window.__steps.push(['read', performance.now()]);
      queueMicrotask(() => window.__steps.push(['micro', performance.now()]));
      mc.port2.postMessage(0);
      const p = read.call(this);
      p.then((r) => !r.done && window.__reads.push(performance.now()), () => {});
      return p;
    };
  });
  // TWIN=1: each request Live sends of the wire is sent a second time at
  // once, read by a bare reader beside Live's: if the twin's first token
  // is late too, the page's state while Live waits is the cause; if only
  // Live's is, its own stream is.
  if (process.env.TWIN) {
    await page.evaluate(({ half, how }) => {
      window.__twins = [];
      const orig = window.fetch, read = window.__origRead;
      window.fetch = function (input, init) {
        const url = typeof input === 'string' ? input : input.url;
        if (/streamGenerateContent|\/api\/chat|text-stream|chat\/completions/.test(url)) {
          const twin = input instanceof Request ? input.clone() : new Request(input, init);
          const go = async () => {
            const t0 = performance.now();
            const res = await orig(how === 'signal' ? twin : new Request(twin, { signal: null }));
            const reader = res.body.getReader();
            let first = null;
            for (;;) {
              const { done } = await read.call(reader);
              if (done) break;
              const at = performance.now() - t0;
              if (first === null && at >= half) first = at;
            }
            window.__twins.push({ id: res.headers.get('x-latency-lab-request-id'), first });
          };
          if (how === 'first') {
            go();
            return orig.call(this, input, init);
          }
          const live = orig.call(this, input, init);
          go();
          return live;
        }
        return orig.call(this, input, init);
      };
    }, { half: TTFT / 2, how: process.env.TWIN });
  }
  // PROXY=1: Live is handed a stream that a JS reader of the real body
  // feeds: if Live's first token is then on time, the delay is in how
  // Live's own reads of the browser's body are resolved.
  if (process.env.PROXY) {
    await page.evaluate(() => {
      const orig = window.fetch, read = window.__origRead;
      window.fetch = async function (input, init) {
        const url = typeof input === 'string' ? input : input.url;
        const res = await orig.call(this, input, init);
        if (!/streamGenerateContent|\/api\/chat|text-stream/.test(url) || !res.body) return res;
        const inner = res.body.getReader();
        const body = new ReadableStream({
          async pull(c) {
            const r = await read.call(inner);
            r.done ? c.close() : c.enqueue(r.value);
          },
          cancel: (why) => inner.cancel(why),
        });
        return new Response(body, { status: res.status, headers: res.headers });
      };
    });
  }
  // NOANIM=1: no CSS animation on the page (the answer's blinking cursor).
  if (process.env.NOANIM) {
    await page.evaluate(() => {
      // A constructed sheet: the page's CSP allows no inline <style>.
      const sheet = new CSSStyleSheet();
      sheet.replaceSync('*, *::before, *::after { animation: none !important; }');
      document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
      window.__noanim = getComputedStyle(document.body).animationName;
    });
  }
  await setValue(page, 'api-flavour', 'chat');
  await runLive(page, { model: MODEL, mode: 'repeat', n: 2 });
  for (let round = 0; round < rounds; round++) {
    for (const w of ['chat', wire]) {
      await setValue(page, 'api-flavour', w);
      await page.evaluate(() => (window.__reads = []));
      const requests = [];
      if (process.env.SINGLE) {
        for (let k = 0; k < N; k++) {
          await new Promise((r) => setTimeout(r, 1000));
          await runLive(page, { model: MODEL, mode: 'single' });
          requests.push(...(await downloadTrace(page)).requests);
        }
      } else {
        await runLive(page, { model: MODEL, mode: 'repeat', n: N });
        requests.push(...(await downloadTrace(page)).requests);
      }
      const reads = await page.evaluate(() => window.__reads);
      if (process.env.STEPS) {
        // For each fetch: its resolution to the next read asked, and that read's resolution.
        const steps = await page.evaluate(() => window.__steps.splice(0));
        steps.forEach(([k, t], i) => {
          if (k !== 'fetch') return;
          const next = steps.slice(i + 1).find(([k2]) => k2 === 'read');
          const done = reads.find((r) => r >= (next?.[1] ?? Infinity));
          if (next) put(`${w}: fetch resolved → read asked`, next[1] - t);
          if (next && done !== undefined) put(`${w}: read asked → read resolved`, done - next[1]);
          const j = steps.indexOf(next);
          const micro = steps.slice(j).find(([k2]) => k2 === 'micro');
          const free = steps.slice(j).find(([k2]) => k2 === 'free');
          if (micro) put(`${w}: read asked → its task's microtasks`, micro[1] - next[1]);
          if (free) put(`${w}: read asked → a message posted then`, free[1] - next[1]);
          const frame = steps.slice(j).find(([k2]) => k2 === 'frame');
          const frameEnd = steps.slice(j).find(([k2]) => k2 === 'frame end');
          if (frame && done !== undefined && frame[1] < done) {
            put(`${w}: read asked → a frame's callback (before the read)`, frame[1] - next[1]);
            put(`${w}: that frame's callback takes`, frameEnd[1] - frame[1]);
            put(`${w}: that frame's end → read resolved`, done - frameEnd[1]);
          } else put(`${w}: no frame before the read resolved`, 0);
        });
      }
      for (const r of requests) {
        const c = r.chunks.find((c) => (c.kind ?? 'content') === 'content');
        // The JS resolution of the read Live stamped: the last one at or before its stamp.
        const js = reads.filter((t) => t <= c.arrived_ms + 1e-6).at(-1);
        const sent = r.sent_ms + r.server.chunks_sent_ms[0];
        put(`${w}: JS read − server sent`, js - sent);
        put(`${w}: Live stamp − JS read`, c.arrived_ms - js);
        if (r.headers_ms != null && r.server.headers_sent_ms != null) put(`${w}: headers read − server sent`, r.headers_ms - r.sent_ms - r.server.headers_sent_ms);
      }
    }
    if (process.env.TWIN) {
      await new Promise((r) => setTimeout(r, 1000));
      for (const t of await page.evaluate(() => window.__twins.splice(0))) {
        const server = await (await fetch(`${root}/v1/lab/requests/${t.id}`)).json();
        put(`${wire}: twin beside Live − server sent`, t.first - server.chunks[0].sent_ms);
      }
    }
    // A bare reader of the wire in the same page (the wires suite's).
    for (const d of await bareReaderDeltas(page, root, wire, { model: MODEL, ttft: TTFT, n: N })) put(`${wire}: bare reader − server sent`, d);
  }
} finally {
  await close();
  await browser.close();
  server.stop();
}
console.log(`${which}, ${rounds} rounds × ${N} requests, medians (ms):`);
for (const [k, xs] of Object.entries(rows)) console.log(`${k.padEnd(36)} ${median(xs).toFixed(2).padStart(7)}  (n ${xs.length}, min ${Math.min(...xs).toFixed(2)}, max ${Math.max(...xs).toFixed(2)})`);
