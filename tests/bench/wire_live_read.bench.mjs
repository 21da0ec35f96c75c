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
//   node tests/bench/wire_live_read.bench.mjs [gemini|ollama|text] [rounds] [firefox|chromium]
// SINGLE=1: Live asked one request at a time, a second apart (nothing of
// the request before still being done while one waits), instead of 5 in a row.
import { startServer, launchBrowser, chromiumOpen } from '../e2e/lib/lab.mjs';
import { firefoxOpen, launchFirefox } from '../e2e/lib/firefox.mjs';
import { downloadTrace, runLive, setValue } from '../e2e/lib/dom.mjs';
import { bareReaderDeltas } from '../e2e/lib/wires_suite.mjs';

const wire = process.argv[2] ?? 'gemini';
const rounds = Number(process.argv[3] ?? 4);
const which = process.argv[4] ?? 'firefox';
const TTFT = 150;
const MODEL = `profile:ttft=${TTFT},tpot=15,tokens=10,jitter=constant`;
const N = 5;

const server = await startServer([]);
const browser = await (which === 'firefox' ? launchFirefox() : launchBrowser());
const { page, close } = await (which === 'firefox' ? firefoxOpen : chromiumOpen)(browser, `${server.url}#live`);
const root = server.url.replace(/\/$/, '');
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows = {};
const put = (k, v) => (rows[k] ??= []).push(v);
try {
  // Every read the page's streams resolve, timed from JS before Live's own `then`.
  await page.evaluate(() => {
    window.__reads = [];
    const read = ReadableStreamDefaultReader.prototype.read;
    ReadableStreamDefaultReader.prototype.read = function () {
      const p = read.call(this);
      p.then((r) => !r.done && window.__reads.push(performance.now()), () => {});
      return p;
    };
  });
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
      for (const r of requests) {
        const c = r.chunks.find((c) => (c.kind ?? 'content') === 'content');
        // The JS resolution of the read Live stamped: the last one at or before its stamp.
        const js = reads.filter((t) => t <= c.arrived_ms + 1e-6).at(-1);
        const sent = r.sent_ms + r.server.chunks_sent_ms[0];
        put(`${w}: JS read − server sent`, js - sent);
        put(`${w}: Live stamp − JS read`, c.arrived_ms - js);
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
