// The lab's precision checks, written once for every browser's adapter.
//
// Each check compares figures measured in one run with each other — a
// ratio, a slope, the frame a stamp belongs to — never an absolute number
// of milliseconds, so it holds on a busy machine and still catches the
// regressions the README rules out: a scheduler one frame late, a naive
// `setTimeout` scheduler, a paint stamped at arrival, a pace 25% slow, a
// client that records every gap as 0. Each check throws an AssertionError
// naming the figures; `assertFails` runs a check on a deliberately broken
// variant of the same data and requires it to throw, so a check that cannot
// fail is caught too.
import assert from 'node:assert/strict';

/** Replay: the precise scheduler's release − due P99 is at least this many
 *  times smaller than the naive scheduler's on the same story in the same page. */
export const PRECISE_OVER_NAIVE = 10;
/** A pace (sent on due) is right when its slope is 1 within this share. */
export const PACE_SLOPE_TOLERANCE = 0.01;
/** A playback speed measured by slope is right within this share. */
export const SPEED_TOLERANCE = 0.02;
/** Live: the median gap between arrivals within this share of the server's. */
export const ITL_TOLERANCE = 0.1;
/** Live: paint lag at P50 within this many frame intervals. */
export const PAINT_LAG_FRAMES = 2;

export const median = (xs) => pct(xs, 0.5);

export function pct(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  const h = (s.length - 1) * p;
  const lo = Math.floor(h);
  return s[lo] + (s[Math.min(lo + 1, s.length - 1)] - s[lo]) * (h - lo);
}

/** The Theil–Sen line y = a + b·x over `[x, y]` pairs, as core's
 *  `measure::prefill::theil_sen`: b the median of the pairwise slopes, a
 *  the median of y − b·x; one point held up by a busy machine does not
 *  tilt it. */
export function theilSen(pts) {
  assert.ok(pts.length >= 3, `a line needs 3 points, got ${pts.length}`);
  const slopes = [];
  for (let i = 0; i < pts.length; i++) {
    for (let j = i + 1; j < pts.length; j++) {
      if (pts[j][0] !== pts[i][0]) slopes.push((pts[j][1] - pts[i][1]) / (pts[j][0] - pts[i][0]));
    }
  }
  const b = median(slopes);
  return { a: median(pts.map(([x, y]) => y - b * x)), b };
}

/** The precise scheduler beats the naive one by PRECISE_OVER_NAIVE at P99
 *  over one playback (`precise`, `naive`: release − due of every chunk of
 *  every pane, ms), and the workers released every chunk of every pane
 *  (`panes`: each pane's trace `released_by` and its number of chunks). */
export function checkScheduler({ precise, naive, panes }) {
  const p = pct(precise.map(Math.abs), 0.99);
  const q = pct(naive.map(Math.abs), 0.99);
  assert.ok(p * PRECISE_OVER_NAIVE <= q,
    `precise release − due P99 ${p.toFixed(3)} ms is not ${PRECISE_OVER_NAIVE}× below the naive scheduler's ${q.toFixed(3)} ms`);
  assert.ok(precise.every((e) => e >= 0), 'a precise release came before its due time');
  for (const [k, { releasedBy, chunks }] of (panes ?? []).entries()) {
    assert.deepEqual(releasedBy, { workers: chunks, main_thread: 0, naive: 0 },
      `pane ${k}: the release-clock workers did not release every chunk: ${JSON.stringify(releasedBy)}`);
  }
  return { precise_p99: p, naive_p99: q, ratio: q / p };
}

/** A pace: `[due, sent]` pairs in order. Sent times never go back, and
 *  the regression of sent on due has slope 1 ± PACE_SLOPE_TOLERANCE and
 *  runs, over the schedule, between 1 ms ahead and `lateMax` behind (its
 *  lateness a + (b − 1)·due at the first and last due time). */
export function checkPace(pairs, lateMax) {
  for (let k = 1; k < pairs.length; k++) {
    assert.ok(pairs[k][1] >= pairs[k - 1][1], `chunk ${k} sent at ${pairs[k][1]} before chunk ${k - 1} (${pairs[k - 1][1]})`);
  }
  const { a, b } = theilSen(pairs);
  assert.ok(Math.abs(b - 1) <= PACE_SLOPE_TOLERANCE, `pace slope ${b.toFixed(4)} (sent on due), not 1 ± ${PACE_SLOPE_TOLERANCE}`);
  for (const due of [pairs[0][0], pairs.at(-1)[0]]) {
    const late = a + (b - 1) * due;
    assert.ok(late >= -1 && late <= lateMax, `the fitted pace is ${late.toFixed(3)} ms late at due ${due} ms, outside [−1, ${lateMax}]`);
  }
  return { slope: b, intercept_ms: a };
}

