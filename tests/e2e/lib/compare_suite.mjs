// Compare endpoints (issue 45), written once for every browser's adapter
// (`open(browser, url)` → `{ page, close, problems }`): the Live form set to
// two endpoints of the replay endpoint in two wires (OpenAI Chat and
// Anthropic Messages), their profiles 200 ms apart in TTFT and alike in
// pace, compared over ROUNDS rounds. The table shows both, B's differences
// from A are the profiles' (TTFT and first paint +200 ms, TPOT 0) with 95%
// intervals that hold them and say so in words; the comparison is one group
// in the library and its typical requests play side by side in Replay.
//
// Bounds: each endpoint's P50 TTFT is its server's first chunk (on time
// within SERVER_LATE_MS) plus what the network and the browser add, whose
// median the live suites hold under TTFT_DELTA_MEDIAN_MS; the difference of
// two such P50s is the profiles' 200 ms within that sum. First paints are
// frame-aligned: a frame more. A comparison that read one endpoint twice
// (0 ms), swapped them (−200) or measured the wrong figure fails.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from './lab.mjs';
import { attr, click, setValue, text, waitFor, waitText } from './dom.mjs';
import { SERVER_LATE_MS, TTFT_DELTA_MEDIAN_MS, assertFails } from './precision.mjs';

const ROUNDS = 6;
const GAP_MS = 200;
const profile = (ttft) => `profile:ttft=${ttft},tpot=12,tokens=20,jitter=constant`;
/** How far a difference of two P50 TTFTs may be from the profiles' (ms). */
const TTFT_BOUND_MS = TTFT_DELTA_MEDIAN_MS + SERVER_LATE_MS;
/** The same for first paints: a frame more. */
const PAINT_BOUND_MS = TTFT_BOUND_MS + 1000 / 60;
/** TPOT is the same profile on both: what two medians of 19 gaps may differ by (ms). */
const TPOT_BOUND_MS = 2;

/** A row's cells: `{ value, diff, lo, hi }` per endpoint (numbers or NaN). */
function row(page, figure) {
  return page.evaluate((f) => {
    const tr = document.querySelector(`[data-testid="compare-row"][data-figure="${f}"]`);
    return [...tr.querySelectorAll('td')].map((td) => {
      const d = td.querySelector('[data-testid="compare-diff"]');
      const n = (v) => (v == null ? NaN : Number(v));
      return { value: n(td.dataset.value), diff: n(d?.dataset.diff), lo: n(d?.dataset.lo), hi: n(d?.dataset.hi) };
    });
  }, figure);
}

/** B's difference in `cells` is `expected` within `bound`, its interval holds it and is on one side of 0. */
function checkDifference(name, cells, expected, bound) {
  const b = cells[1];
  assert.ok(Math.abs(b.diff - expected) <= bound, `${name}: B − A = ${b.diff.toFixed(2)} ms, the profiles ${expected} ± ${bound.toFixed(1)}`);
  assert.ok(b.lo <= b.diff && b.diff <= b.hi, `${name}: the interval ${b.lo}–${b.hi} holds ${b.diff}`);
  if (expected !== 0) assert.ok(b.lo > 0, `${name}: the interval ${b.lo}–${b.hi} is above 0`);
}

