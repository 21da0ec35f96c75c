// Firefox: a vLLM result dropped on the import view is parsed in the
// import worker, its figures equal the CLI's, its P99 request replays; a
// broken file says what was expected and the loaded run stays.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { LATE_MS, ROOT, analyzeJson } from '../e2e/lib/lab.mjs';
import { firefoxSuite, openFirefoxPage } from '../e2e/lib/firefox.mjs';
import { click, count, dropFiles, text, waitFor, waitText } from '../e2e/lib/dom.mjs';

const VLLM = path.join(ROOT, 'tests/fixtures/import/vllm_bench_serve.json');
const ZONE = '[data-testid=import-view] .dropzone';

describe('import results (Firefox)', () => {
  const lab = firefoxSuite();

  test('drop a vLLM result: figures equal the CLI\'s, its P99 request replays; a broken file explains itself', async () => {
    const { page, context, problems } = await openFirefoxPage(lab.browser, `${lab.server.url}#import`);
    const body = readFileSync(VLLM, 'utf8');
    await dropFiles(page, ZONE, [{ name: 'vllm_bench_serve.json', text: body }]);
    await waitFor(page, 'import-run', 15_000);
    assert.match(await text(page, 'import-run-tool'), /vLLM bench serve result/);
    assert.match(await text(page, 'import-run-requests'), /40 requests, 37 completed, 3 failed/);
    const cli = analyzeJson(VLLM);
    for (const metric of ['ttft', 'tpot', 'itl', 'e2el']) {
      for (const p of ['p50', 'p99']) {
        const shown = Number(await text(page, `import-${metric}-${p}`));
        assert.ok(Math.abs(shown - cli[`${metric}_ms`][p]) <= 0.005 + 1e-9, `${metric} ${p}: ${shown} vs ${cli[`${metric}_ms`][p]}`);
      }
    }
    const summary = await text(page, 'tool-comparison-summary');
    const m = summary.match(/(\d+) of (\d+) figures equal/);
    assert.ok(m && m[1] === m[2], summary);

    // A file cut in half: named, with line and column; the run stays.
    await dropFiles(page, ZONE, [{ name: 'cut.json', text: body.slice(0, body.length / 2) }]);
    const error = await waitText(page, 'import-error', /./);
    assert.match(error, /vLLM bench serve result but cannot be read: the text ends early .* \(line \d+, column \d+\)/);
    assert.equal(await count(page, '[data-testid=import-run]'), 1);

    await click(page, 'replay-worst');
    await waitFor(page, 'replay-view');
    await waitFor(page, 'pane-0-result', 30_000);
    const vllm = JSON.parse(body);
    const ttfts = vllm.ttfts.filter((_, i) => !vllm.errors[i]).map((t) => t * 1000).sort((a, b) => a - b);
    const p99 = ttfts[Math.ceil(0.99 * ttfts.length) - 1];
    const shown = Number((await text(page, 'pane-0-result-ttft')).replace(' ms', ''));
    assert.ok(shown >= p99 - 0.5 && shown < p99 + LATE_MS, `replayed TTFT ${shown} vs ${p99}`);
    assert.deepEqual(problems, []);
    await context.close();
  });
});
