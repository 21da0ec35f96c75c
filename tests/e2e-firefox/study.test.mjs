// Firefox: a participant runs the default study blind, reloads mid-study,
// resumes where they were and finishes; their results file holds every
// answer once.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { firefoxSuite, openFirefoxPage } from '../e2e/lib/firefox.mjs';
import { click, download, text, visible, waitFor, waitText } from '../e2e/lib/dom.mjs';

/** Plays the current trial and answers it. */
async function answerTrial(page, k) {
  await click(page, 'trial-play');
  const deadline = Date.now() + 15_000;
  let kind = null;
  while (!kind) {
    if (Date.now() > deadline) throw new Error(`trial ${k}: no question appeared`);
    kind = await page.evaluate(() => document.querySelector('[data-testid=participant] fieldset[data-testid^=question-]')?.dataset.testid ?? null);
    if (!kind) await sleep(25);
  }
  await click(page, kind === 'question-rating' ? `rate-${1 + (k % 7)}` : k % 2 ? 'choose-b' : 'choose-a');
}

describe('UX study participant (Firefox)', () => {
  const lab = firefoxSuite();

  test('a participant runs a study blind, reloads, resumes and finishes', async () => {
    const { page, context, problems } = await openFirefoxPage(lab.browser, `${lab.server.url}#study`);
    await waitFor(page, 'study-view');
    await click(page, 'study-run');
    await click(page, 'consent-accept');
    await click(page, 'participant-begin');
    const total = Number((await waitText(page, 'participant-progress', /^0 of \d+ done/)).match(/of (\d+)/)[1]);
    assert.ok(total >= 4, `${total} trials`);
    for (let k = 0; k < 2; k++) await answerTrial(page, k);
    await waitText(page, 'participant-progress', /^2 of \d+ done/);
    await waitText(page, 'participant-saved', /^saved$/);
    await page.reload();
    await waitFor(page, 'participant-resume');
    assert.match(await text(page, 'participant-resume'), new RegExp(`2 of ${total} done`));
    await click(page, 'participant-continue');
    for (let k = 2; k < total; k++) await answerTrial(page, k);
    await waitFor(page, 'participant-done');
    const mine = JSON.parse(await download(page, 'participant-download'));
    assert.equal(mine.format, 'latency-lab/study-results');
    assert.equal(mine.responses.length, total);
    assert.equal(new Set(mine.responses.map((r) => r.trial)).size, total, 'each trial answered once');
    assert.ok(await visible(page, 'participant-close'));
    assert.deepEqual(problems, []);
    await context.close();
  });
});
