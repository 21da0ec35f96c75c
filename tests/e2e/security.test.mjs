// Security: the strict Content-Security-Policy is sent and blocks injected
// script; a planted API key appears in no export (trace, bundle, report,
// share link), nowhere in IndexedDB and never in the console; hostile model
// output streamed from the server stays text.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { launchBrowser, openPage, setField, startServer, waitForText } from './lib/lab.mjs';
import { dumpIndexedDb, hostileTraceFile } from './lib/hostile.mjs';

const KEY = 'sk-PLANTED-7d3e91c0ffee';

async function download(page, locator) {
  const [d] = await Promise.all([page.waitForEvent('download'), locator.click()]);
  return readFileSync(await d.path(), 'utf8');
}

describe('security', () => {
  let server;
  let browser;
  before(async () => {
    server = await startServer(['--trace', hostileTraceFile()]);
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    server?.stop();
  });

  test('a strict CSP is sent (and in the page for static hosting) and blocks injected script', async () => {
    const res = await fetch(server.url);
    const csp = res.headers.get('content-security-policy');
    assert.match(csp, /script-src 'self' 'wasm-unsafe-eval' 'sha256-[A-Za-z0-9+/=]+'/);
    assert.match(csp, /object-src 'none'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /'unsafe-eval'|script-src[^;]*'unsafe-inline'/);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.match(await res.text(), /<meta http-equiv="Content-Security-Policy"/);
    const { page, context, problems } = await openPage(browser, `${server.url}#live`);
    // The app itself runs under the policy without a single violation…
    await page.getByTestId('live-view').waitFor();
    assert.deepEqual(problems, []);
    // …and script injected into the page does not run.
    const ran = await page.evaluate(() => {
      const s = document.createElement('script');
      s.textContent = 'window.__injected = true';
      document.body.append(s);
      return window.__injected === true;
    });
    assert.equal(ran, false);
    await context.close();
  });

  test('hostile output from a live stream stays text', async () => {
    const { page, context, problems } = await openPage(browser, `${server.url}#live`);
    let dialogs = 0;
    page.on('dialog', (d) => { dialogs++; d.dismiss(); });
    await setField(page, 'model', 'trace:hostile');
    await page.getByTestId('start').click();
    await waitForText(page.getByTestId('run-status'), /^Finished/, 20_000);
    await page.getByTestId('run-results').waitFor(); // drawn by the runs module
    const out = page.getByTestId('live-view');
    assert.equal(await out.locator('img, script, svg[onload], a[href^="javascript:"]').count(), 0);
    assert.match(await out.innerText(), /<img src=x onerror=/);
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
    assert.equal(dialogs, 0);
    // Its trace replays as Markdown in the replay lab: still inert.
    const [d] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-trace').first().click()]);
    await page.getByTestId('tab-replay').click();
    await page.getByTestId('render-mode').selectOption('markdown');
    await page.getByTestId('pane-0-file').setInputFiles(await d.path());
    await page.getByTestId('play').click();
    await page.getByTestId('pane-0-result').waitFor({ timeout: 20_000 });
    const pane = page.getByTestId('pane-0-output');
    assert.equal(await pane.locator('img, script, svg, a[href^="javascript:"]').count(), 0);
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('a planted API key is in no export, nowhere in IndexedDB, never in the console', async () => {
    const { page, context, problems } = await openPage(browser, `${server.url}#live`);
    const logs = [];
    page.on('console', (m) => logs.push(m.text()));
    await page.getByTestId('api-key').fill(KEY);
    await page.getByTestId('api-key').blur();
    await setField(page, 'model', 'profile:ttft=20,tpot=2,tokens=20');
    await page.getByTestId('start').click();
    await waitForText(page.getByTestId('run-status'), /^Finished/, 20_000);
    await page.getByTestId('run-results').waitFor(); // drawn by the runs module
    const exports = {};
    exports.trace = await download(page, page.getByTestId('download-trace').first());
    await page.getByTestId('tab-library').click();
    await page.locator('[data-testid=library-row][data-kind=live]').first().waitFor();
    exports.report = await download(page, page.getByTestId('library-report').first());
    exports.bundle = await download(page, page.getByTestId('library-export'));
    await page.getByTestId('tab-replay').click();
    await page.getByTestId('replay-share').click();
    exports.replayLink = await page.getByTestId('replay-link').inputValue();
    await page.getByTestId('tab-study').click();
    await page.getByTestId('study-share').click();
    exports.studyLink = await page.getByTestId('study-link').inputValue();
    exports.study = await download(page, page.getByTestId('study-download'));
    exports.indexedDb = await dumpIndexedDb(page);
    exports.localStorage = await page.evaluate(() => JSON.stringify(localStorage));
    exports.console = logs.join('\n');
    exports.url = page.url();
    assert.ok(exports.indexedDb.includes('"kind":"live"'), 'the dump reads the library');
    for (const [what, text] of Object.entries(exports)) {
      assert.ok(!text.includes(KEY) && !text.includes('PLANTED'), `the key leaked into ${what}`);
    }
    // Kept for the session only (where the form reads it back).
    assert.ok((await page.evaluate(() => JSON.stringify(sessionStorage))).includes(KEY));
    assert.deepEqual(problems, []);
    await context.close();
  });
});
