// Probe while loaded (issue: real workloads under real load), written once
// for every browser's adapter (`open(browser, url)` → `{ page, close,
// problems }`): the Live view sends probes while latency-lab serve's
// built-in load replays its sample workload at 1×, 1.5×, 2×, 3×, 4× against
// a profile with `slots`, and shows per window the load offered, the
// server's queueing and what the probes felt, and the speed at which the
// chat score falls below its pass line.
//
// Checked: one table row per speed, the windows' load and queueing in the
// downloaded trace; every answered probe painted (the overlapping ones in
// panes of their own, taken away when they end); with few slots the queue forms and the sweep breaks at
// a lower speed than with many (`sweep: true`, each run twice as long, in
// Chromium); two windows' typical probes play side by side in the Replay lab.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { labSuite } from './lab.mjs';
import { click, downloadTrace, setValue, text, waitFor, waitForCss, waitText } from './dom.mjs';

/** The server model the load and the probes share: `slots` decode at once. */
export const model = (slots) => `profile:ttft=20,tpot=1,prefill=0.01,tokens=30,slots=${slots},cache=on`;

/** Runs a probe sweep up to `maxSpeed` and waits for its results. */
export async function runProbe(page, { slots, maxSpeed, windowS = 4, every = 0.5 }) {
  await setValue(page, 'model', model(slots));
  await setValue(page, 'run-mode', 'probe');
  await setValue(page, 'probe-window', windowS);
  await setValue(page, 'probe-every', every);
  await setValue(page, 'probe-max-speed', maxSpeed);
  // The last run's results stay until this one's are drawn: mark them.
  await page.evaluate(() => document.querySelector('[data-testid="probe"]')?.setAttribute('data-old', ''));
  // The most probe panes seen at once beside the answer pane.
  await page.evaluate(() => {
    const lanes = document.querySelector('[data-testid="probe-lanes"]');
    window.mostLanes = 0;
    new MutationObserver(() => (window.mostLanes = Math.max(window.mostLanes, lanes.childElementCount)))
      .observe(lanes, { childList: true });
  });
  await click(page, 'start');
  await waitText(page, 'run-status', /^Streaming/, 10_000);
  await waitText(page, 'run-status', /^(Finished|Stopped)/, 120_000);
  await waitForCss(page, '[data-testid="probe"]:not([data-old])', 20_000);
  return text(page, 'probe-breaking');
}

/** The speed the words name as the breaking point (Infinity: none in the sweep). */
export function breakingSpeed(words) {
  const m = words.match(/at ([\d.]+)× the trace \((\d+)\)/);
  if (/no breaking point/.test(words)) return Infinity;
  assert.ok(m, `no breaking point in ${JSON.stringify(words)}`);
  return Number(m[1]);
}

