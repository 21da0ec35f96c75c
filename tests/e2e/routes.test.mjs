// Views are addresses: Back and Forward move between them, the view follows
// the URL (typed, pasted or reloaded), and share links made by an earlier
// version of the lab (tests/fixtures/share-links.json) still open what they
// opened. Damaged links land on the landing page with one plain sentence.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, labSuite, openPage, waitForText } from './lib/lab.mjs';

const LINKS = JSON.parse(readFileSync(path.join(ROOT, 'tests/fixtures/share-links.json'), 'utf8'));
const DAMAGED =
  'This shared link is damaged (perhaps cut or changed when it was copied), so it cannot open. Ask whoever sent it for the link again.';
const VIEWS = ['replay', 'live', 'import', 'analyze', 'study', 'library'];

/** The one view shown now (its section is visible), and the URL's fragment. */
async function where(page) {
  const shown = [];
  for (const v of VIEWS) if (await page.getByTestId(`${v}-view`).isVisible()) shown.push(v);
  return { shown, hash: new URL(page.url()).hash };
}

async function expectView(page, view) {
  await page.getByTestId(`${view}-view`).waitFor({ state: 'visible' });
  // The address may settle a moment after the view (e.g. `#participate` with
  // no session in this browser is rewritten once the lookup ends).
  await page.waitForFunction((h) => location.hash === h, `#${view}`, { timeout: 5000 }).catch(() => {});
  const w = await where(page);
  assert.deepEqual(w.shown, [view], `only ${view} is shown`);
  assert.equal(w.hash, `#${view}`);
  assert.equal(await page.getByTestId(`tab-${view}`).getAttribute('aria-current'), 'page');
}

/** The app notice's sentence (without its Dismiss button). */
async function notice(page) {
  const text = await waitForText(page.getByTestId('app-notice'), /\S/);
  return text.replace(/\s*Dismiss\s*$/, '');
}

describe('views are routes', () => {
  const lab = labSuite();

  test('Back and Forward move between views; the view follows the URL; reload keeps it', async () => {
    const { page, context, problems } = await openPage(lab.browser, `${lab.server.url}#replay`);
    await expectView(page, 'replay');
    for (const v of ['live', 'import', 'study']) {
      await page.getByTestId(`tab-${v}`).click();
      await expectView(page, v);
    }
    await page.goBack();
    await expectView(page, 'import');
    await page.goBack();
    await expectView(page, 'live');
    await page.goForward();
    await expectView(page, 'import');
    // A URL typed or pasted over the open page switches the view.
    await page.goto(`${lab.server.url}#library`);
    await expectView(page, 'library');
    await page.reload();
    await page.getByTestId('app-header').waitFor();
    await expectView(page, 'library');
    await page.goBack();
    await expectView(page, 'import');
    // No fragment: the landing page over the replay view.
    await page.goto(lab.server.url);
    await page.getByTestId('landing').waitFor({ state: 'visible' });
    assert.deepEqual((await where(page)).shown, ['replay']);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('the fixture replay link opens its story, with the story\'s explanation', async () => {
    const { page, context, problems } = await openPage(lab.browser, `${lab.server.url}${LINKS.replay_story.fragment}`);
    assert.match(await notice(page), /^Opened the shared replay “.+”\.$/);
    await page.getByTestId('replay-view').waitFor({ state: 'visible' });
    const titles = (await page.locator('[data-testid^=pane-][data-testid$=-title]').allInnerTexts()).filter(Boolean);
    assert.deepEqual(titles, LINKS.replay_story.titles);
    assert.equal(await page.getByTestId('story-explanation').innerText(), LINKS.replay_story.explanation);
    await page.getByTestId('pane-1-result').waitFor({ timeout: 30_000 });
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('the fixture study link opens the participant flow; #participate returns to it', async () => {
    const { page, context, problems } = await openPage(lab.browser, `${lab.server.url}${LINKS.study.fragment}`);
    await page.getByTestId('participant-consent').waitFor();
    assert.match(await page.getByTestId('participant-consent').innerText(), new RegExp(LINKS.study.title.replace(/[()]/g, '\\$&')));
    await page.waitForFunction(() => location.hash === '#participate');
    await page.reload();
    await page.getByTestId('participant-consent').waitFor();
    // Back leaves the flow (the session stays); Forward returns to it.
    await page.goto(`${lab.server.url}#study`);
    await page.getByTestId('study-view').waitFor({ state: 'visible' });
    assert.equal(await page.getByTestId('participant').isVisible(), false);
    await page.goBack();
    await page.getByTestId('participant-consent').waitFor();
    // In a browser with no session, #participate opens the study view.
    const fresh = await openPage(lab.browser, `${lab.server.url}#participate`);
    await expectView(fresh.page, 'study');
    assert.deepEqual([...problems, ...fresh.problems], []);
    await context.close();
    await fresh.context.close();
  });

  test('a damaged link (garbage, cut, one character changed) lands on the landing page with one sentence', async () => {
    const good = LINKS.study.fragment;
    const mid = Math.floor(good.length / 2);
    const changed = good.slice(0, mid) + (good[mid] === 'A' ? 'B' : 'A') + good.slice(mid + 1);
    for (const fragment of ['#share=v1.garbage', good.slice(0, mid), changed, '#share=v1.']) {
      const { page, context, problems } = await openPage(lab.browser, `${lab.server.url}${fragment}`);
      assert.equal(await notice(page), DAMAGED, fragment);
      await page.getByTestId('landing').waitFor({ state: 'visible' });
      assert.equal(new URL(page.url()).hash, '', 'the damaged link is gone from the address');
      assert.deepEqual((await where(page)).shown, ['replay'], fragment);
      assert.equal(await page.getByTestId('participant').isVisible(), false);
      assert.deepEqual(problems, []);
      await context.close();
    }
  });
});
