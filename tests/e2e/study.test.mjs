// UX studies: a researcher designs a study of 3 conditions, a participant
// runs it end to end (blind), reloads mid-study and continues, and the
// exported CSV's rows and the summary statistics shown are checked against
// values computed here from the answers the test gave. Also: share links
// open a study and a replay preset; the library keeps runs across reloads;
// a participant finishes a trial with the keyboard alone, focus following
// every step, the page behind inert and each question announced.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, labSuite, openPage, setField, waitForText } from './lib/lab.mjs';

const LINKS = JSON.parse(readFileSync(path.join(ROOT, 'tests/fixtures/share-links.json'), 'utf8'));

const CONDITIONS = [
  { name: 'snappy', spec: 'ttft=80,tpot=8,tokens=12' },
  { name: 'slow start', spec: 'ttft=500,tpot=8,tokens=12' },
  { name: 'stutter', spec: 'ttft=80,tpot=30,jitter=gamma:1.0,tokens=12,seed=3' },
];

/** t quantile 0.975 for small degrees of freedom (tables). */
const T975 = { 1: 12.706204736, 2: 4.30265273, 3: 3.182446305, 4: 2.776445105, 5: 2.570581836 };

function binomTwoSided(k, n) {
  const pmf = (i) => {
    let c = 1;
    for (let j = 1; j <= i; j++) c = (c * (n - j + 1)) / j;
    return c / 2 ** n;
  };
  const pk = pmf(k);
  let p = 0;
  for (let i = 0; i <= n; i++) if (pmf(i) <= pk * (1 + 1e-7)) p += pmf(i);
  return Math.min(1, p);
}

function parseCsv(text) {
  const [header, ...rows] = text.trim().split('\n');
  const keys = header.split(',');
  return rows.map((line) => Object.fromEntries(line.split(',').map((v, i) => [keys[i], v])));
}

async function download(page, testId) {
  const [d] = await Promise.all([page.waitForEvent('download'), page.getByTestId(testId).click()]);
  return { text: readFileSync(await d.path(), 'utf8'), name: d.suggestedFilename() };
}

