// The run library (IndexedDB): a live run saved while it streams survives a
// tab that goes away mid-run (as "interrupted", with what arrived); a bundle
// exports everything and brings it back after deleting; imported files are
// kept and open again in the Import view.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, labSuite, openPage, setField, waitForText } from './lib/lab.mjs';

const rows = (page) => page.locator('[data-testid=library-row]');

describe('run library', () => {
  const lab = labSuite();

  test('a run cut by leaving the page is kept as interrupted, with what arrived', async () => {
    const { page, context, problems } = await openPage(lab.browser, `${lab.server.url}#live`);
    // 300 tokens at 40 ms: about 12 s; leave after about 2.5 s.
    await setField(page, 'model', 'profile:ttft=100,tpot=40,tokens=300');
    await page.getByTestId('start').click();
    await waitForText(page.getByTestId('live-tokens').or(page.getByTestId('run-status')), /\S/);
    await page.waitForTimeout(2500);
    await page.getByTestId('tab-library').click();
    await waitForText(page.locator('[data-testid=library-row][data-kind=live] td.status-recording'), /recording/);
    // The tab "closes": navigate away and come back.
    await page.goto('about:blank');
    await page.goto(`${lab.server.url}#library`);
    const row = page.locator('[data-testid=library-row][data-kind=live]');
    await row.first().waitFor();
    assert.equal(await row.count(), 1);
    assert.equal(await row.getAttribute('data-status'), 'interrupted');
    await row.getByTestId('library-open').click();
    await page.getByTestId('library-shown').waitFor();
    // The partial trace downloads, with a good part of its chunks.
    const [d] = await Promise.all([page.waitForEvent('download'), row.getByTestId('library-download').click()]);
    const trace = JSON.parse(readFileSync(await d.path(), 'utf8'));
    assert.equal(trace.requests.length, 1);
    const chunks = trace.requests[0].chunks.filter((c) => c.tokens > 0).length;
    assert.ok(chunks >= 20 && chunks < 300, `${chunks} chunks saved before leaving`);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('bundle export, delete, import; imported files reopen', async () => {
    const { page, context, problems } = await openPage(lab.browser, `${lab.server.url}#live`);
    await setField(page, 'model', 'profile:ttft=50,tpot=5,tokens=20');
    await page.getByTestId('start').click();
    await waitForText(page.getByTestId('run-status'), /^Finished/, 20_000);
    // An imported file joins the library.
    await page.getByTestId('tab-import').click();
    await page.getByTestId('import-input').setInputFiles(path.join(ROOT, 'tests/fixtures/import/vllm_bench_serve.json'));
    await page.getByTestId('import-run').first().waitFor({ timeout: 30_000 });
    await page.getByTestId('tab-library').click();
    await page.locator('[data-testid=library-row][data-kind=import]').waitFor();
    const live = page.locator('[data-testid=library-row][data-kind=live][data-status=complete]');
    await live.waitFor();
    // How it felt is listed: 50 ms TTFT at 200 tokens/s outpaces the default reader.
    assert.equal(await live.getByTestId('library-qoe').textContent(), '1.00');
    assert.equal(await live.getByTestId('library-apdex').textContent(), '1.00');
    const n = await rows(page).count();
    assert.equal(n, 2);
    const name = page.getByTestId('library-name').first();
    await name.fill('keep me');
    await name.blur();
    await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=library-name]')].some((e) => e.value === 'keep me'));
    await page.waitForTimeout(200);
    const [d] = await Promise.all([page.waitForEvent('download'), page.getByTestId('library-export').click()]);
    const bundlePath = await d.path();
    const bundle = JSON.parse(readFileSync(bundlePath, 'utf8'));
    assert.equal(bundle.format, 'latency-lab/bundle');
    assert.equal(bundle.items.length, 2);
    assert.ok(bundle.items.some((i) => i.entry.name === 'keep me'));
    assert.ok(!/api[_-]?key|authorization|bearer/i.test(readFileSync(bundlePath, 'utf8')));
    // Delete everything.
    for (const box of await page.locator('[data-testid=library-row] input[type=checkbox]').all()) await box.check();
    await page.getByTestId('library-delete').click();
    await waitForText(page.getByTestId('library-message'), /Deleted 2 entries/);
    await page.getByTestId('library-empty').waitFor();
    await page.reload();
    await page.getByTestId('library-empty').waitFor();
    // Bring it back.
    await page.getByTestId('library-import').setInputFiles(bundlePath);
    await waitForText(page.getByTestId('library-message'), /Added 2 entries/);
    await page.reload();
    await rows(page).nth(1).waitFor();
    const names = await page.getByTestId('library-name').evaluateAll((els) => els.map((e) => e.value));
    assert.ok(names.includes('keep me'), JSON.stringify(names));
    // The imported file opens again in the Import view.
    await page.locator('[data-testid=library-row][data-kind=import]').getByTestId('library-open').click();
    await page.getByTestId('import-view').waitFor();
    await page.getByTestId('import-run').first().waitFor({ timeout: 30_000 });
    // A broken bundle is refused with the reason.
    await page.getByTestId('tab-library').click();
    await page.getByTestId('library-import').setInputFiles({ name: 'x.json', mimeType: 'application/json', buffer: Buffer.from('{"items": 3}') });
    await waitForText(page.getByTestId('library-message'), /x\.json: not a Latency Lab bundle/);
    assert.deepEqual(problems, []);
    await context.close();
  });
});
