// The participant's side of UX and threshold studies, written once for
// every browser's adapter (`suites.mjs`: `open(browser, url)` → `{ page,
// close, problems }`, where the page also has `reload()`).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { labSuite } from './lab.mjs';
import { click, download, text, visible, waitFor, waitText } from './dom.mjs';

/** Plays the current trial and answers it. */
export async function answerTrial(page, k) {
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

/** Publishes `study` on the suite's server; returns its id and the researcher's auth header. */
async function publish(lab, study) {
  const token = readFileSync(path.join(lab.server.dir, 'data', 'researcher-token'), 'utf8').trim();
  const auth = { Authorization: `Bearer ${token}` };
  const published = await fetch(`${lab.server.url}api/studies`, { method: 'POST', headers: auth, body: JSON.stringify(study) });
  assert.equal(published.status, 201);
  return { ...(await published.json()), auth };
}

/**
 * A participant in `name`'s browser: the default study run blind with a
 * reload; a study published on the server, each answer reaching it, reload
 * and all; a threshold study whose pairs on the server are the ones the
 * browser played. `engine` is how answers name the browser's engine
 * (`gecko`, `webkit`): each answer on the server carries it, with the
 * release path its trial took.
 */
export function participantSuite({ name, engine, launch, open }) {
  describe(`UX study participant (${name})`, () => {
    const lab = labSuite([], launch);

    test('a participant runs a study blind, reloads, resumes and finishes', async () => {
      const { page, close, problems } = await open(lab.browser, `${lab.server.url}#study`);
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
      assert.deepEqual(await problems(), []);
      await close();
    });

    test('a participant of a study published on the server: each answer reaches the server, reload and all', async () => {
      const study = {
        schema_version: 1, id: `${name.toLowerCase()}-server`, title: `${name} server study`, instructions: 'Watch, then answer.', consent: 'I agree.', text: 'chat',
        conditions: [40, 160, 320].map((ttft, i) => ({ id: `c${i + 1}`, name: `secret-${i}`, source: { profile: `ttft=${ttft},tpot=5,jitter=constant,tokens=8` } })),
        questions: [{ kind: 'rating', id: 'responsive', prompt: 'How responsive?', points: 5, low: 'slow', high: 'fast' }],
        repetitions: 1, order: { kind: 'latin_square' },
      };
      const { id, auth } = await publish(lab, study);
      const { page, close, problems } = await open(lab.browser, `${lab.server.url}s/${id}`);
      // What the browser can show is said before consent.
      const said = await waitText(page, 'participant-timing', /can play the samples with precise timing|cannot play/, 15_000);
      await click(page, 'consent-accept');
      await click(page, 'participant-begin');
      await answerTrial(page, 0);
      await waitText(page, 'participant-server', /^\d+ answer\(s\) saved to the study server$/);
      await page.reload();
      await waitFor(page, 'participant-resume');
      await click(page, 'participant-continue');
      for (let k = 1; k < 3; k++) await answerTrial(page, k);
      await waitFor(page, 'participant-done');
      await waitText(page, 'participant-receipt', /All 3 answers are saved to the study server/);
      assert.ok(!(await page.evaluate(() => document.body.innerText)).includes('secret-'), 'no condition name reaches the participant');
      const res = await (await fetch(`${lab.server.url}api/studies/${id}/results`, { headers: auth })).json();
      assert.equal(res.responses.length, 3);
      assert.equal(new Set(res.responses.map((r) => r.trial)).size, 3);
      for (const r of res.responses) {
        assert.equal(r.timing?.engine, engine, JSON.stringify(r));
        assert.equal(r.timing.isolated, true, JSON.stringify(r));
        assert.equal(r.timing.scheduler, 'workers', `released by the release-clock workers: ${JSON.stringify(r)}`);
      }
      assert.match(said, /can play the samples with precise timing/, said);
      assert.deepEqual(await problems(), []);
      await close();
    });

    test(`a threshold study in ${name}: pairs on the server are the ones the browser played, reload and all`, async () => {
      const study = {
        schema_version: 1, id: `${name.toLowerCase()}-pace`, title: 'Pace', instructions: 'Pick the faster one.', text: 'chat',
        conditions: [], questions: [{ kind: 'choice', id: 'pick', prompt: 'Which one felt faster?' }],
        repetitions: 1, order: { kind: 'latin_square' },
        threshold: { dimension: 'pace', reference: 'ttft=40,tpot=20,jitter=constant,tokens=8', range: [2, 120], procedure: { kind: 'psi', trials: 12 }, seed: 5 },
      };
      const { id, auth } = await publish(lab, study);
      const { page, close, problems } = await open(lab.browser, `${lab.server.url}s/${id}`);
      await click(page, 'participant-begin');
      // An observer who times each pane from its first to its last text and
      // picks the one that finished its tokens sooner (blind: the screen only).
      const pair = async (k) => {
        await waitFor(page, 'trial-play', 15_000);
        await page.evaluate(() => {
          window.__t = [[], []];
          window.__w?.forEach((o) => o.disconnect());
          window.__w = [0, 1].map((i) => {
            const o = new MutationObserver(() => window.__t[i].push(performance.now()));
            o.observe(document.querySelector(`[data-testid=trial-output-${i}]`), { childList: true, subtree: true, characterData: true });
            return o;
          });
        });
        await click(page, 'trial-play');
        await waitFor(page, 'question-choice', 15_000);
        const [a, b] = await page.evaluate(() => window.__t.map((t) => t.at(-1) - t[0]));
        await click(page, (a <= b) === (k % 5 !== 4) ? 'choose-a' : 'choose-b');
        await waitText(page, 'participant-progress', new RegExp(`^${k + 1} done \\(at most 12\\)`));
      };
      for (let k = 0; k < 5; k++) await pair(k);
      await waitText(page, 'participant-server', /^\d+ answer\(s\) saved to the study server$/);
      await page.reload();
      await waitFor(page, 'participant-resume');
      await click(page, 'participant-continue');
      for (let k = 5; k < 12; k++) await pair(k);
      await waitFor(page, 'participant-done');
      await waitText(page, 'participant-receipt', /All 12 answers are saved to the study server/);
      const mine = JSON.parse(await download(page, 'participant-download'));
      const res = await (await fetch(`${lab.server.url}api/studies/${id}/results`, { headers: auth })).json();
      const shown = (r) => [r.trial, r.conditions.join('/'), r.answer.choice];
      const byTrial = (a, b) => a.trial - b.trial;
      const [theirs, ours] = [res.responses.sort(byTrial), mine.responses.sort(byTrial)];
      assert.deepEqual(theirs.map(shown), ours.map(shown), 'the server rebuilt every pair the browser played');
      // Levels agree to rounding (the server's native ln/exp and the page's wasm may differ in the last bits).
      theirs.forEach((r, i) => assert.ok(Math.abs(r.level - ours[i].level) <= 1e-9 * r.level, `trial ${i}: ${r.level} vs ${ours[i].level}`));
      assert.ok(mine.responses.every((r) => r.level >= 2 && r.level <= 120), 'levels within the range');
      assert.deepEqual(await problems(), []);
      await close();
    });
  });
}
