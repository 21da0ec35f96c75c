// Static hosting: `dist/` served by a plain file server with no special
// headers (no COOP/COEP, no CSP header: the page's own meta tag only), as
// any static host does. The same checks run in Chromium and Firefox
// (tests/e2e/static.test.mjs, tests/e2e-firefox/static.test.mjs) through
// the driver-neutral helpers of dom.mjs.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { DIST, LATE_MS, labSuite } from './lab.mjs';
import { click, downloadTrace, runLive, setValue, text, waitFor, waitText } from './dom.mjs';

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css', '.svg': 'image/svg+xml', '.json': 'application/json', '.png': 'image/png', '.ico': 'image/x-icon' };

/** Serves `dist/` with a content type and nothing else; resolves with its URL and a stop(). */
export function startStaticServer(dir = DIST) {
  const srv = http.createServer((req, res) => {
    let file = path.join(dir, decodeURIComponent(new URL(req.url, 'http://x').pathname));
    if (!file.startsWith(dir) || !existsSync(file) || statSync(file).isDirectory()) file = path.join(dir, 'index.html');
    res.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
    res.end(readFileSync(file));
  });
  return new Promise((resolve) => srv.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${srv.address().port}/`, stop: () => srv.close() })));
}

/** The page is not isolated; the badge says what that costs and how to get it back. */
export async function checkBadge(page) {
  assert.equal(await page.evaluate(() => self.crossOriginIsolated), false);
  const note = await text(page, 'clock-note');
  assert.match(note, /^Clock step (\d+(\.\d+)? ms|\d+ µs) · not isolated$/);
  await click(page, 'clock-note'); // opens the details
  assert.match(await waitText(page, 'clock-lost', /./), /^This page is not cross-origin isolated, so .* rounds its clock to /);
  const lost = await text(page, 'clock-help');
  assert.match(lost, /latency-lab serve/);
  assert.match(lost, /Cross-Origin-Opener-Policy: same-origin/);
  assert.match(lost, /Cross-Origin-Embedder-Policy: require-corp/);
  assert.match(await text(page, 'clock-nginx'), /^add_header Cross-Origin-Opener-Policy same-origin always; add_header Cross-Origin-Embedder-Policy require-corp always;$/);
  return note;
}

/** The landing replay plays to the end with the best clock the page has. */
export async function checkReplay(page) {
  await waitText(page, 'play', /^Pause$/);
  await waitFor(page, 'pane-1-result', 30_000);
  const [a, b] = await Promise.all([0, 1].map(async (i) => Number((await text(page, `pane-${i}-result-ttft`)).replace(' ms', ''))));
  // A 1 ms clock may stamp a release up to one step early.
  assert.ok(a >= 149 && a < 150 + LATE_MS && b >= 2519 && b < 2520 + LATE_MS, `TTFT ${a}, ${b}`);
  const trace = await downloadTrace(page, 'pane-1-download');
  assert.equal(trace.meta.client.cross_origin_isolated, false);
  assert.ok(trace.meta.client.timer_resolution_ms >= 0.005, `clock step ${trace.meta.client.timer_resolution_ms}`);
  const chunks = trace.requests[0].chunks;
  assert.equal(chunks.length, 80);
  const step = trace.meta.client.timer_resolution_ms;
  for (const c of chunks) assert.ok(c.arrived_ms >= c.due_ms - step && c.arrived_ms < c.due_ms + LATE_MS, `released ${c.arrived_ms - c.due_ms} ms after due`);
  return trace;
}

/** Live mode streams from a CORS-enabled endpoint on another origin. */
export async function checkLive(page, baseUrl) {
  await click(page, 'tab-live');
  await setValue(page, 'base-url', baseUrl);
  assert.match(await runLive(page, { model: 'profile:ttft=50,tpot=5,tokens=20,jitter=constant' }), /^Finished/);
  assert.equal(await text(page, 'live-tokens'), '20');
  const trace = await downloadTrace(page);
  const r = trace.requests[0];
  assert.equal(r.failure, undefined, JSON.stringify(r.failure));
  assert.equal(r.chunks.length, 20);
  assert.ok(r.server, 'the endpoint\'s ground truth is attached across origins');
  const ttftDelta = r.chunks[0].arrived_ms - r.sent_ms - r.server.chunks_sent_ms[0];
  assert.ok(ttftDelta >= -trace.meta.client.timer_resolution_ms && ttftDelta < LATE_MS, `TTFT delta ${ttftDelta}`);
  assert.equal(trace.meta.client.cross_origin_isolated, false);
  return trace;
}

/**
 * The static-hosting suite for one browser: `launch()` starts it,
 * `open(browser, url)` opens a page ({ page, context, problems }: the
 * problems seen so far, or a function that reads them); `note`
 * is the clock note expected in the header, `name` the browser the trace
 * should name.
 */
export function staticHostingSuite({ title, launch, open, note, name }) {
  describe(title, () => {
    const lab = labSuite([], launch); // the CORS-enabled endpoint and the browser
    let host;
    before(async () => {
      host = await startStaticServer();
    });
    after(() => host?.stop());

    test('loads, says what precision was lost, replays, streams live across origins', async () => {
      const { page, context, problems } = await open(lab.browser, host.url);
      assert.match(await checkBadge(page), note);
      const replay = await checkReplay(page);
      assert.equal(replay.meta.client.browser, name);
      await checkLive(page, `${lab.server.url}v1`);
      assert.deepEqual(typeof problems === 'function' ? await problems() : problems, []);
      await context.close();
    });
  });
}
