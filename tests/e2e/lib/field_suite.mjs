// Field data from a real page, written once for every browser's adapter
// (`openPlain(browser, url)` → `{ page, close }`, a page with `evaluate`):
// the demo chat page (examples/chat: the official openai SDK, the field
// snippet) is served by one latency-lab serve, the collector is another
// (so the page sends from another origin, registered with add-site), and
// 20 answers from built-in profiles are asked for: one smoothed, one with a
// stall, one calling a tool, one stopped by the user.
//
// Checked against the page's own performance.now() measures: the collector
// holds 20 requests; their TTFT is the page's own, both clocks starting at
// the user's send (within 1 ms at the median, 15 ms each); its
// first paint is at or after its first chunk and within one frame of the
// page's own rAF stamp; the stall, the tool call and the stop are recorded;
// no prompt text is in the trace or the collector's files. Then the Field
// part of the Import view summarises them by browser, reads them from the
// collector (this browser's only) as a run and plays its P90 request in the
// Replay lab.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { LAB_BIN, startServer } from './lab.mjs';
import { click, content, setValue, text, waitFor, waitForCss, waitText } from './dom.mjs';

const PROMPT = 'field e2e secret prompt 7c1f';
/** |page − collector| TTFT (ms). The acceptance's bound, WITHIN_MS, is
 * judged at the median of the 20 answers, and all but one answer must be
 * within PAUSED_MS. A busy 2-core machine pauses the page now and then
 * between a read and one of the two stamps (either side first). Measured
 * beside `yes` (BENCHMARKS, "Field demo: page against collector"): of 200
 * answers per browser, over 1 ms in 2 (Chromium) and 10 (Firefox, up to
 * 13.6 ms); medians 0.05–0.09 and 0.13–0.19 ms. So the median fails only
 * when 10 of 20 answers pause (Firefox's 5% a pause: below 1e-7 a run),
 * and two answers over 15 ms, about 0.5% a run if one in 200 goes that
 * far. A snippet 5 ms or a frame off fails the median; a frame off on two
 * answers fails PAUSED_MS; one answer's first paint is held to a frame on
 * its own below. */
const WITHIN_MS = 1;
const PAUSED_MS = 15;
/** |page − collector| first paint at the median (ms): the same frame's
 *  stamp read twice; a frame late (16.7 ms) fails it. */
const SAME_FRAME_MS = 2;
/** The plain answers: TTFTs 80…500 ms apart, so percentiles differ. */
const plain = (i) => `profile:ttft=${80 + 25 * i},tpot=6,tokens=24,text=chat,seed=${i}`;
const PLAN = [
  ...Array.from({ length: 16 }, (_, i) => ({ model: plain(i) })),
  { model: plain(16), smooth: true, what: 'smoothed' },
  { model: 'profile:ttft=150,tpot=10,tokens=30,text=chat,stall=once:700@10', what: 'stall' },
  { model: 'profile:ttft=150,tpot=10,tokens=12,text=chat,tool_call=get_weather:16', what: 'tool' },
  { model: 'profile:ttft=100,tpot=40,tokens=400,text=chat', stop: true, what: 'stopped' },
];

