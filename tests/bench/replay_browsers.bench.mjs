// Replay fidelity per browser: release − due of the precise scheduler in
// Chromium, Firefox and WebKit (WebKitGTK), in one run, driven the same way
// (dom.mjs):
// - the landing story ("same tokens/s, different feel", 2 × 80 tokens),
//   5 cold loads per browser: P99 of each load, median and range;
// - 10,000 tokens at 5,000 tokens/s (two panes, plain text), 3 runs.
// Run: node tests/bench/replay_browsers.bench.mjs   (part of ./lab bench)
// Before/after, side by side: BEFORE=<another build's dist/> serves that
// build beside this one and interleaves their landing loads (browser by
// browser, build by build), then prints the two P99 columns; the fast runs
// are skipped.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ARTIFACTS, launchBrowser, openPage, startServer } from '../e2e/lib/lab.mjs';
import { launchFirefox, openFirefoxPage } from '../e2e/lib/firefox.mjs';
import { launchWebKit, openWebKitPage } from '../e2e/lib/webkit.mjs';
import { click, downloadTrace, setValue, waitFor, waitText } from '../e2e/lib/dom.mjs';

const LOADS = Number(process.env.LOADS ?? 5);
const FAST_RUNS = Number(process.env.FAST_RUNS ?? 3);

const pct = (xs, p) => {
  const s = Float64Array.from(xs).sort();
  const h = (s.length - 1) * p;
  const lo = Math.floor(h);
  return s[lo] + (s[Math.min(lo + 1, s.length - 1)] - s[lo]) * (h - lo);
};
const median = (xs) => pct(xs, 0.5);

/** Release − due P99 (ms) over both panes' chunks, and the largest. */
async function fidelity(page) {
  const traces = [await downloadTrace(page, 'pane-0-download'), await downloadTrace(page, 'pane-1-download')];
  const emit = traces.flatMap((t) => t.requests[0].chunks.map((c) => c.arrived_ms - c.due_ms));
  const paint = traces.flatMap((t) => t.requests[0].chunks.map((c) => c.painted_ms - c.arrived_ms));
  return {
    p50: pct(emit, 0.5), p99: pct(emit, 0.99), max: Math.max(...emit), n: emit.length,
    late_frames: traces.map((t) => t.meta.replay.late_frames), frames: traces[0].meta.replay.frames,
    paint_p50: pct(paint, 0.5), early_paints: paint.filter((p) => p < 0).length, clock_sleep: traces[0].meta.replay.clock_sleep,
  };
}

async function landing(open, url = server.url) {
  const { page, context } = await open(url);
  await waitFor(page, 'pane-1-result', 30_000);
  await waitFor(page, 'pane-0-result');
  const f = await fidelity(page);
  await context.close();
  return f;
}

async function fast(open) {
  const { page, context } = await open(`${server.url}#replay`);
  await sleep(1500); // clocks calibrated, refresh measured
  await setValue(page, 'render-mode', 'text');
  for (const i of [0, 1]) {
    await page.evaluate((s) => { document.querySelector(s).open = true; }, `[data-testid=pane-${i}] details.edit`);
    await setValue(page, `pane-${i}-edit-jitter`, 'constant');
    await setValue(page, `pane-${i}-edit-ttft`, 100);
    await setValue(page, `pane-${i}-edit-tpot`, 0.2);
    await setValue(page, `pane-${i}-edit-tokens`, 10_000);
    await setValue(page, `pane-${i}-edit-stall-p`, 0);
    await setValue(page, `pane-${i}-edit-text`, 'article');
    await click(page, `pane-${i}-apply`);
  }
  const out = [];
  for (let r = 0; r < FAST_RUNS; r++) {
    await click(page, 'restart'); // from the start, playing
    await waitFor(page, 'pane-1-result', 60_000);
    await waitFor(page, 'pane-0-result', 60_000);
    await waitText(page, 'play', /^Play$/, 60_000);
    out.push(await fidelity(page));
    await sleep(300);
  }
  await context.close();
  return out;
}

const server = await startServer();
const before = process.env.BEFORE ? await startServer([], { dist: process.env.BEFORE }) : null;
const rows = [];
try {
  const chromium = await launchBrowser();
  const firefox = await launchFirefox();
  const webkit = await launchWebKit();
  const browsers = [
    ['Chromium', chromium, (url) => openPage(chromium, url)],
    ['Firefox', firefox, (url) => openFirefoxPage(firefox, url)],
    ['WebKit', webkit, (url) => openWebKitPage(webkit, url)],
  ];
  const loads = Object.fromEntries(browsers.map(([n]) => [n, []]));
  if (before) {
    const was = Object.fromEntries(browsers.map(([n]) => [n, []]));
    for (let i = 0; i < LOADS; i++) {
      for (const [name, , open] of browsers) {
        was[name].push(await landing(open, before.url));
        loads[name].push(await landing(open, server.url));
      }
    }
    const col = (xs) => `${median(xs.map((x) => x.p99)).toFixed(2)} ms (${Math.min(...xs.map((x) => x.p99)).toFixed(2)}–${Math.max(...xs.map((x) => x.p99)).toFixed(2)})`;
    console.log(`| browser | landing story release − due P99, before (${process.env.BEFORE}) | after (this build) | loads |`);
    console.log('|---|---:|---:|---:|');
    for (const [name, b] of browsers) console.log(`| ${name} (${await b.version()}) | ${col(was[name])} | ${col(loads[name])} | ${LOADS} + ${LOADS} |`);
  } else {
    // Cold loads interleaved: Chromium, Firefox, Chromium, …
    for (let i = 0; i < LOADS; i++) for (const [name, , open] of browsers) loads[name].push(await landing(open));
    for (const [name, b, open] of browsers) {
      const f = await fast(open);
      rows.push({ browser: name, version: await b.version(), landing: loads[name], fast: f });
    }
  }
  await chromium.close();
  await firefox.close();
  await webkit.close();
} finally {
  server.stop();
  before?.stop();
}
if (before) process.exit(0);
mkdirSync(ARTIFACTS, { recursive: true });
writeFileSync(path.join(ARTIFACTS, 'replay-browsers.json'), JSON.stringify(rows, null, 2));
const r2 = (xs) => `${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}`;
console.log('| browser | landing story: release − due P50 / P99, median of loads (P99 range) | largest | late frames per load | paint lag P50 | early paints | workers sleep on | 5,000 tok/s × 10,000 tokens: P99, median (range) | largest | late frames |');
console.log('|---|---|---:|---|---:|---:|---|---|---:|---|');
for (const r of rows) {
  const lp = r.landing.map((x) => x.p99);
  const fp = r.fast.map((x) => x.p99);
  const land = r.landing;
  console.log(`| ${r.browser} (${r.version}) | ${median(land.map((x) => x.p50)).toFixed(2)} / ${median(lp).toFixed(2)} ms (${r2(lp)}, ${lp.length} loads) | ${Math.max(...land.map((x) => x.max)).toFixed(1)} ms | ${land.map((x) => `${x.late_frames[0]}/${x.frames}`).join(', ')} | ${median(land.map((x) => x.paint_p50)).toFixed(1)} ms | ${land.reduce((s, x) => s + x.early_paints, 0)} | ${land[0].clock_sleep ?? '—'} | ${median(fp).toFixed(2)} ms (${r2(fp)}, ${fp.length} runs) | ${Math.max(...r.fast.map((x) => x.max)).toFixed(1)} ms | ${r.fast.map((x) => x.late_frames.join('+')).join(', ')} |`);
}