export function probeSuite({ name, launch, open, sweep }) {
  describe(`probe while loaded (${name})`, () => {
    const lab = labSuite([], launch);

    test('per-window table, the load in the trace, and two windows felt side by side', async () => {
      const { page, close, problems } = await open(lab.browser, `${lab.server.url}#live`);
      try {
        const words = await runProbe(page, { slots: 2, maxSpeed: 2 });
        assert.match(words, /pass line/);
        const rows = await page.evaluate(() =>
          [...document.querySelectorAll('[data-testid="probe-row"]')].map((r) => r.querySelector('th').innerText),
        );
        assert.deepEqual(rows, ['1×', '1.5×', '2×']);
        const trace = await downloadTrace(page);
        assert.equal(trace.meta.load.length, 3);
        for (const [i, w] of trace.meta.load.entries()) {
          assert.equal(w.speed, [1, 1.5, 2][i]);
          assert.ok(w.offered_per_s > 1, `offered ${w.offered_per_s}`);
          assert.ok(w.admitted >= 10, `window ${w.label}: the server admitted ${w.admitted}`);
          assert.equal(w.queued_ms.length, w.admitted);
          const probes = trace.requests.filter((r) => r.sent_ms >= w.from_ms && r.sent_ms < w.to_ms);
          assert.ok(probes.length >= 7 && probes.length <= 8, `${probes.length} probes in ${w.label}`);
          // The load's own requests, read back from serve when the sweep
          // ended: each window has their TTFT, and none failed.
          assert.ok(w.load_ttft_ms?.length >= 5, `window ${w.label}: the load's TTFT ${JSON.stringify(w.load_ttft_ms)}`);
          assert.ok(w.load_ttft_ms.every((t) => t >= 20), `TTFT at least the model's 20 ms: ${w.load_ttft_ms}`);
          assert.equal(w.failed, 0, JSON.stringify(w.load_failures));
        }
        assert.ok(!(trace.meta.notes ?? []).some((n) => /could not be read/.test(n)), JSON.stringify(trace.meta.notes));
        const loadCells = await page.evaluate(() =>
          [...document.querySelectorAll('[data-testid="probe-row"]')].map((r) => r.children[5]?.innerText ?? ''),
        );
        assert.ok(loadCells.every((c) => /^\d/.test(c)), `the load's TTFT P90 cells: ${JSON.stringify(loadCells)}`);
        // Two decode slots against ~4 requests at once: the queue forms.
        const waited = trace.meta.load.flatMap((w) => w.queued_ms).filter((q) => q > 0);
        assert.ok(waited.length > 5, `${waited.length} requests queued`);
        // Every probe is drawn: those that overlap the one in the answer
        // pane stream into panes of their own, gone once they end.
        const answered = trace.requests.filter((r) => !r.failure && r.chunks.length);
        assert.ok(answered.length >= 20, `${answered.length} probes answered`);
        const unpainted = answered.filter((r) => !(r.chunks[0].painted_ms >= r.chunks[0].arrived_ms));
        assert.equal(unpainted.length, 0, `probes without a first paint: ${JSON.stringify(unpainted.map((r) => r.sent_ms))}`);
        const overlapped = answered.filter((r) => answered.some((q) => q !== r && q.sent_ms < r.sent_ms && q.end_ms > r.sent_ms));
        const most = await page.evaluate(() => window.mostLanes);
        // Two slots under 2× load keep probes waiting past the next one.
        assert.ok(overlapped.length >= 1 && most >= 1, `${overlapped.length} probes overlapped another, lanes seen ${most}`);
        assert.equal(await page.evaluate(() => document.querySelector('[data-testid="probe-lanes"]').childElementCount), 0);
        const paintCells = await page.evaluate(() =>
          [...document.querySelectorAll('[data-testid="probe-row"]')].map((r) => r.children[9]?.innerText ?? ''),
        );
        assert.ok(paintCells.every((c) => /^\d/.test(c) && !/drawn/.test(c)), `first paint cells: ${JSON.stringify(paintCells)}`);
        console.log(`probes: ${answered.length} answered, ${overlapped.length} overlapped another, at most ${most} lanes at once`);
        await setValue(page, 'probe-feel-a', 0);
        await setValue(page, 'probe-feel-b', 2);
        await click(page, 'probe-feel');
        await waitFor(page, 'pane-1-title', 20_000);
        assert.match(await text(page, 'pane-0-title'), /1× · typical probe/);
        assert.match(await text(page, 'pane-1-title'), /2× · typical probe/);
        assert.deepEqual(await problems(), []);
      } finally {
        await close();
      }
    });

    test('Stop ends the probes and the built-in load at once', async () => {
      const { page, close, problems } = await open(lab.browser, `${lab.server.url}#live`);
      try {
        await setValue(page, 'model', model(2));
        await setValue(page, 'run-mode', 'probe');
        await setValue(page, 'probe-window', 30);
        await setValue(page, 'probe-every', 1);
        await setValue(page, 'probe-max-speed', 1);
        await click(page, 'start');
        await waitText(page, 'run-status', /^Streaming/, 10_000);
        await new Promise((r) => setTimeout(r, 2500));
        const stopped = Date.now();
        await click(page, 'stop');
        await waitText(page, 'run-status', /^Stopped/, 5_000);
        assert.ok(Date.now() - stopped < 4_000, `stopped after ${Date.now() - stopped} ms of a 30 s window`);
        const load = await page.evaluate(async () => (await fetch('/v1/lab/load')).json());
        assert.equal(load.running ?? false, false, JSON.stringify(load));
        assert.deepEqual(await problems(), []);
      } finally {
        await close();
      }
    });

    if (sweep) {
      test('the breaking point moves the way slots say: more slots, higher speed', async () => {
        const { page, close, problems } = await open(lab.browser, `${lab.server.url}#live`);
        try {
          // Up to 2× (1, 1.5, 2): 2 slots break by 1.5×, 32 not in the sweep.
          const few = breakingSpeed(await runProbe(page, { slots: 2, maxSpeed: 2 }));
          const many = breakingSpeed(await runProbe(page, { slots: 32, maxSpeed: 2 }));
          assert.ok(few < many, `breaking at ${few}× with 2 slots, ${many}× with 32`);
          assert.ok(few <= 1.5, `2 slots against ~4 requests at once break early (${few}×)`);
          assert.deepEqual(await problems(), []);
        } finally {
          await close();
        }
      });
    }
  });
}
