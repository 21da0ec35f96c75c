// Firefox: the Content-Security-Policy blocks injected script; hostile model
// output stays text; a planted API key reaches no trace, no IndexedDB, no
// localStorage and no console line.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { firefoxSuite, openFirefoxPage } from '../e2e/lib/firefox.mjs';
import { dumpIndexedDb, hostileTraceFile } from '../e2e/lib/hostile.mjs';
import { click, count, download, runLive, setValue, text, waitFor } from '../e2e/lib/dom.mjs';

const KEY = 'sk-PLANTED-5b0ffe1dfox';

describe('security (Firefox)', () => {
  const lab = firefoxSuite(['--trace', hostileTraceFile()]);

  test('the CSP blocks injected script; hostile output stays text', async () => {
    const { page, context, problems } = await openFirefoxPage(lab.browser, `${lab.server.url}#live`);
    await waitFor(page, 'live-view');
    const ran = await page.evaluate(() => new Promise((resolve) => {
      const s = document.createElement('script');
      s.textContent = 'window.__injected = true';
      document.body.append(s);
      setTimeout(() => resolve(window.__injected === true), 50);
    }));
    assert.equal(ran, false, 'injected script ran');
    // The refusal is the only problem the page reports.
    problems.splice(0, problems.length, ...problems.filter((p) => !/Content-Security-Policy|Content Security Policy/i.test(p)));
    assert.match(await runLive(page, { model: 'trace:hostile' }), /^Finished/);
    assert.equal(await count(page, '[data-testid=live-view] :is(img, script, svg[onload], a[href^="javascript:"])'), 0);
    assert.match(await text(page, 'output'), /<img src=x onerror=/);
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('a planted API key is in no trace, IndexedDB, localStorage or console line', async () => {
    const { page, context, problems } = await openFirefoxPage(lab.browser, `${lab.server.url}#live`);
    const logs = [];
    page.on('console', (m) => logs.push(m.text()));
    await setValue(page, 'api-key', KEY);
    assert.match(await runLive(page, { model: 'profile:ttft=20,tpot=2,tokens=20' }), /^Finished/);
    const found = {
      trace: await download(page, 'download-trace'),
      indexedDb: await dumpIndexedDb(page),
      localStorage: await page.evaluate(() => JSON.stringify(localStorage)),
      console: logs.join('\n'),
      url: page.url(),
    };
    await click(page, 'tab-library');
    await waitFor(page, 'library-row');
    found.bundle = await download(page, 'library-export');
    assert.ok(found.indexedDb.includes('"kind":"live"'), 'the dump reads the library');
    for (const [what, body] of Object.entries(found)) assert.ok(!body.includes('PLANTED'), `the key leaked into ${what}`);
    assert.ok((await page.evaluate(() => JSON.stringify(sessionStorage))).includes(KEY), 'kept for the session');
    assert.deepEqual(problems, []);
    await context.close();
  });
});
