// What an idle moment before a request costs, whoever sends it: a plain
// `fetch` + `reader.read()` loop (no lab code) in Chromium and Firefox,
// measuring TTFT − the server's own TTFT with different pauses before each
// request. "main thread busy" spins the page for the pause instead of
// sleeping, to tell the page's own wake-up apart from the rest of the path
// (the browser's network thread or process, the kernel, the server).
// Run: node tests/bench/idle_gap.bench.mjs   (part of ./lab bench)
import { launchBrowser, openPage, startServer } from '../e2e/lib/lab.mjs';
import { launchFirefox, openFirefoxPage } from '../e2e/lib/firefox.mjs';
import { plainLoop } from './lib/plain_loop.mjs';

const MODEL = 'profile:ttft300-itl20';
/** Requests per pause and round. */
const N = Number(process.env.N ?? 6);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
/** Pauses before each request, as the page runs them. */
const PAUSES = {
  'back to back': 'none',
  'sleep 10 ms': 'sleep10',
  'sleep 50 ms': 'sleep50',
  'three frames and a task (as the lab)': 'frames',
  'main thread busy 50 ms': 'busy50',
};

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

function loop(page, base, pause) {
  return page.evaluate(plainLoop, [base, MODEL, N, pause]);
}

const server = await startServer();
const results = {};
try {
  const browsers = [
    ['Chromium', await launchBrowser(), openPage],
    ['Firefox', await launchFirefox(), openFirefoxPage],
  ];
  const pages = [];
  for (const [name, browser, open] of browsers) pages.push([name, (await open(browser, `${server.url}#live`)).page]);
  // Pauses and browsers interleave within each round, so a slow minute of
  // the machine lands on all of them.
  for (let round = 0; round < ROUNDS; round++) {
    for (const [label, pause] of Object.entries(PAUSES)) {
      for (const [name, page] of pages) {
        ((results[name] ??= {})[label] ??= []).push(median(await loop(page, server.url, pause)));
      }
    }
  }
  for (const [, b] of browsers) await b.close();
} finally {
  server.stop();
}
console.log(`\nTTFT − server's TTFT (ms) of a plain fetch loop, ${MODEL}; median of ${N} requests per round, rounds: median (range), ${ROUNDS} rounds\n`);
console.log(`| pause before each request | ${Object.keys(results).join(' | ')} | ${Object.keys(results).map((b) => `${b}: cost over back to back`).join(' | ')} |`);
console.log(`|---|${Object.keys(results).map(() => '---|').join('')}${Object.keys(results).map(() => '---:|').join('')}`);
for (const label of Object.keys(PAUSES)) {
  const cells = Object.values(results).map((r) => `${median(r[label]).toFixed(2)} (${Math.min(...r[label]).toFixed(2)}–${Math.max(...r[label]).toFixed(2)})`);
  const cost = Object.values(results).map((r) => (median(r[label]) - median(r['back to back'])).toFixed(2));
  console.log(`| ${label} | ${cells.join(' | ')} | ${cost.join(' | ')} |`);
}
