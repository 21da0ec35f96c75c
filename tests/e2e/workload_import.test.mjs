// Workload files in the Import view: each format's fixture (written by
// tests/fixtures/workload/make_workloads.py) is read in the import worker,
// a slice at a time, and summarised with the same figures as
// `latency-lab analyze --json` (core's digest); a bad row names its line
// and what was expected, and nothing half-read is shown as a summary.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, analyzeJson, labSuite, openPage } from './lib/lab.mjs';
import { waitFor } from './lib/dom.mjs';

const FIXTURES = path.join(ROOT, 'tests/fixtures/workload');

/** Drops named texts on the import dropzone (a person's drop). */
async function drop(page, items) {
  const dataTransfer = await page.evaluateHandle((items) => {
    const dt = new DataTransfer();
    for (const { name, text } of items) dt.items.add(new File([text], name));
    return dt;
  }, items);
  await page.locator('[data-testid=import-view] .dropzone').dispatchEvent('drop', { dataTransfer });
}

const cards = (page) =>
  page.evaluate(() =>
    [...document.querySelectorAll('[data-testid="workload-card"]')].map((c) => ({
      title: c.querySelector('h3').innerText,
      rows: Object.fromEntries([...c.querySelectorAll('tr')].map((r) => [r.querySelector('th').innerText, r.querySelector('td').innerText])),
    })),
  );

describe('workload files in the Import view', () => {
  const lab = labSuite();

  test('every format is summarised as latency-lab analyze summarises it', async () => {
    const { page, context, problems } = await openPage(lab.browser, `${lab.server.url}#import`);
    const files = ['mooncake_trace.jsonl', 'bailian_trace.jsonl', 'azure_conv_2023.csv', 'azure_code_2024.csv', 'burstgpt.csv', 'sharegpt.json'];
    await drop(page, files.map((f) => ({ name: f, text: readFileSync(path.join(FIXTURES, f), 'utf8') })));
    let shown = [];
    for (let i = 0; i < 200 && shown.length < files.length; i++) {
      shown = await cards(page);
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(shown.length, files.length, JSON.stringify(shown));
    for (const f of files) {
      const card = shown.find((c) => c.title.startsWith(`${f} · `));
      assert.ok(card, `no card for ${f}`);
      const cli = analyzeJson(path.join(FIXTURES, f)).workload;
      assert.equal(Number(card.rows.requests), cli.requests, f);
      assert.ok(card.title.endsWith(`${cli.format} workload`), card.title);
      if (cli.mean_rate != null) assert.match(card.rows['request rate'], new RegExp(`^mean ${cli.mean_rate.toFixed(2)}/s`), f);
      if (f !== 'sharegpt.json') assert.match(card.rows['input tokens'], new RegExp(`^mean ${cli.input_tokens.mean.toFixed(0)}, P50 ${cli.input_tokens.p50},`), f);
      if (cli.prefix_reuse != null) assert.ok(card.rows['prefix reuse'].startsWith(`${(cli.prefix_reuse * 100).toFixed(1)}%`), `${f}: ${card.rows['prefix reuse']}`);
    }
    const share = shown.find((c) => c.title.startsWith('sharegpt.json'));
    assert.match(share.rows['input tokens'], /approximate/, 'the browser says its ShareGPT counts are pseudo tokens');
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('a bad row names its line and what was expected; nothing half-read is shown', async () => {
    const { page, context } = await openPage(lab.browser, `${lab.server.url}#import`);
    const good = readFileSync(path.join(FIXTURES, 'mooncake_trace.jsonl'), 'utf8').split('\n');
    const bad = [...good.slice(0, 40), '{"timestamp": 9999, "input_length": "lots", "output_length": 3}', ...good.slice(40)].join('\n');
    await drop(page, [{ name: 'bad.jsonl', text: bad }]);
    await waitFor(page, 'import-error', 20_000);
    const message = await page.evaluate(() => document.querySelector('[data-testid="import-error"]').innerText);
    assert.match(message, /^Mooncake \(FAST'25\) workload, line 41: .*input_length/, message);
    assert.equal((await cards(page)).length, 0, 'no summary of a file read in part');
    await context.close();
  });
});
