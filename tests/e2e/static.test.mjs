// Chromium: `dist/` on a plain static server (no isolation headers): the
// app loads, the badge says what precision was lost and how to get it
// back, the landing replay plays, live streams from a CORS-enabled
// endpoint on another origin. The same checks run in Firefox
// (tests/e2e-firefox/static.test.mjs).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, openPage, startServer } from './lib/lab.mjs';
import { checkBadge, checkLive, checkReplay, startStaticServer } from './lib/static_hosting.mjs';

describe('static hosting (Chromium)', () => {
  let host;
  let endpoint;
  let browser;
  before(async () => {
    host = await startStaticServer();
    endpoint = await startServer();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    endpoint?.stop();
    host?.stop();
  });

  test('loads, says what precision was lost, replays, streams live across origins', async () => {
    const { page, context, problems } = await openPage(browser, host.url);
    assert.match(await checkBadge(page), /^Clock step (100 µs|0\.10 ms) · not isolated$/);
    const replay = await checkReplay(page);
    assert.equal(replay.meta.client.browser, 'Chrome'); // Debian's Chromium says "HeadlessChrome"
    await checkLive(page, `${endpoint.url}v1`);
    assert.deepEqual(problems, []);
    await context.close();
  });
});
