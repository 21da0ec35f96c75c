// The precision gate of `./lab test`: runs the quick form of the precision
// benchmarks (replay precise vs naive; Live against a plain fetch loop, in
// Chromium, Firefox and WebKit), computes each key ratio and compares it with the
// floor recorded in tests/bench/floors.json. Ratios, not milliseconds: both
// sides are measured in one run on the same machine. Fails with the figures
// when a ratio falls under its floor.
// Run: node tests/bench/gate.mjs
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ARTIFACTS, ROOT } from '../e2e/lib/lab.mjs';

const floors = JSON.parse(readFileSync(path.join(ROOT, 'tests/bench/floors.json'), 'utf8'));
const TTFT_MS = 300; // profile:ttft300-itl20

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  const h = (s.length - 1) * p;
  const lo = Math.floor(h);
  return s[lo] + (s[Math.min(lo + 1, s.length - 1)] - s[lo]) * (h - lo);
};

function bench(file) {
  execFileSync(process.execPath, [path.join(ROOT, 'tests/bench', file)], {
    env: { ...process.env, QUICK: '1', ROUNDS: '1' }, stdio: ['ignore', 'ignore', 'inherit'],
  });
}

/** The key ratios from the benchmarks' raw results. */
export function ratios(replay, live) {
  const precise = replay.find((r) => r.scheduler === 'precise' && r.tokens_per_s === 50);
  const naive = replay.find((r) => r.scheduler === 'naive' && r.tokens_per_s === 50);
  const out = [{
    key: 'replay_naive_over_precise_p99', where: 'replay, 50 tok/s',
    value: naive.emit_p99 / precise.emit_p99,
    figures: `naive P99 ${naive.emit_p99.toFixed(3)} ms, precise P99 ${precise.emit_p99.toFixed(3)} ms`,
  }];
  for (const row of live) {
    const lab = TTFT_MS + pct(row.lab, 0.5);
    const plain = TTFT_MS + pct(row.plain, 0.5);
    out.push({
      key: 'live_plain_over_lab_ttft', where: `Live, ${row.browser}`, value: plain / lab,
      figures: `TTFT lab ${lab.toFixed(2)} ms, plain loop ${plain.toFixed(2)} ms (medians)`,
    });
  }
  return out;
}

/** Rows under their floor. */
export function below(rows) {
  return rows.filter((r) => !(r.value >= floors[r.key].floor));
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  bench('replay.bench.mjs');
  bench('live_browsers.bench.mjs');
  const replay = JSON.parse(readFileSync(path.join(ARTIFACTS, 'replay-bench.json'), 'utf8'));
  const live = JSON.parse(readFileSync(path.join(ARTIFACTS, 'live-browsers.json'), 'utf8'));
  const rows = ratios(replay, live);
  console.log('| ratio | where | measured | floor | figures |\n|---|---|---:|---:|---|');
  for (const r of rows) console.log(`| ${r.key} | ${r.where} | ${r.value.toFixed(3)} | ${floors[r.key].floor} | ${r.figures} |`);
  const bad = below(rows);
  // The gate itself must be able to fail: a precise scheduler one frame late
  // (+16.7 ms) and a lab one frame slower than the plain loop (in every
  // browser) fall under the floors.
  const frame = 1000 / 60;
  const late = replay.map((r) => (r.scheduler === 'precise' ? { ...r, emit_p99: r.emit_p99 + frame } : r));
  const slow = live.map((r) => ({ ...r, lab: r.lab.map((d) => d + frame) }));
  const slowRows = ratios(replay, slow).filter((r) => r.key === 'live_plain_over_lab_ttft');
  if (below(ratios(late, live)).length === 0 || below(slowRows).length !== slowRows.length) {
    console.error('the gate passed a broken variant (a scheduler one frame late, or a client one frame slower)');
    process.exit(1);
  }
  if (bad.length) {
    for (const r of bad) console.error(`below the floor: ${r.key} (${r.where}) = ${r.value.toFixed(3)} < ${floors[r.key].floor}: ${r.figures}`);
    process.exit(1);
  }
  console.log(`ℹ pass ${rows.length}`);
}
