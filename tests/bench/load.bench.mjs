// Browser load: the Live view runs 64 concurrent streams against
// `latency-lab serve`, again and again for LOAD_SECONDS (default 180), and
// we watch the page: JS heap after a forced GC at the end of each run, the
// longest gap between animation frames, and failures. Over HTTP/1.1 the
// browser opens at most 6 connections per host, so the 64 streams go 6 at a
// time (the lab says so on the page); HTTP/2 would multiplex them, but
// browsers speak HTTP/2 only over TLS, and `latency-lab serve` is plain
// HTTP on loopback.
// Run: ./lab bench   (prints a Markdown table; raw numbers in tests/e2e/artifacts)
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ARTIFACTS, launchBrowser, openPage, setField, startServer, waitForText } from '../e2e/lib/lab.mjs';

const SECONDS = Number(process.env.LOAD_SECONDS ?? 180);
const MODEL = 'profile:ttft=100,tpot=10,tokens=100,jitter=constant';

const server = await startServer();
const browser = await launchBrowser();
const rows = [];
try {
  const { page, context, problems } = await openPage(browser, `${server.url}#live`);
  const cdp = await context.newCDPSession(page);
  await cdp.send('Performance.enable');
  await page.evaluate(() => {
    window.__gaps = [];
    let last = performance.now();
    const tick = (t) => { window.__gaps.push(t - last); last = t; requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
  });
  await setField(page, 'model', MODEL);
  await page.getByTestId('run-mode').selectOption('concurrent');
  await setField(page, 'run-n', 64);
  const start = Date.now();
  let run = 0;
  while (Date.now() - start < SECONDS * 1000) {
    run++;
    const t0 = Date.now();
    await page.getByTestId('start').click();
    await waitForText(page.getByTestId('run-status'), /^(Finished|Stopped)/, 120_000);
    await cdp.send('HeapProfiler.collectGarbage');
    const m = Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((x) => [x.name, x.value]));
    const gaps = await page.evaluate(() => { const g = window.__gaps; window.__gaps = []; return g; });
    const failed = await page.getByTestId('failure-message').count();
    rows.push({ run, seconds: (Date.now() - t0) / 1000, heap_mb: m.JSHeapUsedSize / 1e6, nodes: m.Nodes, max_gap_ms: Math.max(...gaps), gaps_over_100ms: gaps.filter((g) => g > 100).length, frames: gaps.length, failed });
  }
  if (problems.length) console.log('page problems:', problems);
  await context.close();
} finally {
  await browser.close();
  server.stop();
}
mkdirSync(ARTIFACTS, { recursive: true });
writeFileSync(path.join(ARTIFACTS, 'load-browser.json'), JSON.stringify(rows, null, 2));
const first = rows[Math.min(2, rows.length - 1)];
const last = rows[rows.length - 1];
console.log(`\nBrowser load: ${rows.length} runs of 64 concurrent streams (${MODEL}) in ${SECONDS} s\n`);
console.log('| measure | value |');
console.log('|---|---:|');
console.log(`| streams run | ${rows.length * 64} |`);
console.log(`| failed streams | ${rows.reduce((n, r) => n + r.failed, 0)} |`);
console.log(`| seconds per run (64 streams, 6 at a time) | ${(rows.reduce((n, r) => n + r.seconds, 0) / rows.length).toFixed(1)} |`);
console.log(`| JS heap after GC, run ${first.run} → run ${last.run} | ${first.heap_mb.toFixed(1)} MB → ${last.heap_mb.toFixed(1)} MB |`);
console.log(`| DOM nodes, run ${first.run} → run ${last.run} | ${first.nodes} → ${last.nodes} |`);
console.log(`| longest gap between frames | ${Math.max(...rows.map((r) => r.max_gap_ms)).toFixed(0)} ms |`);
console.log(`| frames slower than 100 ms | ${rows.reduce((n, r) => n + r.gaps_over_100ms, 0)} of ${rows.reduce((n, r) => n + r.frames, 0)} |`);
