// Workload files in the Import view: each format's fixture (written by
// tests/fixtures/workload/make_workloads.py) is read in the import worker,
// a slice at a time, and summarised with the same figures as
// `latency-lab analyze --json` (core's digest); a bad row names its line
// and what was expected, and nothing half-read is shown as a summary.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LAB_BIN, ROOT, analyzeJson, labSuite, openPage } from './lib/lab.mjs';
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

  // Issue 44: the card's command (`--target http://HOST:PORT`, no model,
  // no --exact-output) ended "45 answers shorter than asked" when run.
  test('the card\'s command, run as shown, sends the workload as the file has it', async () => {
    const { page, context } = await openPage(lab.browser, `${lab.server.url}#import`);
    const asked = [20, 24, 28, 32, 36, 40];
    const rows = asked.map((n, i) => JSON.stringify({ timestamp: i * 100, input_length: 200, output_length: n, hash_ids: [i] }));
    const name = 'small_mooncake.jsonl';
    await drop(page, [{ name, text: rows.join('\n') }]);
    await waitFor(page, 'workload-command', 20_000);
    const command = await page.evaluate(() => document.querySelector('[data-testid="workload-command"]').textContent);
    const origin = new URL(lab.server.url).origin;
    assert.match(command, new RegExp(`^latency-lab run ${name} --target ${origin} --model \\S+ --exact-output -o run\\.trace\\.json$`), command);
    // The chart has axes and says what it shows (not "Inter-token gaps").
    const chart = await page.evaluate(() => document.querySelector('[data-testid="workload-rate"] svg').getAttribute('aria-label'));
    assert.match(chart, /^Request rate over /, chart);
    await context.close();

    const dir = mkdtempSync(path.join(os.tmpdir(), 'lab-workload-command-'));
    writeFileSync(path.join(dir, name), rows.join('\n'));
    const [bin, ...args] = command.split(' ');
    assert.equal(bin, 'latency-lab');
    const run = spawnSync(LAB_BIN, [...args, '--quiet'], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
    const said = `${run.stdout}${run.stderr}`;
    assert.equal(run.status, 0, said);
    assert.match(said, /6 requests sent: 6 answered, 0 failed/, said);
    assert.doesNotMatch(said, /shorter than asked/, said);
    const trace = JSON.parse(readFileSync(path.join(dir, 'run.trace.json'), 'utf8'));
    const got = [...trace.requests].sort((a, b) => a.sent_ms - b.sent_ms).map((r) => r.usage?.completion_tokens);
    assert.deepEqual(got, asked, 'each answer as long as its row asked');
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
