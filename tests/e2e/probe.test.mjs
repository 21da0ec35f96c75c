// Chromium: probe while loaded, with the speed sweep's breaking point
// against slots (tests/e2e/lib/probe_suite.mjs; Firefox runs the probe),
// and a probe run beside another tool's load, whose own trace is added.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LAB_BIN, ROOT, chromiumOpen, labSuite, launchBrowser, openPage } from './lib/lab.mjs';
import { click, setValue, text, waitForCss, waitText } from './lib/dom.mjs';
import { model, probeSuite } from './lib/probe_suite.mjs';

probeSuite({
  name: 'Chromium',
  launch: launchBrowser,
  sweep: true,
  open: chromiumOpen,
});

// Probe while another tool loads the server: `latency-lab run` sends a
// workload while the page probes; its trace, added afterwards, lines up by
// the two clocks and fills each window with the load's offered rate and
// its own TTFT.

// Probes of 30 tokens at 20 ms each, on slots of their own.
const SLOW_PROBE = 'profile:ttft=20,tpot=20,tokens=30,slots=4';

describe('probe while loaded by another tool (Chromium)', () => {
  const lab = labSuite();
  test("the load's own trace fills the windows: offered rate and its TTFT", async () => {
    const { page, context, problems } = await openPage(lab.browser, `${lab.server.url}#live`);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'lab-probe-external-'));
    // 60 rows, 75 ms apart, 20 tokens each: 4.5 s of load.
    const rows = Array.from({ length: 60 }, (_, i) => JSON.stringify({ timestamp: i * 75, input_length: 200, output_length: 20 }));
    writeFileSync(path.join(dir, 'load.jsonl'), rows.join('\n') + '\n');
    const out = path.join(dir, 'run.trace.json');
    try {
      // Each probe takes about 0.65 s, so a window's last (sent at 2.5 s)
      // ends some 150 ms after the window: two load requests are sent in
      // that time. The windows must touch (ProbePlan::window_start), or
      // those requests fall in none.
      await setValue(page, 'model', SLOW_PROBE);
      await setValue(page, 'run-mode', 'probe_external');
      await setValue(page, 'probe-window', 3);
      await setValue(page, 'probe-windows', 3);
      await setValue(page, 'probe-every', 0.5);
      await click(page, 'start');
      await waitText(page, 'run-status', /^Streaming/, 10_000);
      const runner = spawn(LAB_BIN, ['run', path.join(dir, 'load.jsonl'), '--target', lab.server.url, '--model', model(2),
        '--exact-output', '--quiet', '-o', out], { stdio: 'ignore' });
      const ran = new Promise((resolve) => runner.on('exit', resolve));
      await waitText(page, 'run-status', /^Finished/, 60_000);
      assert.equal(await ran, 0, 'latency-lab run succeeded');
      await waitForCss(page, '[data-testid="probe-load-file"]', 10_000);
      const column = (k) => page.evaluate((k) =>
        [...document.querySelectorAll('[data-testid="probe-row"]')].map((r) => r.querySelectorAll('td')[k].innerText), k);
      assert.deepEqual(await column(0), ['—', '—', '—'], 'no offered rate before the load is added');
      // A trace that does not say when its clock started is refused, changing nothing.
      await page.getByTestId('probe-load-file').setInputFiles(path.join(ROOT, 'tests/fixtures/hand.trace.json'));
      await waitText(page, 'probe-load-said', /does not say when its clock started/, 10_000);
      assert.deepEqual(await column(0), ['—', '—', '—']);
      await page.getByTestId('probe-load-file').setInputFiles(out);
      const said = await waitText(page, 'probe-load-said', /fell in these windows/, 10_000);
      assert.match(said, /^run\.trace\.json: 60 of its requests fell in these windows\.$/, said);
      // The runner sent from about 0.3 s to 5 s into the probe run: the
      // first window has load, the last (6–9 s) none. A clock off by more
      // than a second would move requests across that line.
      const perWindow = (await column(0)).map(Number);
      assert.ok(perWindow[0] > 0 && perWindow[2] === 0, `offered req/s per window: ${perWindow}`);
      const offered = perWindow.filter((v) => v > 0);
      assert.ok(offered.length >= 2, `offered req/s: ${await column(0)}`);
      // Each rate is the window's requests over its own span: 3 s as
      // planned and the last probe's overrun (the next window starts where
      // it ends), about 3.15 s, a little more on a busy machine; each shown
      // to 0.1. So the rates hold the 60 requests over spans of 3 to 3.4 s;
      // a rate per window instead of per second reads 180.
      const held = offered.reduce((a, b) => a + b, 0) * 3;
      assert.ok(held >= (60 * 3) / 3.4 - 0.3 && held <= 60 + 0.3, `the windows hold the 60 requests: ${offered}`);
      const ttft = (await column(4)).filter((c) => c !== '—');
      assert.ok(ttft.length >= 2, `the load's TTFT P90: ${await column(4)}`);
      assert.match(await text(page, 'probe-words'), /the load's own requests began within \d+ ms at P50/);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});
