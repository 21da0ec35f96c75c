// Markdown as chat apps show it, streamed a few characters at a time, in
// Live and in Replay: nested lists, a code block closed by a longer fence, a
// link with parentheses, a GFM table with alignment and strikethrough.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { labSuite, openPage, setField, waitForText } from './lib/lab.mjs';

const CODE = 'fn main() {\n    println!("```");\n}\n';
const ANSWER = [
  '## Plan\n\n',
  '1. First step\n   - detail *one*\n   - detail two\n2. Second step\n\n',
  '````rust\n', CODE, '```````\n\n',
  'See [Rust](https://en.wikipedia.org/wiki/Rust_(programming_language)) for ~~more~~ details.\n\n',
  '| metric | value |\n|:--|--:|\n| TTFT | 200 ms |\n| TPOT | 15 ms |\n\n',
  'Done.',
].join('');

/** A trace labelled "markdown" that streams ANSWER in 4-character tokens, 4 ms apart. */
function markdownTraceFile() {
  const chunks = [];
  for (let i = 0, t = 20; i < ANSWER.length; i += 4, t += 4) chunks.push({ arrived_ms: t, text: ANSWER.slice(i, i + 4), tokens: 1 });
  const end = chunks.at(-1).arrived_ms + 5;
  const trace = {
    schema_version: 1,
    format: 'latency-lab/trace',
    meta: { label: 'markdown', source: 'live' },
    requests: [{ sent_ms: 0, headers_ms: 10, status: 200, chunks, end_ms: end }],
  };
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'lab-md-')), 'markdown.trace.json');
  writeFileSync(file, JSON.stringify(trace));
  return file;
}

/** Checks what a rendered answer holds. */
async function assertRendered(out) {
  assert.equal(await out.locator('h2').first().textContent(), 'Plan');
  assert.equal(await out.locator('ol > li').count(), 2, 'one ordered list of two steps');
  assert.equal(await out.locator('ol > li > ul > li').count(), 2, 'the details nest under the first step');
  assert.equal(await out.locator('ol em').first().textContent(), 'one');
  assert.equal(await out.locator('pre code').count(), 1);
  assert.equal(await out.locator('pre code').first().textContent(), CODE, 'the longer fence closed the block');
  assert.equal(await out.locator('pre code').first().getAttribute('data-lang'), 'rust');
  const link = out.locator('a');
  assert.equal(await link.count(), 1);
  assert.equal(await link.getAttribute('href'), 'https://en.wikipedia.org/wiki/Rust_(programming_language)');
  assert.equal(await link.textContent(), 'Rust');
  assert.equal(await out.locator('del').textContent(), 'more');
  assert.deepEqual(await out.locator('table thead th').allTextContents(), ['metric', 'value']);
  assert.deepEqual(await out.locator('table tbody td').allTextContents(), ['TTFT', '200 ms', 'TPOT', '15 ms']);
  assert.equal(await out.locator('table tbody td[data-align=right]').count(), 2);
  assert.equal(await out.locator('p').last().textContent(), 'Done.');
}

describe('markdown', () => {
  const file = markdownTraceFile();
  const lab = labSuite(['--trace', file]);

  test('Live renders a streamed answer as Markdown', async () => {
    const { page, context, problems } = await openPage(lab.browser, `${lab.server.url}#live`);
    await page.getByTestId('live-render-mode').selectOption('markdown');
    await setField(page, 'model', 'trace:markdown');
    await page.getByTestId('start').click();
    // While it streams, the answer grows block by block.
    await page.getByTestId('output').locator('ol').first().waitFor({ timeout: 20_000 });
    await waitForText(page.getByTestId('run-status'), /^Finished/, 20_000);
    await page.getByTestId('run-results').waitFor(); // drawn by the runs module
    await assertRendered(page.getByTestId('output'));
    // Text mode shows the source.
    await page.getByTestId('live-render-mode').selectOption('text');
    await page.getByTestId('start').click();
    await waitForText(page.getByTestId('run-status'), /^Finished/, 20_000);
    await page.getByTestId('run-results').waitFor(); // drawn by the runs module
    assert.equal(await page.getByTestId('output').innerText(), ANSWER);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('Replay renders the same answer the same way', async () => {
    const { page, context, problems } = await openPage(lab.browser, `${lab.server.url}#replay`);
    await page.getByTestId('render-mode').selectOption('markdown');
    await page.getByTestId('pane-0-file').setInputFiles(file);
    await waitForText(page.getByTestId('pane-0-title'), /markdown/);
    await page.getByTestId('play').click();
    await page.getByTestId('pane-0-result').waitFor({ timeout: 20_000 });
    await assertRendered(page.getByTestId('pane-0-output'));
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('a share link reproduces the panes exactly: Markdown, speed, smoothing, profiles', async () => {
    const { page, context, problems } = await openPage(lab.browser, `${lab.server.url}#replay`);
    await page.getByTestId('story-jitter').click();
    await page.getByTestId('render-mode').selectOption('markdown');
    await page.getByTestId('speed').selectOption('2');
    await page.getByTestId('replay-share').click();
    const link = await page.getByTestId('replay-link').inputValue();
    assert.match(link, /#share=v1\./);
    const other = await openPage(lab.browser, link);
    await other.page.getByTestId('pane-1-output').waitFor();
    await waitForText(other.page.getByTestId('pane-1-title'), /Jittery/);
    assert.equal(await other.page.getByTestId('render-mode').inputValue(), 'markdown', 'Markdown comes back as Markdown');
    assert.equal(await other.page.getByTestId('speed').inputValue(), '2');
    assert.ok(await other.page.getByTestId('pane-0-output').evaluate((e) => e.classList.contains('markdown')), 'the panes render Markdown');
    assert.match(await other.page.getByTestId('story-explanation').innerText(), /30 ms on average/, 'a shared story keeps its words');
    assert.deepEqual([...problems, ...other.problems], []);
    await other.context.close();
    await context.close();
  });
});
