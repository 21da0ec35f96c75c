// Live accuracy per browser: the lab's TTFT against the server's own send
// time, beside a plain `fetch` + `reader.read()` loop in the same page on
// the same endpoint, in Chromium, Firefox and WebKit (WebKitGTK on Xvfb), in
// one run. The difference between the two clients is what the lab itself
// adds to TTFT.
// Run: node tests/bench/live_browsers.bench.mjs   (part of ./lab bench)
// Before/after, side by side: BEFORE=<another build's dist/> serves that
// build too (the same serve binary); every round and browser then measures
// the lab's client on both builds (before, after) and the paused plain loop.
import { ARTIFACTS, launchBrowser, openPage, startServer } from '../e2e/lib/lab.mjs';
import { download, runLive } from '../e2e/lib/dom.mjs';
import { bothBrowsers, launchFirefox, openFirefoxPage } from '../e2e/lib/firefox.mjs';
import { launchWebKit, openWebKitPage } from '../e2e/lib/webkit.mjs';
import { plainLoop } from './lib/plain_loop.mjs';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const MODEL = 'profile:ttft300-itl20';
const N = 5;
const ROUNDS = Number(process.env.ROUNDS ?? 1);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const range = (xs) => `${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}`;

/** The lab's client: N requests in a row from the Live view; TTFT − server TTFT each. */
async function lab(page) {
  await runLive(page, { model: MODEL, mode: 'repeat', n: N });
  const trace = JSON.parse(await download(page, 'download-trace'));
  return trace.requests.map((r) => r.chunks[0].arrived_ms - r.sent_ms - r.server.chunks_sent_ms[0]);
}

/**
 * A plain loop in the same page (`lib/plain_loop.mjs`). `pause`: wait three
 * animation frames and a task before each request, as a page that shows
 * each result does (the lab waits for its view to settle); an idle moment
 * before a request costs the browser and the server a wake-up.
 */
function plain(page, base, pause) {
  return page.evaluate(plainLoop, [base, MODEL, N, pause ? 'frames' : 'none']);
}

const server = await startServer();
if (process.env.BEFORE) {
  const before = await startServer([], { dist: process.env.BEFORE });
  const out = [];
  try {
    const browsers = [
      ['Chromium', await launchBrowser(), openPage],
      ['Firefox', await launchFirefox(), openFirefoxPage],
      ['WebKit', await launchWebKit(), openWebKitPage],
    ];
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, browser, open] of browsers) {
        const row = { browser: name };
        for (const [build, srv] of [['before', before], ['after', server]]) {
          // Each page streams from its own server (the same binary): same
          // origin, as a visitor's page does; only the page differs.
          const { page, context } = await open(browser, `${srv.url}#live`);
          row[build] = await lab(page);
          if (build === 'after') row.paused = await plain(page, server.url, true);
          await context.close();
        }
        out.push(row);
      }
    }
    for (const [, b] of browsers) await b.close();
  } finally {
    before.stop();
    server.stop();
  }
  console.log(`\nTTFT − server's TTFT (ms), ${MODEL}, ${N} requests per build, round and browser: median of rounds' medians (range)\n`);
  console.log(`| browser | lab, before (${process.env.BEFORE}) | lab, after (this build) | plain loop, paused like the lab |`);
  console.log('|---|---|---|---|');
  for (const name of ['Chromium', 'Firefox', 'WebKit']) {
    const mine = out.filter((r) => r.browser === name);
    const col = (k) => { const m = mine.map((r) => median(r[k])); return `${median(m).toFixed(2)} (${range(m)})`; };
    console.log(`| ${name} | ${col('before')} | ${col('after')} | ${col('paused')} |`);
  }
  process.exit(0);
}
const rows = [];
try {
  const browsers = await bothBrowsers(`${server.url}#live`);
  browsers.push(['WebKit', await launchWebKit(), (b) => openWebKitPage(b, `${server.url}#live`)]);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, browser, open] of browsers) {
      const { page, context } = await open(browser);
      const version = await browser.version();
      const isolated = await page.evaluate(() => crossOriginIsolated);
      const labD = await lab(page);
      const plainD = await plain(page, server.url, false);
      const pausedD = await plain(page, server.url, true);
      rows.push({ browser: name, version, isolated, lab: labD, plain: plainD, paused: pausedD });
      await context.close();
    }
  }
  for (const [, b] of browsers) await b.close();
} finally {
  server.stop();
}
mkdirSync(ARTIFACTS, { recursive: true });
writeFileSync(path.join(ARTIFACTS, 'live-browsers.json'), JSON.stringify(rows, null, 2));
console.log(`\nTTFT − server's TTFT (ms), ${MODEL}, ${N} requests per client and round, same page, same endpoint\n`);
console.log('| round | browser | lab | plain loop, back to back | plain loop, paused like the lab | lab − back to back | lab − paused |');
console.log('|---:|---|---|---|---|---:|---:|');
const cell = (xs) => `${median(xs).toFixed(2)} (${range(xs)})`;
rows.forEach((r, i) => {
  const round = Math.floor(i / 3) + 1;
  console.log(`| ${round} | ${r.browser} ${r.version} | ${cell(r.lab)} | ${cell(r.plain)} | ${cell(r.paused)} | ${(median(r.lab) - median(r.plain)).toFixed(2)} | ${(median(r.lab) - median(r.paused)).toFixed(2)} |`);
});
console.log('\n| browser | lab − back to back: median of rounds (range) | lab − paused: median of rounds (range) |');
console.log('|---|---|---|');
for (const name of ['Chromium', 'Firefox', 'WebKit']) {
  const mine = rows.filter((r) => r.browser === name);
  const a = mine.map((r) => median(r.lab) - median(r.plain));
  const b = mine.map((r) => median(r.lab) - median(r.paused));
  console.log(`| ${name} | ${median(a).toFixed(2)} (${range(a)}) | ${median(b).toFixed(2)} (${range(b)}) |`);
}
