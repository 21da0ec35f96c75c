// Imports: a vLLM result dropped on the lab shows its summary (equal to the
// CLI's and to vLLM's own figures), its P99 request replays in the replay
// lab; an AIPerf pair compares the tool's figures; broken files say what was
// expected and leave the loaded runs alone (an error card goes when a later
// import succeeds); two runs compare with deltas; OpenTelemetry span files
// (field data) import as runs that say what their spans lack.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { LATE_MS, ROOT, analyzeJson, labSuite, openPage, waitForText } from './lib/lab.mjs';
import { runLive } from './lib/dom.mjs';

const FIXTURES = path.join(ROOT, 'tests/fixtures/import');
const fixture = (name) => path.join(FIXTURES, name);

/** Drops files on the import dropzone the way a person does (DataTransfer). */
async function dropFiles(page, files) {
  await dropTexts(page, files.map((f) => ({ name: path.basename(f), text: readFileSync(f, 'utf8') })));
}

/** Drops named texts on the import dropzone. */
async function dropTexts(page, items) {
  const dataTransfer = await page.evaluateHandle((items) => {
    const dt = new DataTransfer();
    for (const { name, text } of items) dt.items.add(new File([text], name, { type: 'application/json' }));
    return dt;
  }, items);
  await page.locator('[data-testid=import-view] .dropzone').dispatchEvent('drop', { dataTransfer });
}

/** One run's column of the comparison: its name, then a line per cell. */
async function compareColumn(page, i) {
  return page.evaluate((i) => [...document.querySelectorAll(`[data-testid=compare-table] [data-run="${i}"]`)]
    .map((c) => c.innerText.trim().replace(/\s*\n\s*/g, ' ')).join('\n'), i);
}