/** Plays the current trial and answers it; returns what was answered. */
async function answerTrial(page, k) {
  if (process.env.DEBUG_STUDY) console.log(k, JSON.stringify(await page.getByTestId('participant').innerText()));
  await page.getByTestId('trial-play').click();
  const q = page.getByTestId('participant').locator('fieldset[data-testid^=question-]');
  await q.first().waitFor({ timeout: 15_000 });
  const kind = await q.first().getAttribute('data-testid');
  await page.waitForTimeout(30);
  if (kind === 'question-rating') {
    const v = 1 + ((k * 5 + 3) % 7);
    await page.getByTestId(`rate-${v}`).click();
    return { block: 'rating', answer: String(v) };
  }
  const side = k % 3 === 0 ? 'B' : 'A';
  await page.getByTestId(side === 'A' ? 'choose-a' : 'choose-b').click();
  return { block: 'choice', answer: side };
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

describe('UX study', () => {
  const lab = labSuite();

  test('design 3 conditions, run as a participant with a reload, export CSV, check statistics', async () => {
    const { page, context, problems } = await openPage(lab.browser, `${lab.server.url}#study`);
    await page.getByTestId('study-view').waitFor();
    const savedIds = () => page.evaluate(() =>
      [...document.querySelectorAll('[data-testid="study-saved"] option')].map((o) => o.value).filter((v) => v && v !== '~new'));
    // The study the view opens on (the example on a first visit) is saved
    // as it loads: wait for it to be listed, or it lands after `before`.
    const opened = await page.getByTestId('study-id').inputValue();
    for (let t0 = Date.now(); !(await savedIds()).includes(opened); await new Promise((r) => setTimeout(r, 50))) {
      assert.ok(Date.now() - t0 < 5_000, `the opened study ${opened} is never listed: ${await savedIds()}`);
    }
    await page.getByTestId('study-saved').selectOption('~new');
    const before = await savedIds();
    await setField(page, 'study-title', 'E2E perception study');
    await setField(page, 'study-id', 'e2e');
    await setField(page, 'study-id', 'e2e-study');
    await setField(page, 'study-reps', 2);
    // Issue 44: a title typed before the id left the new study saved twice
    // (under its first id too). Typing the id renames it: one new entry.
    // (Saves are written as typed: wait for the list the last one leaves,
    // and say what it held if it never comes.)
    const oneAdded = (ids) => {
      const added = ids.filter((id) => !before.includes(id));
      return added.length === 1 && added[0] === 'e2e-study';
    };
    for (let t0 = Date.now(); !oneAdded(await savedIds()); await new Promise((r) => setTimeout(r, 50))) {
      assert.ok(Date.now() - t0 < 5_000, `saved studies added: ${(await savedIds()).filter((id) => !before.includes(id))}`);
    }
    // Start from one condition more than needed, then remove it.
    await page.getByTestId('condition-add').click();
    assert.equal(await page.getByTestId('condition-row').count(), 4);
    await page.getByTestId('condition-remove').last().click();
    for (const [i, c] of CONDITIONS.entries()) {
      await page.getByTestId('condition-name').nth(i).fill(c.name);
      await page.getByTestId('condition-name').nth(i).blur();
      await page.getByTestId('condition-spec').nth(i).fill(c.spec);
      await page.getByTestId('condition-spec').nth(i).blur();
    }
    assert.equal(await page.getByTestId('condition-row').count(), 3);
    // An invalid spec is explained, then fixed.
    await page.getByTestId('condition-spec').nth(0).fill('ttft=fast');
    await page.getByTestId('condition-spec').nth(0).blur();
    await waitForText(page.getByTestId('study-invalid'), /snappy/);
    await page.getByTestId('condition-spec').nth(0).fill(CONDITIONS[0].spec);
    await page.getByTestId('condition-spec').nth(0).blur();
    const plan = await waitForText(page.getByTestId('study-plan'), /18 trial/);
    assert.match(plan, /6 single sample\(s\) to rate and 12 A\/B pair/);
    // The study file has what was designed.
    const studyFile = JSON.parse((await download(page, 'study-download')).text);
    assert.equal(studyFile.id, 'e2e-study');
    assert.deepEqual(studyFile.conditions.map((c) => c.source.profile), CONDITIONS.map((c) => c.spec));

    // Participant: consent (declined first: issue 44, only "I agree" was
    // offered), instructions, trials.
    await page.getByTestId('study-run').click();
    await page.getByTestId('consent-decline').click();
    assert.match(await page.getByTestId('participant-declined').innerText(), /nothing was recorded/);
    assert.equal(await page.getByTestId('participant-begin').count(), 0, 'no way on to the trials after declining');
    await page.getByTestId('consent-again').click();
    await page.getByTestId('consent-accept').click();
    await page.getByTestId('participant-begin').click();
    const given = [];
    const blindText = async () => page.getByTestId('participant').innerText();
    for (let k = 0; k < 7; k++) {
      given.push(await answerTrial(page, k));
      const text = await blindText();
      for (const c of CONDITIONS) {
        assert.ok(!text.includes(c.name) && !text.includes(c.spec), `participant saw "${c.name}"`);
      }
    }
    await waitForText(page.getByTestId('participant-progress'), /^7 of 18 done/);
    // The page says when the last answer is committed to IndexedDB.
    await waitForText(page.getByTestId('participant-saved'), /^saved$/);
    // Reload mid-study: back at trial 8 with 7 answers kept.
    await page.reload();
    await page.getByTestId('participant-resume').waitFor();
    assert.match(await page.getByTestId('participant-resume').innerText(), /7 of 18 done/);
    await page.getByTestId('participant-continue').click();
    for (let k = 7; k < 18; k++) given.push(await answerTrial(page, k));
    await page.getByTestId('participant-done').waitFor();
    const mine = JSON.parse((await download(page, 'participant-download')).text);
    assert.equal(mine.format, 'latency-lab/study-results');
    assert.equal(mine.responses.length, 18);
    await page.getByTestId('participant-close').click();

    // Results: CSV rows are the answers given, in trial order.
    await page.getByTestId('results-refresh').click();
    // The researcher's own run is a test session: left out until asked for.
    await waitForText(page.getByTestId('results-tests'), /Count my 1 test run/);
    await waitForText(page.getByTestId('results-participants'), /^0 participant\(s\), 0 answer/);
    await page.getByTestId('results-include-tests').check();
    await waitForText(page.getByTestId('results-participants'), /^1 participant\(s\), 18 answer/);
    const csv = parseCsv((await download(page, 'results-csv')).text);
    assert.equal(csv.length, 18);
    const byTrial = [...csv].sort((a, b) => a.trial - b.trial);
    byTrial.forEach((row, k) => {
      assert.equal(row.study, 'e2e-study');
      assert.equal(row.block, given[k].block, `trial ${k}`);
      assert.equal(row.answer, given[k].answer, `trial ${k}`);
      assert.ok(Number(row.rt_ms) > 0 && Number(row.rt_ms) < 60_000, `rt ${row.rt_ms}`);
    });
    // Every condition rated twice; every ordered pair once per repetition.
    const ids = ['c1', 'c2', 'c3'];
    for (const id of ids) {
      const ratings = csv.filter((r) => r.block === 'rating' && r.condition === id).map((r) => Number(r.answer));
      assert.equal(ratings.length, 2, id);
      const n = ratings.length;
      const mean = ratings.reduce((a, b) => a + b, 0) / n;
      const sd = Math.sqrt(ratings.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1));
      const half = T975[n - 1] * (sd / Math.sqrt(n));
      const row = page.locator(`[data-testid=rating-row][data-condition=${id}]`);
      assert.equal(await row.getByTestId('rating-n').innerText(), String(n));
      assert.ok(Math.abs(Number(await row.getByTestId('rating-mean').innerText()) - mean) <= 0.005 + 1e-9);
      const ciText = await row.getByTestId('rating-ci').innerText();
      const ci = ciText.match(/^(-?[\d.]+) – (-?[\d.]+)/).slice(1).map(Number);
      // Shown on the 1–7 scale: clipped at its ends, and flagged when
      // wider than the whole scale (n = 2 here: t = 12.7).
      const [low, high] = [Math.max(1, mean - half), Math.min(7, mean + half)];
      assert.ok(Math.abs(ci[0] - low) <= 0.005 + 1e-9, `${id} CI low ${ci[0]} vs ${low}`);
      assert.ok(Math.abs(ci[1] - high) <= 0.005 + 1e-9, `${id} CI high ${ci[1]} vs ${high}`);
      assert.equal(/clipped to the scale/.test(ciText), mean - half < 1 || mean + half > 7, ciText);
      assert.equal(/uninformative at n = 2/.test(ciText), 2 * half > 6, ciText);
    }
    for (let a = 0; a < 3; a++) {
      for (let b = a + 1; b < 3; b++) {
        const [ia, ib] = [ids[a], ids[b]];
        const rows = csv.filter((r) => r.block === 'choice' && [r.condition, r.condition_b].sort().join() === [ia, ib].join());
        assert.equal(rows.length, 4, `${ia}/${ib}`);
        const aChosen = rows.filter((r) => r.chosen_condition === ia).length;
        const row = page.locator(`[data-testid=choice-row][data-pair=${ia}-${ib}]`);
        assert.equal(await row.getByTestId('choice-n').innerText(), '4');
        assert.equal(await row.getByTestId('choice-a').innerText(), String(aChosen));
        const shown = await row.getByTestId('choice-p').innerText();
        assert.ok(Math.abs(Number(shown) - binomTwoSided(aChosen, 4)) <= 0.0005 + 1e-9, `p ${shown}`);
      }
    }
    const left = csv.filter((r) => r.block === 'choice' && r.answer === 'A').length;
    assert.match(await page.getByTestId('results-left').innerText(), new RegExp(`chosen ${((left / 12) * 100).toFixed(1)}%`));
    // Merging the participant's own file adds nobody twice.
    await page.getByTestId('results-merge').setInputFiles({
      name: 'p1.results.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(mine)),
    });
    await waitForText(page.getByTestId('results-message'), /18 answer\(s\) of 1 participant\(s\) merged/);
    await waitForText(page.getByTestId('results-participants'), /^1 participant\(s\), 18 answer/);
    // A second participant's file (same answers, another id) doubles n.
    const other = { ...mine, responses: mine.responses.map((r) => ({ ...r, participant: 'p-other' })) };
    await page.getByTestId('results-merge').setInputFiles({
      name: 'p2.results.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(other)),
    });
    await waitForText(page.getByTestId('results-participants'), /^2 participant\(s\), 36 answer/);
    assert.equal(await page.getByTestId('participant-row').count(), 2);
    const report = await download(page, 'results-report');
    assert.match(report.text, /^<!doctype html>/);
    assert.match(report.text, /2 participant\(s\)/);
    // The answers are in the library too.
    await page.getByTestId('tab-library').click();
    await page.locator('[data-testid=library-row][data-kind=study]').first().waitFor();
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('conditions that differ in length or text are flagged and can be made equal', async () => {
    const { page, context, problems } = await openPage(lab.browser, `${lab.server.url}#study`);
    await page.getByTestId('study-saved').selectOption('~new');
    assert.equal(await page.getByTestId('study-confounds').count(), 0, 'the example differs only in latency');
    // The "jittery" preset: 150 tokens of the article beside two 60-token chat answers.
    await page.getByTestId('condition-preset').nth(2).selectOption('jittery');
    await waitForText(page.getByTestId('study-confounds'), /c3: 150 tokens/);
    assert.match(await page.getByTestId('study-confounds').innerText(), /c3: article.*streams the study's text \(chat\)/s);
    await page.getByTestId('study-equalise').click();
    await page.getByTestId('study-confounds').waitFor({ state: 'detached' });
    const spec = await page.getByTestId('condition-spec').nth(2).inputValue();
    assert.match(spec, /jitter=gamma:1\.2/, 'the latency is kept');
    assert.match(spec, /tokens=60,/);
    assert.match(spec, /text=chat/);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("a link shared the moment the view opens is the saved study's, and stays", async () => {
    // The draft is the example until the study open last time is read: a
    // link shared before that read was the example's, and the read cleared it.
    const { page, context, problems } = await openPage(lab.browser, `${lab.server.url}#study`);
    await page.getByTestId('study-saved').selectOption('~new');
    await setField(page, 'study-title', 'Kept study');
    await page.locator('[data-testid=study-saved] option', { hasText: 'Kept study' }).waitFor({ state: 'attached' });
    // The read is made slow, as on a busy machine: the studies' store is held
    // by a write for 600 ms from the page's start.
    await page.addInitScript(() => {
      window.__studiesHeld = true;
      const open = indexedDB.open('latency-lab');
      open.onsuccess = () => {
        const db = open.result;
        const tx = db.transaction('studies', 'readwrite');
        const store = tx.objectStore('studies');
        const until = performance.now() + 600;
        const spin = () => { if (performance.now() < until) store.get('~held').onsuccess = spin; };
        spin();
        tx.oncomplete = () => { db.close(); window.__studiesHeld = false; };
      };
    });
    await page.reload();
    await page.getByTestId('study-share').click();
    const link = await page.getByTestId('study-link').inputValue();
    await page.waitForFunction(() => window.__studiesHeld === false);
    await page.waitForTimeout(100); // the read after the hold, and what it sets
    assert.equal(await page.getByTestId('study-link').inputValue({ timeout: 1000 }), link);
    const fresh = await openPage(lab.browser, link);
    await waitForText(fresh.page.getByTestId('participant-consent'), /Kept study/);
    assert.deepEqual([...problems, ...fresh.problems], []);
    await fresh.context.close();
    await context.close();
  });

  test('a study link opens straight into the participant flow', async () => {
    const { page, context, problems } = await openPage(lab.browser, `${lab.server.url}#study`);
    await page.getByTestId('study-saved').selectOption('~new');
    await setField(page, 'study-title', 'Linked study');
    for (let i = 0; i < 3; i++) {
      await page.getByTestId('condition-spec').nth(i).fill(`ttft=${40 + 30 * i},tpot=5,jitter=constant,tokens=8,text=chat`);
      await page.getByTestId('condition-spec').nth(i).blur();
    }
    await page.getByTestId('study-share').click();
    const link = await page.getByTestId('study-link').inputValue();
    assert.match(link, /#share=v1\.[A-Za-z0-9_-]+$/);
    assert.ok(!/key|bearer/i.test(link));
    await context.close();
    const fresh = await openPage(lab.browser, link);
    await fresh.page.getByTestId('participant-consent').waitFor();
    assert.match(await fresh.page.getByTestId('participant-consent').innerText(), /Linked study/);
    // The participant finishes; opening the link again says it is done.
    await fresh.page.getByTestId('consent-accept').click();
    await fresh.page.getByTestId('participant-begin').click();
    for (let k = 0; k < 9; k++) await answerTrial(fresh.page, k);
    await fresh.page.getByTestId('participant-done').waitFor();
    await fresh.page.goto(link);
    await fresh.page.getByTestId('participant-done').waitFor();
    await waitForText(fresh.page.getByTestId('participant-receipt'), /finished this study.*saved in this browser/);
    assert.match(await fresh.page.getByTestId('participant-progress').innerText(), /^9 of 9 done/);
    // A damaged link says so instead of failing silently.
    const broken = await openPage(lab.browser, `${lab.server.url}#share=v1.AAAA`);
    await waitForText(broken.page.getByTestId('app-notice'), /damaged/);
    assert.deepEqual([...problems, ...fresh.problems, ...broken.problems], []);
    await fresh.context.close();
    await broken.context.close();
  });

  test('a replay link opens the same panes; the library keeps runs across a reload', async () => {
    const { page, context, problems } = await openPage(lab.browser, `${lab.server.url}#replay`);
    await page.getByTestId('story-jitter').click();
    // Panes of one's own (a story as the lab tells it is not kept in the library).
    await page.getByTestId('pane-0-source').selectOption('profile:smooth');
    await page.getByTestId('replay-share').click();
    const link = await page.getByTestId('replay-link').inputValue();
    // The slots in use have titles; unused slots are empty.
    const shownTitles = async (p) => (await p.locator('[data-testid^=pane-][data-testid$=-title]').allInnerTexts()).filter((t) => t.trim());
    const titles = await shownTitles(page);
    assert.equal(titles.length, 2, `the story's pane titles: ${JSON.stringify(titles)}`);
    const fresh = await openPage(lab.browser, link);
    await waitForText(fresh.page.getByTestId('app-notice'), /Opened the shared replay/);
    const freshTitles = await shownTitles(fresh.page);
    assert.deepEqual(freshTitles, titles);
    // Finished replays are in the library and stay after a reload.
    await fresh.page.getByTestId('pane-1-result').waitFor({ timeout: 30_000 });
    await fresh.page.getByTestId('tab-library').click();
    await fresh.page.getByTestId('library-group-toggle').click({ timeout: 20_000 });
    await fresh.page.locator('[data-testid=library-row][data-kind=replay]').first().waitFor({ timeout: 20_000 });
    const n = await fresh.page.locator('[data-testid=library-row]').count();
    const name = fresh.page.getByTestId('library-name').first();
    await name.fill('renamed run');
    await name.blur();
    const tagsBox = fresh.page.getByTestId('library-tags').first();
    await tagsBox.fill('Demo, GPU-A');
    await tagsBox.blur();
    await fresh.page.waitForTimeout(300);
    await fresh.page.goto(`${lab.server.url}#library`);
    const toggle = fresh.page.getByTestId('library-group-toggle');
    if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
    await fresh.page.locator('[data-testid=library-row]').first().waitFor();
    assert.ok((await fresh.page.locator('[data-testid=library-row]').count()) >= n);
    const names = await fresh.page.getByTestId('library-name').evaluateAll((els) => els.map((e) => e.value));
    assert.ok(names.includes('renamed run'), JSON.stringify(names));
    const tags = await fresh.page.getByTestId('library-tags').evaluateAll((els) => els.map((e) => e.value));
    assert.ok(tags.includes('demo, gpu-a'), JSON.stringify(tags));
    assert.deepEqual([...problems, ...fresh.problems], []);
    await context.close();
    await fresh.context.close();
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
    // The question itself takes the focus, not its first answer: a stray
    // Enter records nothing (issue 44: it recorded "1 (very sluggish)").
    const first = (await page.getByTestId('question-rating').count()) > 0 ? 'question-rating' : 'question-choice';
    await focusIs(page, first);
    // Answer every question of the trial from the keyboard.
    for (let q = 0; q < 4; q++) {
      const f = await focused(page);
      const legend = await page.locator('[data-testid=participant] fieldset.question legend').innerText();
      await page.keyboard.press('Enter');
      await page.waitForTimeout(150);
      assert.equal((await focused(page)).id, f.id, 'a stray Enter on the question answers nothing');
      assert.equal(await page.locator('[data-testid=participant] fieldset.question legend').innerText(), legend, 'still the same question');
      await page.keyboard.press('Tab');
      if (f.id === 'question-rating') {
        for (let t = 0; t < 3; t++) await page.keyboard.press('Tab');
        assert.equal((await focused(page)).id, 'rate-4');
      } else {
        assert.equal((await focused(page)).id, 'choose-a');
      }
      await page.keyboard.press('Enter');
      const answered = f.id === 'question-rating' ? 'rate-4' : 'choose-a';
      await page.waitForFunction((was) => document.activeElement?.dataset?.testid !== was || !document.activeElement.isConnected, answered).catch(() => {});
      await page.waitForTimeout(100);
      const next = await focused(page);
      assert.ok(next.inOverlay, `after answering, focus is in the overlay (${next.id})`);
      if (next.id === 'trial-play' || next.id === 'participant-download') break;
      assert.ok(['question-rating', 'question-choice'].includes(next.id), `the next question takes the focus (${next.id})`);
    }
    assert.match(await focused(page).then((f) => f.id), /^(trial-play|participant-download)$/);
    assert.match(await page.getByTestId('participant-progress').innerText(), /^1 of \d+ done$/);
    assert.equal(page.url(), url.replace(/#.*/, '#participate'), 'keys on hidden tabs did not change the URL');
    assert.deepEqual(problems, []);
    await context.close();
  });
});
