// Firefox: `dist/` on a plain static server (no isolation headers): the
// same checks as tests/e2e/static.test.mjs.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../e2e/lib/lab.mjs';
import { launchFirefox, openFirefoxPage } from '../e2e/lib/firefox.mjs';
import { checkBadge, checkLive, checkReplay, startStaticServer } from '../e2e/lib/static_hosting.mjs';

describe('static hosting (Firefox)', () => {
  let host;
  let endpoint;
  let browser;
  before(async () => {
    host = await startStaticServer();
    endpoint = await startServer();
    browser = await launchFirefox();
  });
  after(async () => {
    await browser?.close();
    endpoint?.stop();
    host?.stop();
  });

  test('loads, says what precision was lost, replays, streams live across origins', async () => {
    const { page, context, problems } = await openFirefoxPage(browser, host.url);
    assert.match(await checkBadge(page), /^Clock step 1 ms · not isolated$/);
    const replay = await checkReplay(page);
    assert.equal(replay.meta.client.browser, 'Firefox');
    await checkLive(page, `${endpoint.url}v1`);
    assert.deepEqual(problems, []);
    await context.close();
  });
});
