// When does each browser resolve `fetch` for a streamed answer whose headers
// go out alone (Gemini, Ollama, plain text) against one whose first bytes
// go with them (OpenAI Chat's role chunk)? TTFT 500 ms; the page's time from
// calling `fetch` to its resolution, and to the first body bytes, three
// requests each. BENCHMARKS.md, "Every wire" (Firefox resolves them only
// with the first token).
//   node tests/bench/fetch_headers.bench.mjs
import { startServer, launchBrowser } from '../e2e/lib/lab.mjs';
import { launchFirefox, firefoxPlain } from '../e2e/lib/firefox.mjs';

const server = await startServer([]);
const M = 'profile:ttft=500,tpot=15,tokens=3,jitter=constant';
const root = server.url.replace(/\/$/, '');
const messages = [{ role: 'user', content: 'x' }];
const CASES = {
  chat: ['/v1/chat/completions', { model: M, stream: true, messages }],
  gemini: [`/v1beta/models/${encodeURIComponent(M)}:streamGenerateContent?alt=sse`, { contents: [{ parts: [{ text: 'x' }] }] }],
  ollama: ['/api/chat', { model: M, messages }],
  text: [`/v1/lab/text-stream?model=${encodeURIComponent(M)}`, { messages: [] }],
};
const rows = [];
try {
  for (const [name, launch, open] of [
    ['Firefox', launchFirefox, async (b, url) => (await firefoxPlain(b, url)).page],
    ['Chromium', launchBrowser, async (b, url) => {
      const page = await (await b.newContext()).newPage();
      await page.goto(url);
      return page;
    }],
  ]) {
    const browser = await launch();
    try {
      const page = await open(browser, `${root}/v1/models`);
      const cells = [];
      for (const [path, body] of Object.values(CASES)) {
        cells.push(await page.evaluate(async ({ url, body }) => {
          const out = [];
          for (let i = 0; i < 3; i++) {
            const t0 = performance.now();
            const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
            const headers = performance.now() - t0;
            const reader = res.body.getReader();
            await reader.read();
            const first = performance.now() - t0;
            while (!(await reader.read()).done);
            out.push(`${headers.toFixed(1)}/${first.toFixed(1)}`);
          }
          return out.join(', ');
        }, { url: root + path, body }));
      }
      rows.push([`${name} ${browser.version ? await browser.version() : ''}`.trim(), cells]);
    } finally {
      await browser.close();
    }
  }
} finally {
  server.stop();
}
console.log('\n`fetch` resolved / first body bytes, ms after calling it (TTFT 500 ms), three requests\n');
console.log(`| browser | ${Object.keys(CASES).join(' | ')} |`);
console.log(`|---|${Object.keys(CASES).map(() => '---').join('|')}|`);
for (const [name, cells] of rows) console.log(`| ${name} | ${cells.join(' | ')} |`);
