// The replay lab: a first visit lands on the "same tokens/s" story playing;
// both panes end with equal tokens/s and different TTFT; the recorded
// due/release/paint times show a precise scheduler; Markdown is rendered
// safely; a hidden tab pauses the replay and says so.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { ARTIFACTS, LATE_MS, launchBrowser, openPage, setField, startServer, waitForText } from './lib/lab.mjs';
import { CAPTURE_FRAMES, assertFails, checkReplayPane, checkScheduler, checkSpeed, replayPaneFailsBroken } from './lib/precision.mjs';

async function paneTrace(page, i) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId(`pane-${i}-download`).click()]);
  return JSON.parse(readFileSync(await download.path(), 'utf8'));
}

describe('replay lab', () => {
  let server;
  let browser;
  before(async () => {
    server = await startServer();
    browser = await launchBrowser();
    mkdirSync(ARTIFACTS, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    server?.stop();
  });

  test('lands on "same tokens/s, different feel", playing; equal tokens/s, different TTFT', async () => {
    const { page, context, problems } = await openPage(browser, server.url, undefined, { initScript: CAPTURE_FRAMES });
    assert.equal(await page.getByTestId('story-same-tps').getAttribute('aria-pressed'), 'true');
    assert.match(await page.getByTestId('story-explanation').innerText(), /same 80 tokens in the same 3\.3 seconds/);
    await waitForText(page.getByTestId('play'), /^Pause$/); // playing without a click
    await page.getByTestId('pane-1-result').waitFor({ timeout: 20_000 });
    await page.getByTestId('pane-0-result').waitFor();
    const tps = [0, 1].map((i) => page.getByTestId(`pane-${i}-result-tps`).innerText());
    const [t0, t1] = await Promise.all(tps);
    // Both panes are due to end 3.31 s after they start: 80 tokens at
    // 80 / 3.31 tokens/s (shown to 0.1), a little less when a release is late.
    for (const t of [t0, t1]) assert.ok(Number(t) <= 80 / 3.31 + 0.05 && Number(t) >= 80 / (3.31 + LATE_MS / 1000), `tokens/s ${t}`);
    const ttft = await Promise.all([0, 1].map((i) => page.getByTestId(`pane-${i}-result-ttft`).innerText()));
    const [a, b] = ttft.map((s) => Number(s.replace(' ms', '')));
    assert.ok(a >= 149.5 && a < 150 + LATE_MS && b >= 2519.5 && b < 2520 + LATE_MS, `TTFT ${ttft}`);
    // Issue 44: at 1280×800 the answers' text sat at the boxes' bottom,
    // below the first screen, for the whole play. Its first line is in view.
    const firstLine = await page.evaluate(() => {
      const body = document.querySelector('[data-testid="pane-0-output"] .stream-body');
      const text = document.createTreeWalker(body, NodeFilter.SHOW_TEXT).nextNode();
      if (!text) return null;
      const range = document.createRange();
      range.setStart(text, 0);
      range.setEnd(text, 1);
      const r = range.getBoundingClientRect();
      return { top: r.top, bottom: r.bottom, height: innerHeight };
    });
    assert.ok(firstLine && firstLine.bottom <= firstLine.height, `the first line of the answer at ${JSON.stringify(firstLine)}`);
    // textContent: blocks scrolled out of view skip rendering (content-visibility), so innerText omits them.
    assert.match(await page.getByTestId('pane-0-output').textContent(), /Good question! Time to first token/);

    const rows = [];
    const frames = await page.evaluate(() => window.__labFrames);
    for (const i of [0, 1]) {
      const trace = await paneTrace(page, i);
      assert.equal(trace.meta.source, 'replay');
      assert.equal(trace.meta.replay.scheduler, 'precise');
      const hz = trace.meta.client.display_refresh_hz ?? 60;
      const chunks = trace.requests[0].chunks;
      assert.equal(chunks.length, 80);
      const row = { pane: i, frame: 1000 / hz, late_frames: trace.meta.replay.late_frames, frames: trace.meta.replay.frames };
      row.late = chunks.map((c, k) => [k, +(c.arrived_ms - c.due_ms).toFixed(3)]).filter(([, e]) => e > 1);
      row.due_end = chunks.at(-1).due_ms - trace.requests[0].sent_ms;
      rows.push(row);
      writeFileSync(path.join(ARTIFACTS, 'replay-fidelity.json'), JSON.stringify(rows, null, 2));
      // Judged once, on medians near the effect (precision.mjs); the tails
      // are measured by tests/bench/replay.bench.mjs.
      Object.assign(row, checkReplayPane(chunks, frames));
      replayPaneFailsBroken(chunks, frames, row.frame);
    }
    writeFileSync(path.join(ARTIFACTS, 'replay-fidelity.json'), JSON.stringify(rows, null, 2));
    assert.ok(Math.abs(rows[0].due_end - rows[1].due_end) < 1e-6, `both panes are due to end together: ${rows.map((r) => r.due_end)}`);
    assert.match(await page.getByTestId('pane-0-fidelity').innerText(), /^Scheduler \(precise via release-clock workers\): released/);
    // The same story with the naive scheduler, in the same page: the precise
    // one must be at least 10× closer to due at P90, through the workers.
    const precise = [];
    for (const i of [0, 1]) precise.push(await paneTrace(page, i));
    await page.getByTestId('scheduler').selectOption('naive');
    await page.getByTestId('restart').click();
    await waitForText(page.getByTestId('play'), /^Play$/, 20_000);
    const naive = [];
    for (const i of [0, 1]) naive.push(await paneTrace(page, i));
    for (const t of naive) assert.deepEqual([t.meta.replay.scheduler, t.meta.replay.released_by.naive], ['naive', 80]);
    for (const t of precise) assert.equal(t.meta.replay.fallback, undefined, `fell back: ${t.meta.replay.fallback}`);
    const errors = (ts) => ts.flatMap((t) => t.requests[0].chunks.map((c) => c.arrived_ms - c.due_ms));
    const check = {
      precise: errors(precise), naive: errors(naive),
      panes: precise.map((t) => ({ releasedBy: t.meta.replay.released_by, chunks: 80 })),
    };
    const comparison = checkScheduler(check);
    // The ratio guards against a naive scheduler in the precise one's
    // place; a precise scheduler 5 ms, 17 ms or a frame late is caught by
    // the median release above (replayPaneFailsBroken), whatever the naive
    // scheduler does: a ratio alone lets it pass once naive P90 is over
    // ten times it (a busy machine).
    assertFails('with the naive scheduler as the precise one', () =>
      checkScheduler({ ...check, precise: check.naive }));
    assertFails('with a main-thread fallback', () =>
      checkScheduler({ ...check, panes: [{ releasedBy: { workers: 79, main_thread: 1, naive: 0 }, chunks: 80 }] }));
    writeFileSync(path.join(ARTIFACTS, 'replay-precision.json'), JSON.stringify(comparison, null, 2));
    await page.getByTestId('scheduler').selectOption('precise');
    // A story as the lab tells it is its example, not the user's run: its
    // playbacks stay out of the library (issue 44: 17 rows after browsing
    // the stories). Panes the user set are kept, both as one group.
    await page.getByTestId('pane-0-source').selectOption('profile:code-fast');
    assert.equal(await page.getByTestId('story-same-tps').getAttribute('aria-pressed'), 'false', 'an edited story is no longer the story');
    await page.getByTestId('play').click();
    await waitForText(page.getByTestId('play'), /^Pause$/, 20_000);
    await waitForText(page.getByTestId('play'), /^Play$/, 20_000);
    await page.getByTestId('tab-library').click();
    await page.getByTestId('library-group').first().waitFor();
    assert.equal(await page.getByTestId('library-group').count(), 1, 'one group: the playback of the user\'s panes');
    await page.getByTestId('library-group-toggle').click();
    await page.locator('[data-testid=library-row][data-kind=replay]').nth(1).waitFor();
    assert.equal(await page.locator('[data-testid=library-row][data-kind=replay]').count(), 2);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('without the release-clock workers the page releases, and the trace and the pane say why', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    // The worker script is missing (a static host that left it out).
    await context.route('**/public/replay-clock.js', (r) => r.fulfill({ status: 404, body: 'not here' }));
    const page = await context.newPage();
    await page.goto(`${server.url}#replay`);
    await page.getByTestId('story-same-tps').click(); // a story plays when chosen
    await page.getByTestId('pane-1-result').waitFor({ timeout: 20_000 });
    await waitForText(page.getByTestId('play'), /^Play$/, 20_000);
    const trace = await paneTrace(page, 1);
    const info = trace.meta.replay;
    assert.deepEqual(info.released_by, { workers: 0, main_thread: 80, naive: 0 });
    assert.match(info.fallback, /^the release-clock workers failed \(\/public\/replay-clock\.js did not load\)$/);
    const said = await page.getByTestId('pane-1-fidelity').innerText();
    assert.match(said, /^Scheduler \(precise via the page's main thread\): released/);
    assert.match(said, /Fallback: the release-clock workers failed/);
    // The precision check refuses a playback that did not use the workers.
    const errors = trace.requests[0].chunks.map((c) => c.arrived_ms - c.due_ms);
    assertFails('on the main-thread fallback', () =>
      checkScheduler({ precise: errors, naive: errors.map((e) => e * 1000 + 100), panes: [{ releasedBy: info.released_by, chunks: 80 }] }));
    await context.close();
  });

  test('stories switch, speed doubles the pace, and pause holds the text', async () => {
    const { page, context } = await openPage(browser, `${server.url}#replay`);
    assert.equal(await page.getByTestId('play').innerText(), 'Play', 'a linked visit does not autoplay');
    await page.getByTestId('story-code').click();
    assert.match(await page.getByTestId('story-explanation').innerText(), /about 100 ms/);
    await page.getByTestId('pane-1-result').waitFor({ timeout: 20_000 });
    const e2el1 = Number((await page.getByTestId('pane-1-result-e2el').innerText()).replace(' ms', ''));
    const at1 = (await paneTrace(page, 1)).requests[0];
    await page.getByTestId('speed').selectOption('2');
    await page.getByTestId('restart').click();
    await waitForText(page.getByTestId('play'), /^Play$/, 20_000);
    const e2el2 = Number((await page.getByTestId('pane-1-result-e2el').innerText()).replace(' ms', ''));
    assert.ok(Math.abs(e2el2 - e2el1 / 2) < LATE_MS, `×2 speed: ${e2el1} → ${e2el2} ms`);
    // ×2 by slope: release offsets at ×2 against due offsets at ×1.
    const at2 = (await paneTrace(page, 1)).requests[0];
    const due1 = at1.chunks.map((c) => c.due_ms - at1.sent_ms);
    const released2 = at2.chunks.map((c) => c.arrived_ms - at2.sent_ms);
    checkSpeed(due1, released2, 2);
    assertFails('at ×1.5', () => checkSpeed(due1, released2.map((r) => (r * 2) / 1.5), 2));
    await page.getByTestId('speed').selectOption('1');
    await page.getByTestId('story-stalls').click();
    await waitForText(page.getByTestId('pane-0-tokens'), /^[1-9]\d+$/);
    await page.getByTestId('play').click();
    await waitForText(page.getByTestId('play'), /^Play$/);
    // Text released just before the pause reaches the screen in the next
    // frame; from then on nothing may change.
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const held = await page.getByTestId('pane-0-output').textContent();
    await page.waitForTimeout(600);
    assert.equal(await page.getByTestId('pane-0-output').textContent(), held, 'nothing streams while paused');
    await context.close();
  });

  test('a hidden tab pauses the replay and says why', async () => {
    const { page, context } = await openPage(browser, `${server.url}#replay`);
    await page.getByTestId('story-jitter').click();
    await waitForText(page.getByTestId('pane-0-tokens'), /^[1-9]\d*$/);
    await page.evaluate(() => {
      // What a real hidden tab shows: both the old and the new property.
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
      Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    await waitForText(page.getByTestId('replay-notice'), /Paused because the tab was hidden/);
    assert.equal(await page.getByTestId('play').innerText(), 'Play');
    await context.close();
  });

  // Issue 44: "Compare profiles side by side" led to the story already showing.
  test('the landing page\'s profiles path leads to choosing the panes', async () => {
    const { page, context } = await openPage(browser, server.url);
    await page.getByTestId('go-replay').click();
    await page.waitForFunction(() => document.activeElement?.dataset.testid === 'pane-0-source', null, { timeout: 5_000 });
    await context.close();
  });

  // Issue 44: switching views paused a replay silently.
  test('leaving the view pauses the replay and says so on return', async () => {
    const { page, context } = await openPage(browser, `${server.url}#replay`);
    await page.getByTestId('story-jitter').click();
    await waitForText(page.getByTestId('pane-0-tokens'), /^[1-9]\d*$/);
    await waitForText(page.getByTestId('play'), /^Pause$/);
    await page.getByTestId('tab-study').click();
    await page.getByTestId('study-view').waitFor();
    await page.getByTestId('tab-replay').click();
    await waitForText(page.getByTestId('replay-notice'), /Paused when you left this view/);
    assert.equal(await page.getByTestId('play').innerText(), 'Play');
    await page.getByTestId('play').click();
    await waitForText(page.getByTestId('play'), /^Pause$/);
    assert.equal(await page.getByTestId('replay-notice').count(), 0, 'Play clears the notice');
    await context.close();
  });

  test('Markdown renders streamed, and hostile output stays inert', async () => {
    const { page, context } = await openPage(browser, `${server.url}#replay`);
    await page.getByTestId('render-mode').selectOption('markdown');
    await page.locator('[data-testid=pane-0] details.edit summary').click();
    const hostile = '# Title\n\nSome **bold** text <img src=x onerror="window.__pwned=1"> and [a link](javascript:window.__pwned=2) and [ok](https://example.com/x).\n\n```js\nlet x = 1;\n```\n';
    await page.getByTestId('pane-0-edit-own-text').fill(hostile);
    await page.getByTestId('pane-0-edit-own-text').blur();
    await setField(page, 'pane-0-edit-tpot', 2);
    await setField(page, 'pane-0-edit-ttft', 10);
    await page.getByTestId('pane-0-apply').click();
    await page.getByTestId('play').click();
    await page.getByTestId('pane-0-result').waitFor({ timeout: 20_000 });
    const out = page.getByTestId('pane-0-output');
    assert.equal(await out.locator('h1').first().textContent(), 'Title');
    assert.equal(await out.locator('strong').first().textContent(), 'bold');
    assert.equal(await out.locator('pre code').first().textContent(), 'let x = 1;\n');
    assert.equal(await out.locator('img').count(), 0, 'no element from model output');
    const hrefs = await out.locator('a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    assert.ok(hrefs.includes('https://example.com/x'));
    assert.ok(hrefs.every((h) => h.startsWith('https://')), `hrefs ${hrefs}`);
    assert.match(await out.textContent(), /<img src=x onerror=/, 'shown as text');
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
    await context.close();
  });

  test('the profile editor takes what is typed: an edit then a Jitter change, then Apply', async () => {
    const { page, context, problems } = await openPage(browser, `${server.url}#replay`);
    await page.locator('[data-testid=pane-0] details.edit summary').click();
    // Typed, never blurred: the next control used is the Jitter select.
    await page.getByTestId('pane-0-edit-ttft').fill('777');
    await page.getByTestId('pane-0-edit-jitter').selectOption('constant');
    assert.equal(await page.getByTestId('pane-0-edit-ttft').inputValue(), '777', 'the typed TTFT stays in its field');
    await page.getByTestId('pane-0-apply').click();
    await waitForText(page.locator('[data-testid=pane-0] .source'), /ttft=777/);
    assert.match(await page.locator('[data-testid=pane-0] .source').innerText(), /jitter=constant/);
    assert.deepEqual(problems, []);
    await context.close();
  });
});