/** Playback speed by slope: the due offsets of a ×1 playback against the
 *  release offsets of the same chunks at ×`speed`: 1 / slope = speed ± 2%. */
export function checkSpeed(dueAt1, releasedAtSpeed, speed) {
  assert.equal(dueAt1.length, releasedAtSpeed.length, 'the same chunks at both speeds');
  const { b } = theilSen(dueAt1.map((d, k) => [d, releasedAtSpeed[k]]));
  const got = 1 / b;
  assert.ok(Math.abs(got / speed - 1) <= SPEED_TOLERANCE, `played at ×${got.toFixed(3)} by slope, not ×${speed} ± ${SPEED_TOLERANCE * 100}%`);
  return { speed: got };
}

/** Live ITL: the median of the client's arrival gaps within ITL_TOLERANCE
 *  of the median of the server's own send gaps. */
export function checkItl(arrived, serverSent) {
  const gaps = (ts) => ts.slice(1).map((t, i) => t - ts[i]);
  const c = median(gaps(arrived));
  const s = median(gaps(serverSent));
  assert.ok(Math.abs(c - s) <= ITL_TOLERANCE * s, `median gap ${c.toFixed(3)} ms at the client, ${s.toFixed(3)} ms at the server`);
  return { client_ms: c, server_ms: s };
}

/** How far two readings of one clock value may differ after arithmetic (ms). */
const FLOAT_NOISE_MS = 1e-6;

/** Live paint stamps: every chunk's `painted_ms` was taken inside an
 *  animation-frame callback of the first frame that ran after the chunk
 *  arrived (`frames`: `{ ts, t0, t1 }` per rAF callback, captured in the
 *  page), and the paint lag is within PAINT_LAG_FRAMES frames at P50. */
export function checkPaints(chunks, frames, frameMs) {
  const byFrame = new Map();
  for (const f of frames) {
    const w = byFrame.get(f.ts) ?? { ts: f.ts, t0: Infinity, t1: -Infinity, calls: [] };
    w.t0 = Math.min(w.t0, f.t0);
    w.t1 = Math.max(w.t1, f.t1);
    w.calls.push(f);
    byFrame.set(f.ts, w);
  }
  const windows = [...byFrame.values()].sort((x, y) => x.t0 - y.t0);
  chunks.forEach((c, k) => {
    assert.ok(c.painted_ms != null, `chunk ${k} has no paint stamp`);
    const first = windows.find((w) => w.t0 >= c.arrived_ms);
    assert.ok(first, `no frame ran after chunk ${k} arrived at ${c.arrived_ms}`);
    // Within float noise (1 ns): a trace's stamp and the callback's own
    // reads of the clock are the same reading, but not always the same
    // double after the trace's arithmetic (9975.9 vs 9975.900000000001).
    const inside = first.calls.some((f) => c.painted_ms >= f.t0 - FLOAT_NOISE_MS && c.painted_ms <= f.t1 + FLOAT_NOISE_MS);
    assert.ok(inside,
      `chunk ${k}: painted_ms ${c.painted_ms} is not a stamp of the first frame after its arrival at ${c.arrived_ms} (callbacks ran ${first.t0}…${first.t1})`);
  });
  const lag = median(chunks.map((c) => c.painted_ms - c.arrived_ms));
  assert.ok(lag <= PAINT_LAG_FRAMES * frameMs, `paint lag P50 ${lag.toFixed(2)} ms over ${PAINT_LAG_FRAMES} frames of ${frameMs.toFixed(2)} ms`);
  return { paint_lag_p50: lag };
}

/** Runs `check` on a broken variant and requires it to fail. */
export function assertFails(what, check) {
  assert.throws(check, assert.AssertionError, `the check passed ${what}`);
}

/** In the page: records every requestAnimationFrame callback's frame
 *  timestamp and the page-clock interval it ran in, in `window.__labFrames`
 *  (once per page). */
export function recordFrames() {
  if (window.__labFrames) return;
  const raf = window.requestAnimationFrame.bind(window);
  const log = [];
  Object.defineProperty(window, '__labFrames', { value: log });
  window.requestAnimationFrame = (cb) => raf((ts) => {
    const t0 = performance.now();
    try { return cb(ts); } finally { if (log.length < 200000) log.push({ ts, t0, t1: performance.now() }); }
  });
}

/** `recordFrames` as a script run before the page's own (drivers with init scripts). */
export const CAPTURE_FRAMES = `(${recordFrames})();`;