describe('import results', () => {
  const lab = labSuite();

  test('drop a vLLM result: summary, tool figures equal, replay its P99 request', async () => {
    const { page, context, problems } = await openPage(lab.browser, `${lab.server.url}#import`);
    await dropFiles(page, [fixture('vllm_bench_serve.json')]);
    const card = page.getByTestId('import-run');
    await card.waitFor({ timeout: 15_000 });
    assert.match(await card.getByTestId('import-run-tool').innerText(), /vLLM bench serve result/);
    assert.match(await card.getByTestId('import-run-requests').innerText(), /40 requests, 37 completed, 3 failed/);

    // The page's figures are the CLI's (and vLLM's own, see the native tests).
    const cli = analyzeJson(fixture('vllm_bench_serve.json'));
    for (const [metric, key] of [['ttft', 'ttft_ms'], ['tpot', 'tpot_ms'], ['itl', 'itl_ms'], ['e2el', 'e2el_ms']]) {
      for (const p of ['p50', 'p99']) {
        const shown = Number(await card.getByTestId(`import-${metric}-${p}`).innerText());
        assert.ok(Math.abs(shown - cli[key][p]) <= 0.005 + 1e-9, `${metric} ${p}: page ${shown} vs cli ${cli[key][p]}`);
      }
    }
    const summary = await card.getByTestId('tool-comparison-summary').innerText();
    const m = summary.match(/(\d+) of (\d+) figures equal/);
    assert.ok(m && m[1] === m[2] && Number(m[2]) >= 28, summary);
    assert.equal(await card.locator('tr.differs').count(), 0);
    assert.match(await card.getByTestId('import-goodput').innerText(), /Goodput under ttft:200,tpot:15,e2el:3000/);

    // Replay the P99 (by TTFT) request: it lands in the replay lab and plays.
    await card.getByTestId('replay-worst').click();
    await page.getByTestId('replay-view').waitFor({ state: 'visible' });
    assert.match(page.url(), /#replay$/);
    await waitForText(page.getByTestId('play'), /^Pause$/, 10_000);
    const title = await page.locator('.pane-slot').first().innerText();
    assert.match(title, /worst \(P99 TTFT\) · request #\d+/);
    // The replayed request's TTFT equals the P99-rank request's TTFT from the file.
    const vllm = JSON.parse(readFileSync(fixture('vllm_bench_serve.json'), 'utf8'));
    const idx = Number(title.match(/request #(\d+)/)[1]) - 1;
    const ttfts = vllm.ttfts.filter((_, i) => !vllm.errors[i]).map((t) => t * 1000).sort((a, b) => a - b);
    const rank = Math.ceil(0.99 * ttfts.length) - 1;
    assert.ok(Math.abs(vllm.ttfts[idx] * 1000 - ttfts[rank]) < 1e-6, `request ${idx} is the P99 one`);
    await page.getByTestId('pane-0-result').waitFor({ timeout: 30_000 });
    const shownTtft = Number((await page.getByTestId('pane-0-result-ttft').innerText()).replace(' ms', ''));
    // Never early (the shown figure is rounded), never far late.
    assert.ok(shownTtft >= ttfts[rank] - 0.5 && shownTtft < ttfts[rank] + LATE_MS, `replayed TTFT ${shownTtft} vs ${ttfts[rank]}`);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('AIPerf records with their aggregate, any order; broken files keep the others', async () => {
    const { page, context, problems } = await openPage(lab.browser, `${lab.server.url}#import`);
    await dropFiles(page, [fixture('aiperf_0.13.0_profile_export_aiperf.json'), fixture('aiperf_0.13.0_profile_export.jsonl')]);
    const card = page.getByTestId('import-run');
    await card.waitFor({ timeout: 15_000 });
    await waitForText(card.getByTestId('tool-comparison-summary'), /figures equal/);
    assert.match(await card.getByTestId('import-run-tool').innerText(), /AIPerf profile_export.jsonl 0\.13\.0/);
    const ttftP99 = card.locator('[data-testid=tool-figure][data-key="time_to_first_token.p99"]');
    assert.match(await ttftP99.innerText(), /equal/);

    // Broken, truncated, unknown: each says what was expected; the run stays.
    const text = readFileSync(fixture('vllm_bench_serve.json'), 'utf8');
    const dataTransfer = await page.evaluateHandle((cut) => {
      const dt = new DataTransfer();
      dt.items.add(new File([cut], 'cut.json'));
      dt.items.add(new File(['{"hello": "world"}'], 'other.json'));
      dt.items.add(new File([new Uint8Array([0xff, 0xfe, 0x00, 0x41])], 'binary.json'));
      return dt;
    }, text.slice(0, text.length / 2));
    await page.locator('[data-testid=import-view] .dropzone').dispatchEvent('drop', { dataTransfer });
    const errors = page.getByTestId('import-error');
    await waitForText(errors.nth(2), /./);
    const all = (await errors.allInnerTexts()).join('\n');
    assert.match(all, /vLLM bench serve result but cannot be read: the text ends early \(.*cut off\?\): .* \(line \d+, column \d+\)/);
    assert.match(all, /not a format the lab reads .* expected a Latency Lab trace, a vLLM/);
    assert.match(all, /not UTF-8 text/);
    assert.equal(await page.getByTestId('import-run').count(), 1, 'the loaded run stays');
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('OpenTelemetry spans from a collector\'s file export: one run, figures as the CLI\'s, what they lack said, no text', async () => {
    const file = path.join(ROOT, 'tests/fixtures/field/collector_file_exporter.jsonl');
    const { page, context, problems } = await openPage(lab.browser, `${lab.server.url}#import`);
    await dropFiles(page, [file]);
    const card = page.getByTestId('import-run');
    await card.waitFor({ timeout: 15_000 });
    assert.match(await card.getByTestId('import-run-label').innerText(), /field data/);
    const notes = await card.getByTestId('import-notes').innerText();
    assert.match(notes, /carry no paints/);
    assert.match(notes, /only the time to first chunk/);
    const cli = analyzeJson(file);
    const shown = Number(await card.getByTestId('import-ttft-p50').innerText());
    assert.ok(Math.abs(shown - cli.ttft_ms.p50) <= 0.005 + 1e-9, `TTFT P50: page ${shown} vs cli ${cli.ttft_ms.p50}`);
    assert.doesNotMatch(await page.locator('body').innerText(), /charged twice/);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('compare two runs: table with deltas and a TTFT CDF per run', async () => {
    const { page, context, problems } = await openPage(lab.browser, `${lab.server.url}#import`);
    await dropFiles(page, [fixture('vllm_bench_serve.json'), fixture('guidellm_0.8.1_benchmarks.json')]);
    await waitForText(page.getByTestId('import-run').nth(1).getByTestId('import-run-label'), /./, 15_000);
    const runs = page.getByTestId('compare-run');
    assert.equal(await runs.count(), 2);
    assert.match(await compareColumn(page, 0), /baseline/);
    assert.match(await compareColumn(page, 1), /[+-]\d+(\.\d)?ms \([+-]\d+%\)/);
    assert.equal(await page.locator('[data-testid=ttft-cdf] polyline.series').count(), 2);
    // Untick one: one column, one curve.
    await page.getByTestId('compare-toggle').nth(1).uncheck();
    assert.equal(await runs.count(), 1);
    assert.equal(await page.locator('[data-testid=ttft-cdf] polyline.series').count(), 1);
    // New SLOs recompute goodput in the worker.
    await page.getByTestId('import-slos').fill('ttft:1000');
    await page.getByTestId('import-slos-apply').click();
    await waitForText(page.getByTestId('import-goodput').first(), /Goodput under ttft:1000/);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('a live run of this page joins the comparison (read back from the library by the Import view\'s module)', async () => {
    const { page, context, problems } = await openPage(lab.browser, `${lab.server.url}#live`);
    assert.match(await runLive(page, { model: 'profile:ttft=80,tpot=5,tokens=20', mode: 'concurrent', n: 3 }), /^Finished/);
    // A replay of the user's own panes is offered, not compared until ticked
    // (issue 44: comparisons filled with replays).
    await page.getByTestId('tab-replay').click();
    await page.getByTestId('pane-0-source').selectOption('profile:code-fast');
    await page.getByTestId('play').click();
    await waitForText(page.getByTestId('play'), /^Pause$/, 20_000);
    await waitForText(page.getByTestId('play'), /^Play$/, 20_000);
    await page.getByTestId('tab-import').click();
    await dropFiles(page, [fixture('vllm_bench_serve.json')]);
    const runs = page.getByTestId('compare-run');
    await runs.nth(1).waitFor({ timeout: 15_000 });
    await page.locator('[data-testid=compare-toggle][data-replay=true]').nth(1).waitFor({ timeout: 15_000 });
    assert.equal(await runs.count(), 2, 'the import and the live run; the replay\'s two panes wait to be ticked');
    for (const t of await page.locator('[data-testid=compare-toggle][data-replay=true]').all()) assert.equal(await t.isChecked(), false);
    assert.match(await compareColumn(page, 1), /^profile:ttft=80,tpot=5,tokens=20\n3 \/ 3\n/, "the live run, all 3 requests");
    // The baseline is the user's to choose.
    const live = await page.evaluate(() => document.querySelectorAll('[data-testid="compare-baseline"] option')[1].value);
    await page.getByTestId('compare-baseline').selectOption(live);
    await waitForText(runs.nth(0), /^profile:ttft=80,tpot=5,tokens=20/);
    assert.match(await compareColumn(page, 0), /baseline/);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('runs measured in different browsers are compared with a note that says so', async () => {
    const { page, context, problems } = await openPage(lab.browser, `${lab.server.url}#import`);
    const hand = JSON.parse(readFileSync(path.join(ROOT, 'tests/fixtures/hand.trace.json'), 'utf8'));
    const as = (label, browser, version, engine) => ({
      ...hand,
      meta: { ...hand.meta, label, client: { ...hand.meta.client, browser, browser_version: version, engine } },
    });
    const files = [as('run in firefox', 'Firefox', '140.0', 'Gecko'), as('run in chrome', 'Chrome', '148.0.7778.167', 'Blink')];
    const dataTransfer = await page.evaluateHandle((items) => {
      const dt = new DataTransfer();
      for (const t of items) dt.items.add(new File([JSON.stringify(t)], `${t.meta.label}.trace.json`));
      return dt;
    }, files);
    await page.locator('[data-testid=import-view] .dropzone').dispatchEvent('drop', { dataTransfer });
    const note = await waitForText(page.getByTestId('compare-browsers'), /different browsers/, 15_000);
    assert.match(note, /\(run in firefox: Firefox 140; run in chrome: Chrome 148\)/);
    // One browser left: no note.
    await page.getByTestId('compare-toggle').nth(1).uncheck();
    assert.equal(await page.getByTestId('compare-browsers').count(), 0);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('six runs compared fit the card at 1280 × 800: every figure of every run in view', async () => {
    const { page, context, problems } = await openPage(lab.browser, `${lab.server.url}#import`);
    const hand = JSON.parse(readFileSync(path.join(ROOT, 'tests/fixtures/hand.trace.json'), 'utf8'));
    await dropTexts(page, [1, 2, 3, 4, 5, 6].map((k) => {
      const label = `run ${k} of the weekly regression against the staging endpoint`;
      return { name: `${label}.trace.json`, text: JSON.stringify({ ...hand, meta: { ...hand.meta, label } }) };
    }));
    await page.getByTestId('compare-run').nth(5).waitFor({ timeout: 15_000 });
    const fit = await page.evaluate(() => {
      const scroller = document.querySelector('[data-testid=compare-runs] .table-scroll');
      const card = document.querySelector('[data-testid=compare-runs]').getBoundingClientRect();
      const cells = [...document.querySelectorAll('[data-testid=compare-table] th, [data-testid=compare-table] td')];
      return {
        sideways: scroller.scrollWidth - scroller.clientWidth,
        outside: cells.filter((c) => c.getBoundingClientRect().right > Math.min(card.right, window.innerWidth) + 0.5).map((c) => c.innerText),
      };
    });
    assert.equal(fit.sideways, 0, `the table scrolls ${fit.sideways} px sideways`);
    assert.deepEqual(fit.outside, [], 'cells past the card\'s edge');
    // The E2EL figures (cut off when runs were rows) are in it.
    assert.match(await page.getByTestId('compare-table').innerText(), /E2EL P99/);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('an import error card goes when a later import succeeds', async () => {
    const { page, context, problems } = await openPage(lab.browser, `${lab.server.url}#import`);
    await dropTexts(page, [{ name: 'broken.json', text: '{"backend": "vllm", "ttfts": [' }]);
    await waitForText(page.getByTestId('import-error').first(), /cannot be read/);
    await dropFiles(page, [fixture('vllm_bench_serve.json')]);
    await page.getByTestId('import-run').first().waitFor({ timeout: 15_000 });
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=import-error]').length === 0);
    assert.deepEqual(problems, []);
    await context.close();
  });
});
