// Firefox: live mode against `latency-lab serve`'s replay endpoint, checked
// against the server's own send times; the trace names the browser.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ARTIFACTS, LATE_MS, MEDIAN_LATE_MS } from '../e2e/lib/lab.mjs';
import { firefoxSuite, openFirefoxPage } from '../e2e/lib/firefox.mjs';
import { downloadTrace, runLive, text } from '../e2e/lib/dom.mjs';
import { CAPTURE_FRAMES, assertFails, checkItl, checkPaints, median } from '../e2e/lib/precision.mjs';

describe('live mode (Firefox)', () => {
  const lab = firefoxSuite();

  test('TTFT and ITL against the server\'s clock; every paint stamp is the first frame after its chunk', async () => {
    const { page, context, problems } =
      await openFirefoxPage(lab.browser, `${lab.server.url}#live`, undefined, { initScript: CAPTURE_FRAMES });
    assert.equal(await page.evaluate(() => document.querySelector('[data-testid=base-url]').value), `${lab.server.url}v1`);
    assert.match(await runLive(page, { model: 'profile:ttft300-itl20', mode: 'repeat', n: 5 }), /^Finished/);
    assert.match(await text(page, 'output'), /^Good question! Time to first token/);
    assert.equal(await text(page, 'live-tokens'), '100');
    const trace = await downloadTrace(page);
    const client = trace.meta.client;
    assert.equal(client.browser, 'Firefox');
    assert.equal(client.engine, 'Gecko');
    assert.match(client.browser_version, /^\d+\.\d/);
    assert.equal(client.cross_origin_isolated, true);
    assert.ok(client.timer_resolution_ms > 0 && client.timer_resolution_ms <= 0.1, `clock step ${client.timer_resolution_ms} ms`);
    const frame = 1000 / (client.display_refresh_hz ?? 60);
    assert.equal(trace.requests.length, 5);
    const frames = await page.evaluate(() => window.__labFrames);
    const precision = trace.requests.map((r) => {
      const arrived = r.chunks.map((c) => c.arrived_ms);
      const s = r.server.chunks_sent_ms;
      const checked = { ...checkItl(arrived, s), ...checkPaints(r.chunks, frames, frame) };
      assertFails('with every gap recorded as 0', () => checkItl(arrived.map(() => arrived[0]), s));
      assertFails('with paints stamped at arrival', () =>
        checkPaints(r.chunks.map((c) => ({ ...c, painted_ms: c.arrived_ms })), frames, frame));
      assertFails('with paints one frame late', () =>
        checkPaints(r.chunks.map((c) => ({ ...c, painted_ms: c.painted_ms + frame })), frames, frame));
      return checked;
    });
    const rows = trace.requests.map((r) => {
      assert.equal(r.failure, undefined, JSON.stringify(r.failure));
      assert.equal(r.chunks.length, 100);
      const s = r.server;
      const gaps = (ts) => ts.slice(1).map((t, i) => t - ts[i]);
      return {
        ttft_server: s.chunks_sent_ms[0],
        ttft_delta: r.chunks[0].arrived_ms - r.sent_ms - s.chunks_sent_ms[0],
        itl_median_delta: median(gaps(r.chunks.map((c) => c.arrived_ms))) - median(gaps(s.chunks_sent_ms)),
        first_paint_lag: r.chunks[0].painted_ms - r.chunks[0].arrived_ms,
      };
    });
    mkdirSync(ARTIFACTS, { recursive: true });
    writeFileSync(path.join(ARTIFACTS, 'live-accuracy-firefox.json'), JSON.stringify({ frame_ms: frame, rows, precision }, null, 2));
    // How close the lab comes is measured by tests/bench/live_browsers.bench.mjs.
    const ttftDelta = median(rows.map((r) => r.ttft_delta));
    assert.ok(ttftDelta >= 0 && ttftDelta <= MEDIAN_LATE_MS, `median TTFT delta ${ttftDelta} ms`);
    for (const r of rows) {
      assert.ok(r.ttft_server >= 300 && r.ttft_server < 300 + LATE_MS, `server TTFT ${r.ttft_server}`);
      assert.ok(r.ttft_delta >= 0, `TTFT before the server sent it: ${JSON.stringify(r)}`);
    }
    const shown = Number(await text(page, 'ttft-delta'));
    assert.ok(Math.abs(shown - ttftDelta) < 0.01, `${shown} vs ${ttftDelta}`);
    assert.deepEqual(problems, []);
    await context.close();
  });
});