/** Polls `f` every 25 ms until it gives something, at most `timeout` ms. */
export async function until(what, f, timeout = 30_000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

/** Asks one question the way a person does; resolves when the answer is done. */
async function ask(page, { model, smooth = false, stop = false }) {
  const n = await page.evaluate(() => window.demo.answers.length);
  await page.evaluate(
    ([m, s, p]) => {
      document.getElementById('model').value = m;
      document.getElementById('smooth').checked = s;
      document.getElementById('prompt').value = p;
      document.getElementById('send').click();
    },
    [model, smooth, PROMPT],
  );
  if (stop) {
    await until('a first chunk to stop after', () => page.evaluate((k) => window.demo.answers[k]?.firstChunk != null, n));
    await page.evaluate(() => document.getElementById('stop').click());
  }
  await until(`answer ${n + 1}`, () => page.evaluate((k) => window.demo.answers.length > k && !window.demo.busy, n));
}

const first = (q) => q.chunks[0].arrived_ms - q.sent_ms;
const firstPaint = (q) => Math.min(...q.chunks.map((c) => c.painted_ms ?? Infinity)) - q.sent_ms;

export function fieldSuite({ name, launch, openPlain }) {
  describe(`field data from the demo chat page (${name})`, () => {
    let collector, site, browser, data, key;
    let seenBrowser = '';
    before(async () => {
      data = mkdtempSync(path.join(os.tmpdir(), 'lab-field-demo-'));
      collector = await startServer(['--data', data]);
      site = await startServer([]);
      const origin = new URL(site.url).origin;
      key = execFileSync(LAB_BIN, ['field', 'add-site', 'chat', '--origin', origin, '--data', data], { encoding: 'utf8' }).trim().split('\n').at(-1);
      browser = await launch();
    });
    after(async () => {
      await browser?.close();
      site?.stop();
      collector?.stop();
    });

    test('20 answers reach the collector as the page itself measured them', async () => {
      const hash = new URLSearchParams({ key, collector: new URL('/v1/traces', collector.url).href, settle: '400' });
      const { page, close } = await openPlain(browser, `${new URL('/examples/chat/', site.url).href}#${hash}`);
      try {
        await until('the demo page', () => page.evaluate(() => document.getElementById('status')?.textContent === 'ready'));
        // Its icon is served (issue 44: a 404 in the console of every visit).
        const icon = await page.evaluate(async () => {
          const href = document.querySelector('link[rel=icon]')?.href;
          return href ? (await fetch(href)).status : 'no icon link';
        });
        assert.equal(icon, 200, 'the demo page\'s icon');
        for (const a of PLAN) await ask(page, a);
        const answers = await page.evaluate(() => window.demo.answers);
        assert.equal(answers.length, 20);
        assert.deepEqual(answers.filter((a) => a.error).map((a) => a.error), [], 'no answer failed on the page');
        assert.equal(answers[19].aborted, true, 'the stop reached the page');
        const hz = await page.evaluate(() => new Promise((done) => {
          const t = [];
          const tick = (x) => (t.push(x) < 11 ? requestAnimationFrame(tick) : done(1000 / ((t[10] - t[0]) / 10)));
          requestAnimationFrame(tick);
        }));
        await page.evaluate(() => new Promise((done) => setTimeout(done, 600)).then(() => window.demo.field.flush()));

        const token = readFileSync(path.join(data, 'researcher-token'), 'utf8').trim();
        const read = async () => {
          const r = await fetch(new URL('/v1/field/requests?site=chat', collector.url), { headers: { Authorization: `Bearer ${token}` } });
          assert.equal(r.status, 200);
          return r.json();
        };
        const trace = await until('20 requests in the collector', async () => {
          const t = await read();
          return t.requests.length >= 20 && t;
        });
        assert.equal(trace.requests.length, 20, 'exactly the 20 answers');
        const qs = [...trace.requests].sort((x, y) => x.sent_ms - y.sent_ms);
        const frame = 1000 / Math.min(hz, trace.meta.client?.display_refresh_hz ?? hz);
        const rows = [];
        for (const [i, a] of answers.entries()) {
          const q = qs[i];
          const fp = firstPaint(q), pageFp = a.firstPaint - a.sent;
          rows.push({ answer: i + 1, what: PLAN[i].what ?? '', ttft: first(q), pageTtft: a.firstChunk - a.sent, paint: fp, pagePaint: pageFp });
        }
        const f2 = (x) => (Number.isFinite(x) ? x.toFixed(2) : '-');
        console.log(`${name}, a frame ${frame.toFixed(1)} ms: answer, TTFT collector | page, first paint collector | page (ms)\n` +
          rows.map((r) => `${r.answer} ${r.what}\t${f2(r.ttft)} | ${f2(r.pageTtft)}\t${f2(r.paint)} | ${f2(r.pagePaint)}`).join('\n'));
        // Both clocks start at the user's send: the page's in its submit
        // handler, the snippet's at that submit event (latency_lab.action_ms),
        // so the SDK's work before fetch() is in both.
        const offs = rows.map((r) => Math.abs(r.pageTtft - r.ttft)).sort((x, y) => x - y);
        const medianOff = (offs[9] + offs[10]) / 2;
        assert.ok(medianOff <= WITHIN_MS, `TTFT off by ${f2(medianOff)} ms at the median, collector against page (each: ${offs.map(f2)})`);
        assert.ok(offs[18] <= PAUSED_MS, `two answers' TTFT off by more than ${PAUSED_MS} ms, collector against page: ${offs.map(f2)}`);
        for (const r of rows) {
          if (PLAN[r.answer - 1].stop) continue;
          assert.ok(r.paint >= r.ttft, `answer ${r.answer}: first paint ${f2(r.paint)} before the first chunk ${f2(r.ttft)}`);
          assert.ok(Math.abs(r.paint - r.pagePaint) <= frame + 1, `answer ${r.answer}: first paint ${f2(r.paint)} ms in the collector, ${f2(r.pagePaint)} ms on the page`);
        }
        // Both stamp the same frame: the snippet on the first frame after
        // the answer element changed, the page on the frame after it set
        // the text. The median |difference| was 0.1–0.4 ms (Chromium and
        // Firefox, 2026-12-05/06); a snippet stamping a frame late is a frame off on every answer.
        const painted = rows.filter((r) => !PLAN[r.answer - 1].stop).map((r) => Math.abs(r.paint - r.pagePaint)).sort((x, y) => x - y);
        const paintOff = painted[Math.floor(painted.length / 2)];
        assert.ok(paintOff <= SAME_FRAME_MS, `first paints differ by ${f2(paintOff)} ms at the median, collector against page`);
        const gaps = (q) => q.chunks.slice(1).map((c, k) => c.arrived_ms - q.chunks[k].arrived_ms);
        assert.ok(Math.max(...gaps(qs[17])) >= 600, `the stall is recorded: longest gap ${Math.max(...gaps(qs[17]))} ms`);
        assert.ok(Math.max(...gaps(qs[0])) < 300, 'a plain answer has no such gap');
        assert.ok(qs[18].chunks.some((c) => c.kind === 'tool_call'), 'the tool call is recorded');
        assert.equal(qs[19].failure?.kind, 'aborted', 'the stop is recorded');
        assert.ok(qs[16].chunks.every((c) => c.painted_ms != null), 'every chunk of the smoothed answer painted');
        assert.ok(trace.meta.client?.engine, 'the browser is recorded');
        seenBrowser = trace.meta.client.browser;
        assert.doesNotMatch(JSON.stringify(trace), /secret prompt/);
        for (const f of readdirSync(data)) {
          assert.doesNotMatch(readFileSync(path.join(data, f), 'latin1'), /secret prompt/, `${f} holds the prompt`);
        }
      } finally {
        await close();
      }
    });

    test('the Field view shows them over time, loads them as a run and plays the P90 request', async () => {
      const token = readFileSync(path.join(data, 'researcher-token'), 'utf8').trim();
      const { page, close } = await openPlain(browser, new URL('/#field', collector.url).href);
      try {
        await waitFor(page, 'field-view', 20_000);
        // Issue 44 (1280×800): "List sitesSite", Summarize touching Load, a
        // label on one line and its control on the next.
        const layout = await page.evaluate(() => {
          const items = [...document.querySelector('[data-testid="field-source"]').children].filter((e) => e.offsetParent);
          const boxes = items.map((e) => [e.textContent.trim().slice(0, 20), e.getBoundingClientRect()]);
          const touching = [];
          for (let i = 1; i < boxes.length; i++) {
            const [[a, p], [b, q]] = [boxes[i - 1], boxes[i]];
            if (Math.abs(p.top - q.top) < 4 && q.left - p.right < 8) touching.push(`${a}|${b}: ${(q.left - p.right).toFixed(1)} px`);
          }
          const split = [...document.querySelectorAll('[data-testid="field-source"] label')]
            .filter((l) => l.getBoundingClientRect().height > 48).map((l) => l.textContent.trim().slice(0, 20));
          return { touching, split };
        });
        assert.deepEqual(layout, { touching: [], split: [] }, 'the Field form\'s controls apart, each with its label');
        await setValue(page, 'field-token', token);
        await click(page, 'field-sites');
        await waitForCss(page, '[data-testid="field-site"] option[value="chat"]');
        const option = await page.evaluate(() => document.querySelector('[data-testid="field-site"] option[value="chat"]').textContent);
        assert.match(option, /chat \(20 requests\)/);
        await setValue(page, 'field-site', 'chat');
        // At a glance first: one row per browser (the page's), 20 requests.
        await setValue(page, 'field-by', 'browser');
        await click(page, 'field-summarize');
        await waitFor(page, 'field-summary', 20_000);
        const groups = await page.evaluate(() =>
          [...document.querySelectorAll('[data-testid="field-group"]')].map((r) => [r.dataset.key, r.cells[1].textContent, r.cells[2].textContent]));
        assert.deepEqual(groups, [[seenBrowser, '20', '1']], 'one browser, 20 requests, the stopped one failed');
        // Scored as Interactive chat (the form's default) over its sampled
        // requests: all 20, enough for a score.
        const scored = await text(page, 'field-score');
        assert.match(scored, /^\d{1,3} \(20\)$/);
        // The stall is a stalled request; paint lag and the paint gaps have percentiles.
        assert.equal(await page.evaluate(() => document.querySelector('[data-testid="field-group"]').cells[3].textContent), '1');
        for (const figure of ['paint_lag', 'paint_gap']) {
          await setValue(page, 'field-figure', figure);
          await waitForCss(page, `[data-testid="field-summary"][data-figure="${figure}"]`);
          assert.match(await text(page, 'field-p90'), /^\d+\.\d+ \(/, `${figure} P90 with its interval`);
        }
        // Requests over time: every request in one bar, the stopped one failed.
        const bars = await page.evaluate(() =>
          [...document.querySelectorAll('[data-testid="requests-bar"]')].map((b) => [+b.dataset.requests, +b.dataset.failed]));
        assert.ok(bars.length >= 1, 'the chart has bars');
        assert.deepEqual(bars.reduce(([n, f], [a, b]) => [n + a, f + b], [0, 0]), [20, 1], JSON.stringify(bars));
        await setValue(page, 'field-browser', seenBrowser);
        await click(page, 'field-load');
        await waitFor(page, 'import-run', 20_000);
        assert.match(await text(page, 'import-run-label'), /field data: chat/);
        assert.match(await text(page, 'import-run-requests'), /^20 requests, 19 completed, 1 failed/);
        // The summary's score is the score of the same 20 requests read as a
        // run: the number on the run card, not just a number-shaped cell.
        const card = await page.evaluate(() => [...document.querySelectorAll('[data-testid="import-scores"] li')]
          .map((li) => li.textContent.match(/^Interactive chat (\d+)/)).find(Boolean)?.[1]);
        assert.equal(scored.split(' ')[0], card, `the Field summary scores ${scored}, the run card ${card}`);
        // Field data has paints: the card shows first paint and paint lag, which tools' files lack.
        await waitFor(page, 'import-row-ttfp', 5_000);
        await waitFor(page, 'field-download', 5_000);
        // The share of users within each SLO, first paint's included.
        await setValue(page, 'import-slos', 'ttft:300,ttfp:300');
        await click(page, 'import-slos-apply');
        await waitText(page, 'import-within', /ttft ≤ 300 ms \d.*ttfp ≤ 300 ms \d/, 10_000);
        await click(page, 'replay-p90');
        await waitFor(page, 'replay-view', 20_000);
        await waitText(page, 'play', /^Pause$/, 20_000);
        const panes = await page.evaluate(() => document.querySelector('[data-testid="replay-view"]').innerText);
        assert.match(panes, /P90 \(TTFT\)/, 'the P90 request is one of the panes');
        // Field data keeps no text: the panes play the lab's sample text in
        // the recorded characters per chunk, and end (issue 44: they stayed
        // empty, "Pause" 23 s after 3.3 s answers).
        await waitText(page, 'play', /^Play$/, 20_000);
        for (const i of [0, 1]) {
          const shown = await content(page, `pane-${i}-output`);
          assert.ok(shown.trim().length > 0, `pane ${i} showed no text`);
        }
      } finally {
        await close();
      }
    });

    // Issue 44: a page whose answers the collector refuses said "Field
    // data: on" while every send was a 403 in the console; and the address
    // serve prints works on whatever port it listens on.
    test('the demo page says whether its answers are collected', async () => {
      const printed = site.output().match(/Demo chat page \(its answers go to Field\): (\S+)/)?.[1];
      assert.ok(printed?.startsWith(new URL('/examples/chat/#key=llk_', site.url).href), `serve printed ${printed}`);
      const said = async (url) => {
        const { page, close } = await openPlain(browser, url);
        try {
          await until('the demo page', () => page.evaluate(() => document.getElementById('status')?.textContent === 'ready'));
          return await page.evaluate(() => {
            const p = document.querySelector('[data-testid="demo-field"]');
            return [p.dataset.state, p.textContent];
          });
        } finally {
          await close();
        }
      };
      const [state, text] = await said(printed);
      assert.equal(state, 'on', text);
      assert.match(text, /^Field data: on\./);
      const wrong = await said(new URL('/examples/chat/#key=llk_0000', site.url).href);
      assert.equal(wrong[0], 'refused', wrong[1]);
      assert.match(wrong[1], /^Field data: not collected: the collector refuses this page \(HTTP 401: unknown ingest key\)/);
    });
  });
}
