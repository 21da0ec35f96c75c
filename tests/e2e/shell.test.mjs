// The app shell: the release build (wasm-opt'd) loads in Chromium from
// `latency-lab serve`, cross-origin isolated, and its trace analyzer shows
// the same figures as `latency-lab analyze`; files that are not JSON say
// what was expected in plain words; the page loads with no console warning.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { ROOT, analyzeJson, assertShown, labSuite, openPage, waitForText } from './lib/lab.mjs';

const FIXTURE = path.join(ROOT, 'tests/fixtures/hand.trace.json');

describe('app shell', () => {
  const lab = labSuite();

  test('serves the app with isolation headers and renders without errors', async () => {
    const res = await fetch(lab.server.url);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('cross-origin-opener-policy'), 'same-origin');
    assert.equal(res.headers.get('cross-origin-embedder-policy'), 'require-corp');
    const { page, context, problems } = await openPage(lab.browser, `${lab.server.url}#analyze`);
    assert.match(await page.getByRole('heading', { level: 1 }).innerText(), /Latency Lab/);
    assert.equal(await page.evaluate(() => self.crossOriginIsolated), true);
    assert.match(await page.getByTestId('clock-note').innerText(), /^Clock step \d+ µs · cross-origin isolated$/);
    await page.getByTestId('analyze-empty').waitFor();
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('unknown paths fall back to the app', async () => {
    const res = await fetch(new URL('/some/deep/link', lab.server.url));
    assert.equal(res.status, 200);
    assert.match(await res.text(), /<title>Latency Lab<\/title>/);
  });

  test('trace analysis in the browser equals the CLI', async () => {
    const cli = analyzeJson(FIXTURE);
    const { page, context, problems } = await openPage(lab.browser, `${lab.server.url}#analyze`);
    await page.getByTestId('trace-input').setInputFiles(FIXTURE);
    await page.getByTestId('analysis').waitFor();
    assert.equal(await page.getByTestId('requests').innerText(), String(cli.requests));
    assert.equal(await page.getByTestId('completed').innerText(), String(cli.completed));
    assert.equal(await page.getByTestId('failed').innerText(), String(cli.failed));
    for (const metric of ['ttft', 'tpot', 'itl', 'e2el']) {
      for (const col of ['mean', 'median', 'std', 'p50', 'p90', 'p95', 'p99']) {
        const shown = await page.getByTestId(`metric-${metric}-${col}`).innerText();
        assertShown(shown, cli[`${metric}_ms`][col], 2, `${metric} ${col}`);
      }
    }
    assertShown(await page.getByTestId('output-tokens-per-s').innerText(), cli.output_tokens_per_s, 2, 'tokens/s');
    for (const s of cli.scores) {
      assertShown(await page.getByTestId(`score-${s.id}-value`).innerText(), s.score, 0, s.id);
    }
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('SLOs and weights are editable and change the results', async () => {
    const { page, context } = await openPage(lab.browser, `${lab.server.url}#analyze`);
    await page.getByTestId('trace-input').setInputFiles(FIXTURE);
    await page.getByTestId('analysis').waitFor();
    const cli = analyzeJson(FIXTURE, ['--slo', 'ttft:200,tpot:30']);
    await page.getByTestId('slo-input').fill('ttft:200,tpot:30');
    await page.getByTestId('slo-input').press('Enter');
    await page.getByTestId('slo-input').blur();
    await waitForText(page.getByTestId('goodput'), new RegExp(`^${(cli.goodput.ratio * 100).toFixed(1)}% .*\\(2 of 6\\)`));
    await page.getByTestId('slo-input').fill('latency:fast');
    await page.getByTestId('slo-input').blur();
    await waitForText(page.getByTestId('slo-error'), /unknown SLO metric "latency"/);

    const before = Number(await page.getByTestId('score-code-value').innerText());
    // Put all of code completion's weight on E2EL P95 (82/100 by hand): the score must follow.
    const weights = page.getByTestId('score-code').locator('input[type=number]');
    await weights.nth(0).fill('0');
    await weights.nth(0).blur();
    await weights.nth(2).fill('0');
    await weights.nth(2).blur();
    await waitForText(page.getByTestId('score-code-value'), /^82$/);
    assert.notEqual(before, 82);
    await context.close();
  });

  test('a broken file explains itself and keeps the loaded trace', async () => {
    const { page, context } = await openPage(lab.browser, `${lab.server.url}#analyze`);
    await page.getByTestId('trace-input').setInputFiles(FIXTURE);
    await page.getByTestId('analysis').waitFor();
    await page.getByTestId('trace-input').setInputFiles({
      name: 'broken.json',
      mimeType: 'application/json',
      buffer: Buffer.from('{"schema_version": 1, "requests": [{"sent_ms": '),
    });
    await waitForText(page.getByTestId('load-error'), /broken\.json: not valid JSON: the text ends early \(empty, or cut off\?\): a value is missing \(line 1, column \d+\)/);
    assert.equal(await page.getByTestId('requests').innerText(), '6', 'previous analysis stays');
    await page.getByTestId('trace-input').setInputFiles({
      name: 'other.json',
      mimeType: 'application/json',
      buffer: Buffer.from('{"date": "2024", "ttfts": [0.1]}'),
    });
    await waitForText(page.getByTestId('load-error'), /other\.json: this JSON is not a Latency Lab trace/);
    await context.close();
  });

  test('files that are not JSON say what was expected in plain words, with line and column', async () => {
    const { page, context, problems } = await openPage(lab.browser, `${lab.server.url}#analyze`);
    await page.getByTestId('trace-input').setInputFiles({
      name: 'notes.json',
      mimeType: 'application/json',
      buffer: Buffer.from('not json at all'),
    });
    const said = await waitForText(page.getByTestId('load-error'), /notes\.json/);
    assert.match(said, /expected a JSON value \(an object \{…\}, a list \[…\], a number, a quoted text, true, false or null\).*\(line 1, column 2\)/);
    await page.getByTestId('trace-input').setInputFiles({
      name: 'cut.json',
      mimeType: 'application/json',
      buffer: Buffer.from('{"schema_version": 1,\n "requests": ['),
    });
    const cut = await waitForText(page.getByTestId('load-error'), /cut\.json/);
    assert.match(cut, /the text ends early \(cut off\?\): a list \[…\] is not closed \(line 2, column \d+\)/);
    for (const m of [said, cut]) assert.doesNotMatch(m, /EOF|ident|at line \d+ column/);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('the page loads with no console warning (no ignored integrity attribute)', async () => {
    const context = await lab.browser.newContext();
    const page = await context.newPage();
    const said = [];
    page.on('console', (m) => {
      if (m.type() === 'warning' || m.type() === 'error') said.push(`${m.type()}: ${m.text()}`);
    });
    await page.goto(lab.server.url);
    await page.getByTestId('app-header').waitFor();
    await page.getByTestId('pane-1-result').waitFor({ timeout: 30_000 });
    assert.deepEqual(said, []);
    await context.close();
  });
});
