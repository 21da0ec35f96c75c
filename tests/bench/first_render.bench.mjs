// Time to first render of the release build served by `latency-lab serve`,
// in headless Chromium, cold (new browser context: empty cache) and warm
// (reload in the same context): navigation response end, first contentful
// paint, and the moment the app's header is in the DOM (the wasm has
// started and rendered), plus the first replay token on screen.
// Run: ./lab bench   (prints a Markdown table; raw numbers in tests/e2e/artifacts)
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ARTIFACTS, launchBrowser, startServer } from '../e2e/lib/lab.mjs';

const RUNS = Number(process.env.RUNS ?? 10);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const probe = () => {
  // Runs before the page's scripts: note when the header and the first token appear.
  window.__marks = {};
  new MutationObserver(() => {
    if (!window.__marks.header && document.querySelector('[data-testid=app-header]')) window.__marks.header = performance.now();
    const out = document.querySelector('[data-testid=pane-0-output]');
    if (!window.__marks.token && out && out.textContent.trim().length > 0) window.__marks.token = performance.now();
  }).observe(document, { childList: true, subtree: true, characterData: true });
};

async function measure(page) {
  await page.waitForFunction(() => window.__marks?.header && window.__marks?.token, null, { timeout: 30_000 });
  return page.evaluate(() => {
    const nav = performance.getEntriesByType('navigation')[0];
    const fcp = performance.getEntriesByName('first-contentful-paint')[0];
    return { response_end: nav.responseEnd, fcp: fcp?.startTime ?? NaN, header: window.__marks.header, token: window.__marks.token };
  });
}

const server = await startServer();
const browser = await launchBrowser();
const rows = { cold: [], warm: [] };
try {
  for (let i = 0; i < RUNS; i++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.addInitScript(probe);
    const page = await context.newPage();
    await page.goto(server.url);
    rows.cold.push(await measure(page));
    await page.reload();
    rows.warm.push(await measure(page));
    await context.close();
  }
} finally {
  await browser.close();
  server.stop();
}
mkdirSync(ARTIFACTS, { recursive: true });
writeFileSync(path.join(ARTIFACTS, 'first-render.json'), JSON.stringify(rows, null, 2));
console.log(`\nTime to first render, median of ${RUNS} (ms since navigation start)\n`);
console.log('| load | response end | first contentful paint | app rendered (header) | first replay token |');
console.log('|---|---:|---:|---:|---:|');
for (const [k, r] of Object.entries(rows)) {
  const m = (f) => median(r.map((x) => x[f])).toFixed(0);
  console.log(`| ${k} | ${m('response_end')} | ${m('fcp')} | ${m('header')} | ${m('token')} |`);
}
