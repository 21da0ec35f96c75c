// Replay scheduler benchmark: release fidelity, paint lag, late frames and
// render cost per token, for the precise scheduler and a naive chained
// setTimeout scheduler measured in the same run, at 5,000 tokens/s, for a
// 100,000-token output, and at a conversational 50 tokens/s.
// Run: ./lab bench   (prints a Markdown table; raw numbers in tests/e2e/artifacts)
// QUICK=1 plays only the first two rows (precise and naive at 50 tok/s):
// what the precision gate of `./lab test` compares (tests/bench/gate.mjs).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ARTIFACTS, launchBrowser, openPage, setField, startServer, waitForText } from '../e2e/lib/lab.mjs';

const pct = (xs, p) => {
  if (!xs.length) return NaN;
  const s = Float64Array.from(xs).sort();
  const h = (s.length - 1) * p;
  const lo = Math.floor(h);
  return s[lo] + (s[Math.min(lo + 1, s.length - 1)] - s[lo]) * (h - lo);
};

async function setPane(page, i, { ttft, tpot, tokens }) {
  const details = page.locator(`[data-testid=pane-${i}] details.edit`);
  if (!(await details.evaluate((d) => d.open))) await details.locator('summary').click();
  await page.getByTestId(`pane-${i}-edit-jitter`).selectOption('constant');
  await setField(page, `pane-${i}-edit-ttft`, ttft);
  await setField(page, `pane-${i}-edit-tpot`, tpot);
  await setField(page, `pane-${i}-edit-tokens`, tokens);
  await setField(page, `pane-${i}-edit-stall-p`, 0);
  await page.getByTestId(`pane-${i}-edit-text`).selectOption('article');
  await page.getByTestId(`pane-${i}-apply`).click();
}

async function paneTrace(page, i) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId(`pane-${i}-download`).click()]);
  return JSON.parse(readFileSync(await download.path(), 'utf8'));
}

async function run(page, { scheduler, render, ttft = 100, tpot, tokens, timeout }) {
  await page.getByTestId('scheduler').selectOption(scheduler);
  await page.getByTestId('render-mode').selectOption(render);
  for (const i of [0, 1]) await setPane(page, i, { ttft, tpot, tokens });
  const t0 = Date.now();
  await page.getByTestId('play').click();
  await page.getByTestId('pane-1-result').waitFor({ timeout });
  await page.getByTestId('pane-0-result').waitFor({ timeout });
  await waitForText(page.getByTestId('play'), /^Play$/, timeout);
  const wall = Date.now() - t0;
  const traces = [await paneTrace(page, 0), await paneTrace(page, 1)];
  const chunks = traces.flatMap((t) => t.requests[0].chunks);
  const emit = chunks.map((c) => c.arrived_ms - c.due_ms);
  const paint = chunks.map((c) => c.painted_ms - c.arrived_ms);
  const info = traces[0].meta.replay;
  const ideal = ttft + tpot * (tokens - 1);
  const played = traces.map((t) => t.requests[0].chunks.at(-1).arrived_ms - t.requests[0].sent_ms);
  return {
    scheduler, render, tokens_per_s: 1000 / tpot, tokens,
    emit_p50: pct(emit, 0.5), emit_p99: pct(emit, 0.99), emit_max: emit.reduce((a, b) => Math.max(a, b), -Infinity),
    end_drift_ms: played.reduce((a, b) => Math.max(a, b)) - ideal,
    paint_p50: pct(paint, 0.5), paint_p99: pct(paint, 0.99),
    late_frames: info.late_frames, frames: info.frames,
    render_us_per_token: traces.map((t) => t.meta.replay.render_us_per_token).reduce((a, b) => a + b) / 2,
    wall_ms: wall,
  };
}

const server = await startServer();
const browser = await launchBrowser();
const { page, context } = await openPage(browser, `${server.url}#replay`);
await page.waitForTimeout(1500); // clocks calibrated, refresh measured
const ALL = [
  { scheduler: 'precise', render: 'text', tpot: 20, tokens: 200, timeout: 60_000 },
  { scheduler: 'naive', render: 'text', tpot: 20, tokens: 200, timeout: 60_000 },
  { scheduler: 'precise', render: 'text', tpot: 0.2, tokens: 10_000, timeout: 60_000 },
  { scheduler: 'precise', render: 'markdown', tpot: 0.2, tokens: 10_000, timeout: 60_000 },
  { scheduler: 'naive', render: 'text', tpot: 0.2, tokens: 2_000, timeout: 120_000 },
  { scheduler: 'precise', render: 'text', tpot: 0.2, tokens: 100_000, timeout: 180_000 },
  { scheduler: 'precise', render: 'markdown', tpot: 0.2, tokens: 100_000, timeout: 180_000 },
];
const runs = process.env.QUICK ? ALL.slice(0, 2) : ALL;
const results = [];
for (const r of runs) {
  const res = await run(page, r);
  results.push(res);
  console.error(`${r.scheduler} ${r.render} ${r.tokens} tokens at ${1000 / r.tpot} tok/s: done in ${res.wall_ms} ms`);
}
await context.close();
await browser.close();
server.stop();
mkdirSync(ARTIFACTS, { recursive: true });
writeFileSync(path.join(ARTIFACTS, 'replay-bench.json'), JSON.stringify(results, null, 2));
const f = (v, d = 2) => (Number.isFinite(v) ? v.toFixed(d) : '—');
console.log('| scheduler | render | rate (tok/s) | tokens | release − due P50 / P99 / max (ms) | end drift (ms) | paint − release P50 / P99 (ms) | late frames | render (µs/token) |');
console.log('|---|---|---:|---:|---|---:|---|---:|---:|');
for (const r of results) {
  console.log(`| ${r.scheduler} | ${r.render} | ${f(r.tokens_per_s, 0)} | ${r.tokens} | ${f(r.emit_p50, 3)} / ${f(r.emit_p99, 3)} / ${f(r.emit_max, 1)} | ${f(r.end_drift_ms, 1)} | ${f(r.paint_p50, 1)} / ${f(r.paint_p99, 1)} | ${r.late_frames} of ${r.frames} | ${f(r.render_us_per_token, 2)} |`);
}
