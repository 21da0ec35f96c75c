// Display smoothing in Live and in the replay lab: one bursty trace shown
// raw and paced one word every 10 ms (as Vercel's smoothStream): the
// smoothed answer or pane says the stall is hidden and how late its text
// ends, and its measured end follows.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { downloadTrace, labSuite, openPage, setField, waitForText } from './lib/lab.mjs';

/** 40 words at 100 ms, nothing until 400 ms (a 300 ms stall), 40 more words. */
function burstyTrace() {
  const words = (n) => Array.from({ length: n }, (_, i) => `w${i} `).join('');
  const chunks = [{ arrived_ms: 100, text: words(40), tokens: 40 }, { arrived_ms: 400, text: words(40), tokens: 40 }];
  const trace = { schema_version: 1, format: 'latency-lab/trace', meta: { label: 'bursty', source: 'live' },
    requests: [{ sent_ms: 0, headers_ms: 50, status: 200, chunks, end_ms: 405 }] };
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'lab-smooth-')), 'bursty.trace.json');
  writeFileSync(file, JSON.stringify(trace));
  return file;
}

describe('display smoothing', () => {
  const bursty = burstyTrace();
  const lab = labSuite(['--trace', bursty]);

  test('Live paces a bursty stream word by word; each chunk is painted when its last word shows', async () => {
    const { page, context, problems } = await openPage(lab.browser, `${lab.server.url}#live`);
    const lag = async () => {
      await page.getByTestId('start').click();
      await waitForText(page.getByTestId('run-status'), /^Finished/, 20_000);
      await page.getByTestId('run-results').waitFor(); // drawn by the runs module
      const { trace } = await downloadTrace(page);
      const last = trace.requests[0].chunks.at(-1);
      return { lag: last.painted_ms - last.arrived_ms, text: await page.getByTestId('output').textContent() };
    };
    await setField(page, 'model', 'trace:bursty');
    const raw = await lag();
    assert.equal(await page.getByTestId('live-cadence').count(), 0, 'no cadence note without smoothing');
    await page.getByTestId('live-smoothing').selectOption('words');
    const smoothed = await lag();
    // The answer's displayed cadence against the stream's: the 300 ms gap
    // between the bursts is covered by the backlog of words.
    const note = await page.getByTestId('live-cadence').textContent();
    const [, streamed, onScreen] = /stalls over 250 ms: (\d+) streamed, (\d+) on screen/.exec(note) ?? [];
    assert.equal(onScreen, '0', note);
    if (streamed === '1') assert.match(note, /\(1 hidden by smoothing\)/);
    const shownEvery = Number(/^Shown every ([\d.]+) ms at P50/.exec(note)?.[1]);
    assert.ok(shownEvery >= 5 && shownEvery < 100, `shown every ${shownEvery} ms: ${note}`);
    const endDelay = Number(/ends (\d+) ms after/.exec(note)?.[1]);
    assert.ok(endDelay > 200 && endDelay < 1500, note);
    assert.ok(raw.lag < 100, `raw paint lag ${raw.lag} ms`);
    // 40 words 10 ms apart after the second burst, from where the first burst's words ended.
    assert.ok(smoothed.lag > 300 && smoothed.lag < 1500, `smoothed paint lag ${smoothed.lag} ms`);
    assert.equal(smoothed.text, raw.text, 'the same text, paced');
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('a trace raw and smoothed side by side: the stall hidden, the end later', async () => {
    const file = bursty;
    const { page, context, problems } = await openPage(lab.browser, `${lab.server.url}#replay`);
    for (const i of [0, 1]) {
      await page.getByTestId(`pane-${i}-file`).setInputFiles(file);
      await waitForText(page.getByTestId(`pane-${i}-title`), /bursty/);
    }
    await page.getByTestId('pane-1-smoothing').selectOption('words');
    const note = await page.getByTestId('pane-1-cadence').textContent();
    assert.match(note, /stalls over 250 ms: 1 streamed, 0 on screen \(1 hidden by smoothing\)/);
    const end = Number(/ends (\d+) ms after/.exec(note)[1]);
    assert.ok(end > 400 && end < 600, `end delay ${end} ms`);
    assert.equal(await page.getByTestId('pane-0-cadence').count(), 0, 'the raw pane has no note');
    await page.getByTestId('play').click();
    for (const i of [0, 1]) await page.getByTestId(`pane-${i}-result`).waitFor({ timeout: 20_000 });
    const e2el = async (i) => {
      const t = await page.getByTestId(`pane-${i}-result-e2el`).textContent();
      return t.endsWith(' s') ? Number.parseFloat(t) * 1000 : Number.parseFloat(t);
    };
    const [raw, smoothed] = [await e2el(0), await e2el(1)];
    assert.ok(smoothed - raw > 300, `raw ${raw} ms, smoothed ${smoothed} ms`);
    for (const i of [0, 1]) assert.match(await page.getByTestId(`pane-${i}-result-qoe`).textContent(), /^[01]\.\d\d$/);
    assert.equal(await page.getByTestId('pane-1-output').textContent(), await page.getByTestId('pane-0-output').textContent(), 'the same text, paced differently');
    assert.deepEqual(problems, []);
    await context.close();
  });
});
