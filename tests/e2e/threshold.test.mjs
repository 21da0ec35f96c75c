// Threshold studies: a researcher designs a TTFT threshold study (Psi
// method) in the designer; a participant completes it as a simulated
// observer of a known psychometric function, who watches both panes,
// measures when each one's first text appears (blind: only what is on
// screen) and picks the faster one with the probability the function
// gives for the difference seen. The results view must show a pooled
// threshold whose 95% interval holds the observer's true threshold; turning
// it into a scenario must change the chat score of a fixture trace exactly
// as the new tiers imply.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { download } from './lib/dom.mjs';
import { labSuite, openPage, setField, waitForText } from './lib/lab.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const FIXTURE = path.join(ROOT, 'tests/fixtures/hand.trace.json');

/** The simulated observer: logistic in log x, guess 0.5, lapse 0.02. */
const TRUTH = { alpha: 80, beta: 3, lapse: 0.02 };
const pCorrect = (x) => (x <= 0 ? 0.5 : 0.5 + (0.5 - TRUTH.lapse) / (1 + (x / TRUTH.alpha) ** -TRUTH.beta));

/** A seeded uniform generator (mulberry32), so a run is reproducible. */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Watches both panes: the page time each one first shows text. */
async function watchPanes(page) {
  await page.evaluate(() => {
    window.__firstText = [null, null];
    window.__watch?.forEach((o) => o.disconnect());
    window.__watch = [0, 1].map((i) => {
      const el = document.querySelector(`[data-testid=trial-output-${i}]`);
      const o = new MutationObserver(() => {
        if (window.__firstText[i] === null && el.textContent.trim() !== '') window.__firstText[i] = performance.now();
      });
      o.observe(el, { childList: true, subtree: true, characterData: true });
      return o;
    });
  });
}

/**
 * Watches both panes for their longest pause: the page time of every
 * change of text, so the observer can tell which one stalled.
 */
async function watchPauses(page) {
  await page.evaluate(() => {
    window.__changes = [[], []];
    window.__watch?.forEach((o) => o.disconnect());
    window.__watch = [0, 1].map((i) => {
      const el = document.querySelector(`[data-testid=trial-output-${i}]`);
      const o = new MutationObserver(() => window.__changes[i].push(performance.now()));
      o.observe(el, { childList: true, subtree: true, characterData: true });
      return o;
    });
  });
}

/** The longest gap between text changes of each pane (ms). */
async function longestPauses(page) {
  return page.evaluate(() =>
    window.__changes.map((t) => t.slice(1).reduce((m, v, i) => Math.max(m, v - t[i]), 0)),
  );
}

/** Log-linear interpolation between tiers, as `score::interpolate`. */
function interpolate(tiers, v) {
  if (v <= tiers[0].at) return tiers[0].score;
  if (v >= tiers.at(-1).at) return tiers.at(-1).score;
  for (let i = 1; i < tiers.length; i++) {
    const [a, b] = [tiers[i - 1], tiers[i]];
    if (v <= b.at) return a.score + ((b.score - a.score) * Math.log(v / a.at)) / Math.log(b.at / a.at);
  }
  return tiers.at(-1).score;
}

