// Defects found walking the app as a new user (issue 13, item 9), each
// pinned: a report made while a run records says it is partial and never
// doubles a scenario's name; parser wording never reaches people; an import
// error card goes when a later import succeeds; no console warning on load;
// a participant completes a trial with the keyboard alone, focus following
// every step, the page behind inert and each question announced.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, labSuite, openPage, setField, waitForText } from './lib/lab.mjs';

const LINKS = JSON.parse(readFileSync(path.join(ROOT, 'tests/fixtures/share-links.json'), 'utf8'));
const VLLM = path.join(ROOT, 'tests/fixtures/import/vllm_bench_serve.json');

/** Drops named texts on the import view's dropzone. */
async function drop(page, files) {
  const dt = await page.evaluateHandle((items) => {
    const d = new DataTransfer();
    for (const { name, text } of items) d.items.add(new File([text], name, { type: 'application/json' }));
    return d;
  }, files);
  await page.locator('[data-testid=import-view] .dropzone').dispatchEvent('drop', { dataTransfer: dt });
}

/** Where the keyboard focus is: its test id (or tag) and whether it is inside the participant overlay. */
function focused(page) {
  return page.evaluate(() => {
    const el = document.activeElement;
    return {
      id: el?.dataset?.testid ?? el?.tagName?.toLowerCase() ?? null,
      inOverlay: !!el?.closest('[data-testid=participant]'),
    };
  });
}

async function focusIs(page, testId) {
  await page.waitForFunction((id) => document.activeElement?.dataset?.testid === id, testId, { timeout: 15_000 })
    .catch(() => {});
  const f = await focused(page);
  assert.equal(f.id, testId, `focus on ${testId}`);
  assert.ok(f.inOverlay, 'focus stays in the participant overlay');
}

describe('defects of a first walk through the app', () => {
  const lab = labSuite();

  test('a report made while a run records says it is partial; scenario names are not doubled', async () => {
    const { page, context, problems } = await openPage(lab.browser, `${lab.server.url}#live`);
    await setField(page, 'model', 'profile:ttft=100,tpot=40,tokens=300');
    await page.getByTestId('start').click();
    await waitForText(page.getByTestId('live-tokens').or(page.getByTestId('run-status')), /\S/);
    await page.waitForTimeout(1500);
    await page.getByTestId('tab-library').click();
    const row = page.locator('[data-testid=library-row][data-kind=live][data-status=recording]');
    await row.first().waitFor({ timeout: 10_000 });
    const [d] = await Promise.all([page.waitForEvent('download'), row.first().getByTestId('library-report').click()]);
    const html = readFileSync(await d.path(), 'utf8');
    assert.match(html, /Partial: this run was still recording/);
    assert.match(html, /Requests<\/th><td>1 \(0 completed, 0 failed, 1 still streaming when saved\)/);
    for (const name of ['Interactive chat', 'Code completion', 'Agent / RAG', 'Batch generation', 'Long streaming text']) {
      assert.ok(!html.includes(`${name}: ${name}`), `"${name}" is not doubled`);
    }
    await page.getByTestId('tab-live').click();
    await page.getByTestId('stop').click();
    await waitForText(page.getByTestId('run-status'), /^Stopped/);
    assert.deepEqual(problems, []);
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

  test('an import error card goes when a later import succeeds', async () => {
    const { page, context, problems } = await openPage(lab.browser, `${lab.server.url}#import`);
    await drop(page, [{ name: 'broken.json', text: '{"backend": "vllm", "ttfts": [' }]);
    await waitForText(page.getByTestId('import-error').first(), /cannot be read/);
    await drop(page, [{ name: path.basename(VLLM), text: readFileSync(VLLM, 'utf8') }]);
    await page.getByTestId('import-run').first().waitFor({ timeout: 15_000 });
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=import-error]').length === 0);
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

  test('a participant finishes a trial with the keyboard alone; focus follows; the page behind is inert', async () => {
    const { page, context, problems } = await openPage(lab.browser, `${lab.server.url}${LINKS.study.fragment}`);
    await page.getByTestId('participant-consent').waitFor();
    assert.equal(await page.locator('.app-page').evaluate((el) => el.inert), true, 'the page behind is inert');
    const announce = page.getByTestId('participant-announce');
    await focusIs(page, 'consent-accept');
    await waitForText(announce, /please read the consent/);
    // Tabbing never leaves the overlay for the hidden header and tabs.
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press('Tab');
      const f = await focused(page);
      assert.ok(f.inOverlay || f.id === 'body', `Tab ${i + 1} reached ${f.id} behind the overlay`);
    }
    await page.getByTestId('consent-accept').focus();
    const url = page.url();
    await page.keyboard.press('Enter');
    await focusIs(page, 'participant-begin');
    await waitForText(announce, /instructions/);
    await page.keyboard.press('Enter');
    await focusIs(page, 'trial-play');
    await waitForText(announce, /press Play/);
    await page.keyboard.press('Enter');
    await waitForText(announce, /is playing/);
    // The question appears when the samples finish; it takes the focus.
    await page.locator('[data-testid=participant] fieldset.question').waitFor({ timeout: 30_000 });
    const question = await page.locator('[data-testid=participant] fieldset.question legend').innerText();
    await waitForText(announce, new RegExp(question.replace(/[?()]/g, '\\$&')));
    const first = (await page.getByTestId('question-rating').count()) > 0 ? 'rate-1' : 'choose-a';
    await focusIs(page, first);
    // Answer every question of the trial from the keyboard.
    for (let q = 0; q < 4; q++) {
      const f = await focused(page);
      if (f.id === 'rate-1') {
        await page.keyboard.press('Tab');
        await page.keyboard.press('Tab');
        await page.keyboard.press('Tab');
        assert.equal((await focused(page)).id, 'rate-4');
      }
      await page.keyboard.press('Enter');
      await page.waitForFunction((was) => document.activeElement?.dataset?.testid !== was || !document.activeElement.isConnected, f.id).catch(() => {});
      await page.waitForTimeout(100);
      const next = await focused(page);
      assert.ok(next.inOverlay, `after answering, focus is in the overlay (${next.id})`);
      if (next.id === 'trial-play' || next.id === 'participant-download') break;
      assert.ok(['rate-1', 'choose-a'].includes(next.id), `the next question takes the focus (${next.id})`);
    }
    assert.match(await focused(page).then((f) => f.id), /^(trial-play|participant-download)$/);
    assert.match(await page.getByTestId('participant-progress').innerText(), /^1 of \d+ done$/);
    assert.equal(page.url(), url.replace(/#.*/, '#participate'), 'keys on hidden tabs did not change the URL');
    assert.deepEqual(problems, []);
    await context.close();
  });
});
