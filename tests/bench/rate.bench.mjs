// Request-rate runs: how late the browser itself sends against the
// schedule (sent − scheduled), at 5 and 20 requests/s, in Chromium and
// Firefox, in one run. The schedule is Poisson (burstiness 1); each
// request streams a short profile from `latency-lab serve`, so at most a
// few are in flight (below the 6 HTTP/1.1 connections a browser opens).
// Run: node tests/bench/rate.bench.mjs   (part of ./lab bench)
import { startServer } from '../e2e/lib/lab.mjs';
import { click, download, setValue, waitText } from '../e2e/lib/dom.mjs';
import { bothBrowsers } from '../e2e/lib/firefox.mjs';

const MODEL = 'profile:ttft=50,tpot=10,tokens=10,jitter=constant';
const SECONDS = Number(process.env.SECONDS_PER_RATE ?? 10);
const RATES = [5, 20];

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  const h = (s.length - 1) * (p / 100);
  const lo = Math.floor(h);
  return lo + 1 < s.length ? s[lo] + (s[lo + 1] - s[lo]) * (h - lo) : s[lo];
};

async function rateRun(page, rate) {
  await setValue(page, 'model', MODEL);
  await setValue(page, 'run-mode', 'rate');
  await setValue(page, 'run-rate', rate);
  await setValue(page, 'run-duration', SECONDS);
  await click(page, 'start');
  await waitText(page, 'run-status', /^(Finished|Stopped)/, (SECONDS + 30) * 1000);
  const trace = JSON.parse(await download(page, 'download-trace'));
  const delays = trace.requests.map((r) => r.sent_ms - r.scheduled_ms);
  const failed = trace.requests.filter((r) => r.failure).length;
  return { n: delays.length, failed, delays };
}

const server = await startServer();
const rows = [];
try {
  const browsers = await bothBrowsers(`${server.url}#live`);
  for (const rate of RATES) {
    for (const [name, browser, open] of browsers) {
      const { page, context } = await open(browser);
      rows.push({ browser: `${name} ${await browser.version()}`, rate, ...(await rateRun(page, rate)) });
      await context.close();
    }
  }
  for (const [, b] of browsers) await b.close();
} finally {
  server.stop();
}
console.log(`\nRequest-rate runs, Poisson arrivals for ${SECONDS} s, ${MODEL}: the browser's own delay, sent − scheduled (ms)\n`);
console.log('| rate (req/s) | browser | requests | failed | P50 | P99 | max |');
console.log('|---:|---|---:|---:|---:|---:|---:|');
for (const r of rows) {
  const f = (v) => v.toFixed(2);
  console.log(`| ${r.rate} | ${r.browser} | ${r.n} | ${r.failed} | ${f(pct(r.delays, 50))} | ${f(pct(r.delays, 99))} | ${f(Math.max(...r.delays))} |`);
}