describe('threshold study', () => {
  const lab = labSuite();

  test("a simulated observer's TTFT threshold is found, and becomes chat tiers", async () => {
    const { page, problems } = await openPage(lab.browser, `${lab.server.url}#study`);
    await page.getByTestId('study-view').waitFor();
    await page.getByTestId('study-saved').selectOption('~new');
    await page.getByTestId('study-kind').selectOption('threshold');
    await page.getByTestId('study-threshold').waitFor();
    await setField(page, 'study-id', 'ttft-jnd');
    await page.getByTestId('threshold-dimension').selectOption('ttft');
    await setField(page, 'threshold-reference', 'ttft=200,tpot=10,jitter=constant,tokens=5');
    await page.getByTestId('threshold-procedure').selectOption('psi');
    await setField(page, 'threshold-trials', 40);
    // A fixed seed: the same placements (and bootstrap draws) every run.
    await setField(page, 'threshold-seed', 7);
    await waitForText(page.getByTestId('study-plan'), /^Each participant sees up to 40 pairs/);
    assert.match(await page.getByTestId('threshold-reference-value').innerText(), /200 ms/);

    await page.getByTestId('study-run').click();
    await page.getByTestId('consent-accept').click();
    assert.match(await page.getByTestId('participant-instructions').innerText(), /pick the one that felt faster/);
    await page.getByTestId('participant-begin').click();
    const draw = rng(20261204);
    const seen = [];
    for (let k = 0; k < 40; k++) {
      await page.getByTestId('trial-play').waitFor({ timeout: 15_000 });
      await watchPanes(page);
      await page.getByTestId('trial-play').click();
      await page.getByTestId('question-choice').waitFor({ timeout: 15_000 });
      const [a, b] = await page.evaluate(() => window.__firstText);
      assert.ok(a !== null && b !== null, `trial ${k}: both panes showed text`);
      const faster = a <= b ? 'a' : 'b';
      const slower = faster === 'a' ? 'b' : 'a';
      seen.push(Math.abs(a - b));
      const pick = draw() < pCorrect(Math.abs(a - b)) ? faster : slower;
      await page.getByTestId(`choose-${pick}`).click();
      if (k < 39) await waitForText(page.getByTestId('participant-progress'), new RegExp(`^${k + 1} done \\(at most 40\\)`));
    }
    await page.getByTestId('participant-done').waitFor();
    // The pairs gathered around the threshold: most differences seen were within 4× of it.
    const near = seen.filter((d) => d > TRUTH.alpha / 4 && d < TRUTH.alpha * 4).length;
    assert.ok(near >= 25, `Psi placed ${near} of 40 pairs near the threshold: ${seen.map(Math.round)}`);
    await page.getByTestId('participant-close').click();

    await page.getByTestId('results-include-tests').check();
    await waitForText(page.getByTestId('results-participants'), /^1 participant\(s\), 40 answer\(s\)\./, 30_000);
    assert.match(await page.getByTestId('threshold-sentence').innerText(), /^Half of your participants notice a TTFT increase of \d+ ms over 200 ms/);
    const row = page.getByTestId('threshold-alpha');
    const [alpha, low, high, beta] = await Promise.all(['data-value', 'data-low', 'data-high', 'data-beta'].map(async (k) => Number(await row.getAttribute(k))));
    console.log(`threshold ${alpha.toFixed(1)} ms (95% ${low.toFixed(1)}–${high.toFixed(1)}), slope ${beta.toFixed(2)}; true ${TRUTH.alpha} ms`);
    await page.getByTestId('threshold-results').screenshot({ path: process.env.SHOT ?? '/dev/null' }).catch(() => {});
    assert.ok(low <= TRUTH.alpha && TRUTH.alpha <= high, `the true threshold ${TRUTH.alpha} ms lies in the 95% interval ${low}–${high} (estimate ${alpha})`);
    // As wide as 40 Psi pairs of one observer give: simulated (200 observers
    // of this truth, core's simulate::run) the ratio high / low has median
    // 3.2; this seeded observer's answers give 4.4 (34.9–153.9 ms).
    assert.ok(high / low >= 1.2 && high / low <= 6, `the 95% interval ${low}–${high} is not as wide as 40 pairs give`);
    assert.equal(await page.getByTestId('threshold-staircase').count(), 1);
    assert.equal(await page.locator('[data-testid=threshold-staircase] circle').count(), 40, 'every pair drawn');
    assert.match(await page.getByTestId('threshold-participant').innerText(), /95% credible/);

    // Every trial in the CSV: level, placement, answer, response time.
    const csv = await download(page, 'results-csv');
    const lines = csv.trim().split('\n');
    assert.equal(lines[0], 'study,participant,trial,level,reference_side,chosen_side,correct,rt_ms');
    assert.equal(lines.length, 41);
    const report = await download(page, 'results-report');
    assert.match(report, /^<!doctype html>/);
    assert.ok(report.includes(await page.getByTestId('threshold-sentence').innerText()), 'the report says what the view says');
    assert.match(report, /Psi method, 40 pairs/);

    // One click: the chat scenario's TTFT tiers where people notice.
    await page.getByTestId('threshold-base').selectOption('chat');
    await page.getByTestId('threshold-scenario').click();
    await waitForText(page.getByTestId('threshold-scenario-note'), /Saved the scenario "Interactive chat \(perceived, ttft-jnd\)"/);
    const tiers = [
      { at: 200 + alpha * (1 / 9) ** (1 / beta), score: 100 },
      { at: 200 + alpha, score: 60 },
      { at: 200 + alpha * 9 ** (1 / beta), score: 0 },
    ];
    await page.goto(`${lab.server.url}#analyze`);
    await page.getByTestId('trace-input').setInputFiles(FIXTURE);
    const card = page.getByTestId('score-chat-perceived');
    await card.waitFor({ timeout: 15_000 });
    const ttftLine = async (id) => (await page.getByTestId(`score-${id}`).locator('li', { hasText: /^TTFT P95/ }).innerText());
    const perceived = await ttftLine('chat-perceived');
    const preset = await ttftLine('chat');
    const p95 = Number(perceived.match(/^TTFT P95 = ([\d.]+) ms/)[1]);
    const got = Number(perceived.match(/→ (\d+)\/100/)[1]);
    assert.ok(Math.abs(got - interpolate(tiers, p95)) <= 1, `TTFT ${p95} ms scores ${got}, the tiers imply ${interpolate(tiers, p95).toFixed(1)}`);
    const before = Number(preset.match(/→ (\d+)\/100/)[1]);
    console.log(`fixture TTFT P95 ${p95} ms: chat ${before}/100, perceived ${got}/100`);
    const presetTiers = [{ at: 200, score: 100 }, { at: 500, score: 60 }, { at: 1000, score: 0 }];
    assert.ok(Math.abs(before - interpolate(presetTiers, p95)) <= 1, 'the preset keeps its tiers');
    assert.match(perceived, /Tiers measured in study "ttft-jnd" \(n = 1\)/);
    assert.notEqual(
      await page.getByTestId('score-chat-perceived-value').innerText(),
      await page.getByTestId('score-chat-value').innerText(),
      'the perceived tiers change the chat score',
    );
    // Kept across a reload, and Import scores with it too (in its worker).
    await page.reload();
    await page.getByTestId('trace-input').setInputFiles(FIXTURE);
    await page.getByTestId('score-chat-perceived').waitFor({ timeout: 15_000 });
    await page.goto(`${lab.server.url}#import`);
    await page.getByTestId('import-input').setInputFiles(FIXTURE);
    await waitForText(page.getByTestId('import-scores'), /Interactive chat \(perceived, ttft-jnd\) \d+/, 20_000);
    const imported = await page.getByTestId('import-scores').innerText();
    assert.equal(Number(imported.match(/Interactive chat \(perceived, ttft-jnd\) (\d+)/)[1]), Number(await page.getByTestId('score-chat-perceived-value').innerText()), 'Import and Analyze agree');
    assert.deepEqual(problems, []);
  });

  test('a published stall study pools two participants on the study server', async () => {
    const { page, problems } = await openPage(lab.browser, `${lab.server.url}#study`);
    await page.getByTestId('study-view').waitFor();
    await page.getByTestId('study-saved').selectOption('~new');
    const example = await page.getByTestId('study-id').inputValue();
    await page.getByTestId('study-kind').selectOption('threshold');
    // Another kind is another study: its own id and title, not the example's.
    assert.match(await page.getByTestId('study-id').inputValue(), /^ttft-threshold-[0-9a-z]+$/);
    assert.notEqual(await page.getByTestId('study-id').inputValue(), example);
    assert.equal(await page.getByTestId('study-title').inputValue(), 'Which one felt faster?');
    await setField(page, 'study-id', 'stall-jnd');
    await page.getByTestId('study-consent-on').uncheck();
    await page.getByTestId('threshold-dimension').selectOption('stall');
    assert.equal(await page.getByTestId('threshold-question').inputValue(), 'Which one felt smoother?');
    await setField(page, 'threshold-reference', 'ttft=50,tpot=15,jitter=constant,tokens=8');
    await setField(page, 'threshold-low', 20);
    await setField(page, 'threshold-high', 800);
    await setField(page, 'threshold-reversals', 6);
    await setField(page, 'threshold-average', 4);
    await setField(page, 'threshold-max', 30);
    await waitForText(page.getByTestId('study-plan'), /up to 30 pairs.*2-down-1-up staircase.*until 6 reversals/);
    const token = readFileSync(path.join(lab.server.dir, 'data', 'researcher-token'), 'utf8').trim();
    // A pasted token enables Publish at once, before the field loses focus.
    await page.getByTestId('study-token').focus();
    await page.keyboard.insertText(token);
    assert.ok(await page.getByTestId('study-publish').isEnabled(), 'Publish follows what is typed');
    await page.getByTestId('study-publish').click();
    await waitForText(page.getByTestId('server-message'), /Published/);
    const link = await page.getByTestId('published-link').first().inputValue();
    assert.match(link, /\/s\/[a-z0-9]{8}$/);
    const cut = await page.getByTestId('published-link').first().evaluate((e) => e.scrollWidth > e.clientWidth + 1);
    assert.ok(!cut, 'the participant link is shown whole');

    // Two participants at once, each an observer of stalls with threshold 150 ms.
    const observe = async (seed) => {
      const p = await openPage(lab.browser, link);
      // Nothing is called saved before there is an answer.
      await waitForText(p.page.getByTestId('participant-server'), /^answers go to the study server as you give them$/);
      await p.page.getByTestId('participant-begin').click();
      const draw = rng(seed);
      let answered = 0;
      while (!(await p.page.getByTestId('participant-done').isVisible())) {
        await p.page.getByTestId('trial-play').waitFor({ timeout: 15_000 });
        await watchPauses(p.page);
        await p.page.getByTestId('trial-play').click();
        await p.page.getByTestId('question-choice').waitFor({ timeout: 15_000 });
        const [a, b] = await longestPauses(p.page);
        const smoother = a <= b ? 'a' : 'b';
        const x = Math.abs(a - b);
        const correct = draw() < 0.5 + (0.5 - 0.02) / (1 + (x / 150) ** -3);
        await p.page.getByTestId(`choose-${correct ? smoother : smoother === 'a' ? 'b' : 'a'}`).click();
        answered += 1;
        await p.page.waitForFunction((n) => /^(\d+) done/.exec(document.querySelector('[data-testid=participant-progress]')?.textContent ?? '')?.[1] == n, answered);
      }
      await waitForText(p.page.getByTestId('participant-server'), /^\d+ answer\(s\) saved to the study server$/, 20_000);
      assert.deepEqual(p.problems, []);
      await p.context.close();
      return answered;
    };
    const counts = await Promise.all([observe(11), observe(12)]);
    assert.ok(counts.every((n) => n >= 10 && n <= 30), `pairs per participant: ${counts}`);
    const total = counts[0] + counts[1];
    // The Results view polls the server: both staircases, pooled.
    await waitForText(page.getByTestId('results-participants'), new RegExp(`^2 participant\\(s\\), ${total} answer\\(s\\)\\.`), 30_000);
    assert.equal(await page.getByTestId('threshold-staircase').count(), 2);
    // A fit, with an interval as wide as this design gives: two observers
    // of about 20 pairs each (runs of 2026-12-04: 155–222 and 159–224 ms).
    // The observers judge the difference of the longest pauses they see,
    // which is the stall less the reference's own gap, so the level they
    // notice lies above their 150 ms.
    assert.match(await page.getByTestId('threshold-sentence').innerText(), /notice a stall of \d+ ms \(95% interval/);
    const stall = page.getByTestId('threshold-alpha');
    const [sAlpha, sLow, sHigh] = await Promise.all(['data-value', 'data-low', 'data-high'].map(async (k) => Number(await stall.getAttribute(k))));
    assert.ok(sLow <= sAlpha && sAlpha <= sHigh && sAlpha >= 120 && sAlpha <= 400, `stall threshold ${sAlpha} (${sLow}–${sHigh})`);
    assert.ok(sHigh / sLow <= 3, `the interval ${sLow}–${sHigh} is wider than two observers' pairs give`);
    const json = await download(page, 'results-json');
    const file = JSON.parse(json);
    assert.equal(file.responses.length, total, 'every trial in the JSON export');
    assert.ok(file.responses.every((r) => r.level >= 20 && r.level <= 800 && r.conditions.length === 2 && r.rt_ms >= 0), 'level, placement and RT on each');

    // Levels are the design's grid: one level, one way of writing it.
    const csv = await download(page, 'results-csv');
    const levels = csv.trim().split('\n').slice(1).map((l) => l.split(',')[3]);
    const byValue = new Map();
    for (const l of levels) byValue.set(Number(l).toPrecision(10), (byValue.get(Number(l).toPrecision(10)) ?? new Set()).add(l));
    assert.ok([...byValue.values()].every((set) => set.size === 1), `each level written one way: ${[...byValue.values()].map((x) => [...x])}`);
    assert.ok(levels.every((l) => !/\.\d*(0000\d|9999\d)/.test(l)), `no float noise (…99999x, …00000x): ${levels}`);
    // The report: y-axis labels, the per-participant spread (not dashes).
    const report = await download(page, 'results-report');
    assert.match(report, />50%<\/text>/);
    assert.match(report, /<th>range of the last 4 reversals<\/th>/);
    const spreads = [...report.matchAll(/<tr><td>p\d{3}-[0-9a-z]+<\/td><td>\d+<\/td><td>\d+<\/td><td>([^<]*)<\/td><td>([^<]*)<\/td><\/tr>/g)];
    assert.equal(spreads.length, 2, `a row per participant: ${report.slice(report.indexOf('<h2>Participants'))}`);
    assert.ok(spreads.some(([, t, r]) => t !== 'not reached' && r !== '–'), `a staircase that ended shows its spread: ${spreads.map((m) => m.slice(1))}`);
    // Staircases fill the column instead of 260 × 90 px.
    const box = await page.getByTestId('threshold-staircase').first().boundingBox();
    assert.ok(box.width >= 400 && box.height >= 120, `staircase ${box.width}×${box.height}`);

    // The results describe what was published: an edit after answers makes a new version.
    const sentence = await page.getByTestId('threshold-sentence').innerText();
    assert.match(await page.getByTestId('study-frozen').innerText(), /has \d+ answer\(s\): a change to it makes a new version/);
    await page.getByTestId('threshold-reference').fill('ttft=50,tpot=15,jitter=constant,tokens=12');
    await waitForText(page.getByTestId('study-message'), new RegExp(`"stall-jnd" already has ${total} answer\\(s\\).*new version, "stall-jnd-v2"`));
    assert.equal(await page.getByTestId('study-id').inputValue(), 'stall-jnd-v2');
    await waitForText(page.getByTestId('results-participants'), /^0 participant\(s\), 0 answer\(s\)\./);
    // No fit without answers, said once; the note goes when answers are there.
    await page.getByTestId('threshold-scenario').click();
    await waitForText(page.getByTestId('threshold-scenario-note'), /no fit/i);
    await page.getByTestId('study-saved').selectOption('stall-jnd');
    await waitForText(page.getByTestId('results-participants'), new RegExp(`^2 participant\\(s\\), ${total} answer\\(s\\)\\.`), 30_000);
    assert.equal(await page.getByTestId('threshold-scenario-note').count(), 0, 'the stale "no fit" note is gone');
    assert.equal(await page.getByTestId('threshold-sentence').innerText(), sentence, 'the same sentence: the published design');
    assert.equal(await page.getByTestId('threshold-reference').inputValue(), 'ttft=50,tpot=15,jitter=constant,tokens=8');
    // Switching the procedure of the answered design is a new version too: staircases stay staircases.
    await waitForText(page.getByTestId('study-frozen'), /answer\(s\)/);
    await page.getByTestId('threshold-procedure').selectOption('psi');
    await waitForText(page.getByTestId('study-message'), /new version, "stall-jnd-v3"/);
    await page.getByTestId('study-saved').selectOption('stall-jnd');
    await waitForText(page.getByTestId('results-participants'), new RegExp(`^2 participant\\(s\\), ${total} answer\\(s\\)\\.`), 30_000);
    assert.match(await page.getByTestId('threshold-participant').first().innerText(), /range of the last 4 reversals|threshold not yet/);

    // The server's answers are in the Library.
    await page.getByTestId('tab-library').click();
    // Functions, not strings: the page's CSP refuses to evaluate text.
    const meta = await (await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=library-row][data-kind=study]')]
      .find((r) => r.querySelector('[data-testid=library-name]').value.includes('study server'))
      ?.querySelector('[data-testid=library-meta]').innerText, null, { timeout: 10_000 })).jsonValue();
    assert.match(meta, new RegExp(`${total} answer\\(s\\)`));
    assert.deepEqual(problems, []);
  });
});
