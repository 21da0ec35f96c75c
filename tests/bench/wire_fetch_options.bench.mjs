// Does the request Live sends change when Firefox hands a page the first
// token of a wire that sends nothing before it (Gemini, Ollama)? A bare
// `fetch` reader in the app's page, with each of Live's `fetch` options
// added alone and all together, with and without an animation-frame loop
// beside it, interleaved round by round; each row the median of the first
// token's read after the server sent it (the server's own record), ms.
// BENCHMARKS.md, "Every wire".
//
//   node tests/bench/wire_fetch_options.bench.mjs [gemini|ollama|chat] [rounds]
import { startServer } from '../e2e/lib/lab.mjs';
import { firefoxOpen, launchFirefox } from '../e2e/lib/firefox.mjs';

const wire = process.argv[2] ?? 'gemini';
const rounds = Number(process.argv[3] ?? 10);
const TTFT = 150;
const MODEL = `profile:ttft=${TTFT},tpot=15,tokens=10,jitter=constant`;
const question = [{ role: 'user', content: 'How fast?' }];
const [path, body] = {
  gemini: [`/v1beta/models/${encodeURIComponent(MODEL)}:streamGenerateContent?alt=sse`, { contents: [{ parts: [{ text: 'How fast?' }] }] }],
  ollama: ['/api/chat', { model: MODEL, messages: question }],
  chat: ['/v1/chat/completions', { model: MODEL, stream: true, messages: question }],
}[wire];
const VARIANTS = ['bare', 'accept', 'no-store', 'signal', 'shared-signal', 'cors', 'live', 'bare+frames', 'live+frames'];

const server = await startServer([]);
const browser = await launchFirefox();
const { page, close } = await firefoxOpen(browser, `${server.url}#live`);
const root = server.url.replace(/\/$/, '');
try {
  const reads = await page.evaluate(async ({ url, body, half, variants, rounds }) => {
    const out = [];
    // Live keeps one AbortController for every request of a run.
    const shared = new AbortController();
    // Round −1 warms the connection and the page: not counted.
    for (let r = -1; r < rounds; r++) {
      for (const v of variants) {
        const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
        const live = v.startsWith('live');
        if (v === 'accept' || live) init.headers.accept = 'text/event-stream';
        if (v === 'no-store' || live) init.cache = 'no-store';
        if (v === 'signal') init.signal = new AbortController().signal;
        if (v === 'shared-signal' || live) init.signal = shared.signal;
        if (v === 'cors' || live) Object.assign(init, { mode: 'cors', credentials: 'omit' });
        let stop = false;
        if (v.endsWith('+frames')) {
          const loop = () => { if (!stop) requestAnimationFrame(loop); };
          requestAnimationFrame(loop);
        }
        const t0 = performance.now();
        const res = await fetch(url, init);
        const reader = res.body.getReader();
        let first = null;
        for (;;) {
          const { done } = await reader.read();
          if (done) break;
          const at = performance.now() - t0;
          if (first === null && at >= half) first = at;
        }
        stop = true;
        if (r >= 0) out.push({ v, id: res.headers.get('x-latency-lab-request-id'), first });
        await new Promise((k) => setTimeout(k, 30));
      }
    }
    return out;
  }, { url: root + path, body, half: TTFT / 2, variants: VARIANTS, rounds });
  const by = {};
  for (const r of reads) {
    const t = await (await fetch(`${root}/v1/lab/requests/${r.id}`)).json();
    (by[r.v] ??= []).push(r.first - t.chunks[0].sent_ms);
  }
  const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
  console.log(`| Firefox, ${wire}, ${rounds} rounds | median (ms) | min | max |\n|---|---:|---:|---:|`);
  for (const v of VARIANTS) {
    const xs = by[v];
    console.log(`| ${v} | ${median(xs).toFixed(2)} | ${Math.min(...xs).toFixed(2)} | ${Math.max(...xs).toFixed(2)} |`);
  }
} finally {
  await close();
  await browser.close();
  server.stop();
}
