// The run library (IndexedDB): a live run saved while it streams survives a
// tab that goes away mid-run (as "interrupted", with what arrived); a bundle
// exports everything and brings it back after deleting; imported files are
// kept and open again in the Import view; a replay playback is one row; the
// list fits a laptop screen; a run's report scores as Live does; a report
// made while a run records says it is partial.
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
    await page.locator('[data-testid=library-row][data-kind=live][data-status=recording]').waitFor();
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
    // An en-US browser (issue 44: dates were dd/mm/yyyy whatever the browser).
    const { page, context, problems } = await openPage(lab.browser, `${lab.server.url}#live`, undefined, { locale: 'en-US' });
    await setField(page, 'model', 'profile:ttft=50,tpot=5,tokens=20');
    await page.getByTestId('start').click();
    await waitForText(page.getByTestId('run-status'), /^Finished/, 20_000);
    await page.getByTestId('run-results').waitFor(); // drawn by the runs module
    // An imported file joins the library.
    await page.getByTestId('tab-import').click();
    await page.getByTestId('import-input').setInputFiles(path.join(ROOT, 'tests/fixtures/import/vllm_bench_serve.json'));
    await page.getByTestId('import-run').first().waitFor({ timeout: 30_000 });
    await page.getByTestId('tab-library').click();
    await page.locator('[data-testid=library-row][data-kind=import]').waitFor();
    const live = page.locator('[data-testid=library-row][data-kind=live][data-status=complete]');
    await live.waitFor();
    assert.match(await live.innerText(), /\b\d{1,2}\/\d{1,2}\/\d{4}, \d{1,2}:\d{2}:\d{2}\s[AP]M\b/, 'the saved time as the browser\'s language writes it');
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

  test('a playback is one row; the list fits 1280 px; a report scores and counts goodput as Live does', async () => {
    const { page, context, problems } = await openPage(lab.browser, `${lab.server.url}#live`);
    // A saved scenario (as a threshold study's "Place its tiers" makes) that Live scores with.
    const mine = {
      id: 'chat-perceived',
      name: 'Interactive chat (perceived, e2e)',
      summary: 'Tiers where people noticed.',
      targets: [{ metric: 'ttft', stat: 'p95', tiers: [{ at: 100, score: 100 }, { at: 300, score: 60 }, { at: 900, score: 0 }], weight: 100, why: 'measured' }],
    };
    await page.evaluate((list) => localStorage.setItem('latency-lab.scenarios', list), JSON.stringify([mine]));
    await page.reload();
    await setField(page, 'model', 'profile:ttft=120,tpot=5,tokens=20,jitter=constant');
    await page.getByTestId('start').click();
    await waitForText(page.getByTestId('run-status'), /^Finished/, 20_000);
    await page.getByTestId('run-results').waitFor(); // drawn by the runs module
    await page.getByTestId('score-chat-perceived').waitFor();
    const liveScore = await page.getByTestId('score-chat-perceived-value').innerText();
    // A playback of the user's panes (the code story's, its first pane set
    // again by hand: a story as the lab tells it is not kept) plays to its
    // end: its two panes are one library row.
    await page.goto(`${lab.server.url}#replay`);
    await page.getByTestId('story-code').click();
    await page.getByTestId('pane-0-source').selectOption('profile:code-fast');
    await page.getByTestId('play').click();
    await waitForText(page.getByTestId('play'), /^Pause$/, 20_000);
    await waitForText(page.getByTestId('play'), /^Play$/, 20_000);
    await page.getByTestId('tab-library').click();
    const group = page.getByTestId('library-group');
    await group.waitFor();
    assert.equal(await group.count(), 1, 'one row for the playback');
    assert.equal(await page.locator('[data-testid=library-row][data-kind=replay]').count(), 0, 'its panes fold into it');
    assert.match(await group.innerText(), /replay: code-fast vs TTFT 600 ms/);
    // Its row is one cell wide to the table's edge: no empty column beside it.
    const edge = await group.evaluate((tr) => {
      const cells = [...tr.children].map((td) => td.getBoundingClientRect());
      const last = tr.lastElementChild;
      return { right: tr.getBoundingClientRect().right - cells[cells.length - 1].right, text: last.innerText.trim().length, cells: cells.length };
    });
    assert.ok(edge.right <= 1 && edge.text > 0, `the group's last cell ends ${edge.right} px from the row's edge, holds ${edge.text} characters (${edge.cells} cells)`);
    await group.getByTestId('library-group-toggle').click();
    await page.locator('[data-testid=library-row][data-kind=replay]').nth(1).waitFor();
    // At 1280 × 800 nothing scrolls sideways and every action is in view, a long name whole.
    const live = page.locator('[data-testid=library-row][data-kind=live]');
    await live.getByTestId('library-name').fill('a live run against the replay endpoint, first try');
    await live.getByTestId('library-name').blur();
    const fits = await page.evaluate(() => {
      const scroller = document.querySelector('[data-testid=library-view] .table-scroll');
      const buttons = [...document.querySelectorAll('[data-testid=library-view] td.actions button')];
      return {
        sideways: scroller.scrollWidth - scroller.clientWidth,
        outside: buttons.filter((b) => b.getBoundingClientRect().right > window.innerWidth).length,
        buttons: buttons.length,
        nameCut: [...document.querySelectorAll('[data-testid=library-name]')].filter((e) => e.scrollWidth > e.clientWidth + 1).map((e) => e.value),
      };
    });
    assert.ok(fits.buttons >= 9, `${fits.buttons} buttons`);
    assert.equal(fits.sideways, 0, 'no sideways scrolling');
    assert.equal(fits.outside, 0, 'every Open/Download/Report in view');
    assert.deepEqual(fits.nameCut, [], 'names whole');
    // The report scores with the saved scenario too, and has its goodput section.
    const [d] = await Promise.all([page.waitForEvent('download'), live.getByTestId('library-report').click()]);
    const html = readFileSync(await d.path(), 'utf8');
    assert.match(html, /<td>Interactive chat \(perceived, e2e\)<\/td><td>(\d+)<\/td>/);
    assert.equal(html.match(/<td>Interactive chat \(perceived, e2e\)<\/td><td>(\d+)<\/td>/)[1], liveScore, 'the report and Live give the same score');
    assert.match(html, /<h2>Goodput<\/h2><p>1 of 1 requests \(100\.0%\) met every SLO/);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('a report made while a run records says it is partial; scenario names are not doubled', async () => {
    const { page, context, problems } = await openPage(lab.browser, `${lab.server.url}#live`);
    await setField(page, 'model', 'profile:ttft=100,tpot=40,tokens=300');
    await page.getByTestId('start').click();
    await waitForText(page.getByTestId('live-tokens').or(page.getByTestId('run-status')), /\S/);
    await page.waitForTimeout(1500);
    await page.getByTestId('tab-library').click();
    const row = page.locator('[data-testid=library-row][data-kind=live][data-status=recording]');
    await row.first().waitFor({ timeout: 10_000 });
    const [d] = await Promise.all([page.waitForEvent('download'), row.first().getByTestId('library-report').click()]);
    const html = readFileSync(await d.path(), 'utf8');
    assert.match(html, /Partial: this run was still recording/);
    assert.match(html, /Requests<\/th><td>1 \(0 completed, 0 failed, 1 still streaming when saved\)/);
    for (const name of ['Interactive chat', 'Code completion', 'Agent / RAG', 'Batch generation', 'Long streaming text']) {
      assert.ok(!html.includes(`${name}: ${name}`), `"${name}" is not doubled`);
    }
    await page.getByTestId('tab-live').click();
    await page.getByTestId('stop').click();
    await waitForText(page.getByTestId('run-status'), /^Stopped/);
    assert.deepEqual(problems, []);
    await context.close();
  });
});