export function compareSuite({ name, launch, open }) {
  describe(`Compare endpoints (${name})`, () => {
    let server, browser;
    before(async () => {
      server = await startServer([]);
      browser = await launch();
    });
    after(async () => {
      await browser?.close();
      server?.stop();
    });

    test('two wires compared: both in one table, their differences with intervals and in words, one library group, replayed side by side', async () => {
      const { page, close, problems } = await open(browser, `${server.url}#live`);
      try {
        await page.evaluate(() => { document.querySelector('[data-testid="compare-endpoints"]').open = true; });
        await setValue(page, 'api-flavour', 'chat');
        await setValue(page, 'model', profile(100));
        await click(page, 'compare-add');
        await setValue(page, 'api-flavour', 'anthropic');
        await setValue(page, 'model', profile(100 + GAP_MS));
        await click(page, 'compare-add');
        const listed = await page.evaluate(() =>
          [...document.querySelectorAll('[data-testid="compare-endpoint"]')].map((e) => e.innerText));
        assert.equal(listed.length, 2, JSON.stringify(listed));
        assert.match(listed[0], /^A · OpenAI Chat Completions · profile:ttft=100/);
        assert.match(listed[1], /^B · Anthropic Messages · profile:ttft=300/);
        await setValue(page, 'compare-rounds', ROUNDS);
        await click(page, 'compare-start');
        assert.match(await waitText(page, 'run-status', /^(Finished|Stopped)/, 60_000), /^Finished/);
        await waitFor(page, 'compare-results', 20_000);

        const sides = await page.evaluate(() =>
          [...document.querySelectorAll('[data-testid="compare-side"]')].map((e) => e.innerText));
        assert.match(sides[0], /^A\s*OpenAI Chat Completions/);
        assert.match(sides[1], /^B\s*Anthropic Messages/);
        const counts = await page.evaluate(() =>
          [...document.querySelectorAll('[data-testid="compare-requests"]')].map((e) => e.innerText));
        assert.deepEqual(counts, [`${ROUNDS} (0)`, `${ROUNDS} (0)`]);

        const ttft = await row(page, 'ttft');
        // A's column is A's: its profile's TTFT and what the path adds, not B's.
        assert.ok(ttft[0].value >= 100 && ttft[0].value < 100 + GAP_MS / 2, `A's P50 TTFT ${ttft[0].value}`);
        checkDifference('TTFT', ttft, GAP_MS, TTFT_BOUND_MS);
        const paint = await row(page, 'ttfp');
        console.log(`${name}: TTFT B − A ${ttft[1].diff.toFixed(2)} ms (${ttft[1].lo.toFixed(2)}–${ttft[1].hi.toFixed(2)}), first paint ${paint[1].diff.toFixed(2)} ms (${paint[1].lo.toFixed(2)}–${paint[1].hi.toFixed(2)}), profiles ${GAP_MS}`);
        checkDifference('first paint', paint, GAP_MS, PAINT_BOUND_MS);
        const tpot = await row(page, 'tpot');
        assert.ok(Math.abs(tpot[1].diff) <= TPOT_BOUND_MS, `TPOT: B − A = ${tpot[1].diff}`);
        // The check fails a comparison of one endpoint with itself, or the two swapped.
        for (const diff of [0, -ttft[1].diff]) {
          assertFails(`a TTFT difference of ${diff}`, () =>
            checkDifference('TTFT', [ttft[0], { ...ttft[1], diff, lo: diff - 5, hi: diff + 5 }], GAP_MS, TTFT_BOUND_MS));
        }
        // Every scenario scored on both sides.
        const chat = await row(page, 'score-chat');
        assert.ok(chat.every((c) => c.value >= 0 && c.value <= 100), JSON.stringify(chat));

        const words = await page.evaluate(() =>
          [...document.querySelectorAll('[data-testid="compare-sentence"]')].map((e) => e.innerText));
        const said = words.find((w) => w.startsWith('TTFT'));
        assert.match(said ?? '', /^TTFT \(first token\): B sends the first token \d+ ms later at P50 \(\d+–\d+ ms\)\.$/, JSON.stringify(words));
        assert.ok(words.some((w) => /^First paint: B shows text \d+ ms later at P50/.test(w)), JSON.stringify(words));

        // One group in the library: both endpoints' traces.
        await page.evaluate(() => { location.hash = '#library'; });
        await waitFor(page, 'library-group', 20_000);
        assert.equal(await attr(page, 'library-group', 'data-kind'), 'compare');
        assert.match(await text(page, 'library-group'), /compare: A · OpenAI Chat Completions .* vs B · Anthropic Messages .*2 endpoints/s);

        // Back to Live: the typical requests play side by side.
        await page.evaluate(() => { location.hash = '#live'; });
        await click(page, 'compare-replay');
        await waitFor(page, 'pane-1-title', 20_000);
        assert.match(await text(page, 'pane-0-title'), /^A · typical \(P50 TTFT\)/);
        assert.match(await text(page, 'pane-1-title'), /^B · typical \(P50 TTFT\)/);
        assert.deepEqual(await problems(), []);
      } finally {
        await close();
      }
    });

    test('a comparison needs two endpoints, and says why', async () => {
      const { page, close, problems } = await open(browser, `${server.url}#live`);
      try {
        await page.evaluate(() => { document.querySelector('[data-testid="compare-endpoints"]').open = true; });
        await click(page, 'compare-add');
        assert.equal(await attr(page, 'compare-start', 'disabled'), '', 'Compare waits for a second endpoint');
        await click(page, 'compare-add');
        await setValue(page, 'compare-rounds', 0);
        await click(page, 'compare-start');
        assert.match(await waitText(page, 'run-error', /Rounds/), /^Rounds must be 1 to \d+ \(got 0\)\.$/);
        assert.deepEqual(await problems(), []);
      } finally {
        await close();
      }
    });
  });
}
