// Firefox: every failure of a live run explains itself and keeps what
// arrived: HTTP 401/429/500 with the server's body, a stream cut mid-way,
// malformed SSE.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { firefoxSuite, openFirefoxPage } from '../e2e/lib/firefox.mjs';
import { content, downloadTrace, runLive, text } from '../e2e/lib/dom.mjs';

describe('live-mode errors (Firefox)', () => {
  const lab = firefoxSuite();
  let page;
  let context;
  before(async () => {
    ({ page, context } = await openFirefoxPage(lab.browser, `${lab.server.url}#live`));
  });
  after(() => context?.close());

  const failureOf = async (model) => {
    await runLive(page, { model });
    const message = await text(page, 'failure-message');
    const trace = await downloadTrace(page);
    return { message, request: trace.requests[0] };
  };

  test('HTTP 401, 429 with Retry-After, 500 and 404 explain themselves, with the body', async () => {
    let f = await failureOf('profile:fast-start|status=401');
    assert.match(f.message, /^HTTP 401\. The server refused the credentials: check the API key/);
    f = await failureOf('profile:fast-start|status=429,retry_after=7');
    assert.match(f.message, /^HTTP 429\. Rate limited: the server asks to retry after 7 s/);
    f = await failureOf('profile:fast-start|status=500');
    assert.match(f.message, /^HTTP 500\. The server failed while handling the request\. Server says: injected fault/);
    assert.equal(f.request.failure.status, 500);
    f = await failureOf('no-such-model');
    assert.match(f.message, /^HTTP 404\. Not found: check the base URL .* Server says: model "no-such-model" is not served here/);
    assert.match(await content(page, 'failure-body'), /model_not_found/);
  });

  test('a stream cut mid-way keeps the partial response', async () => {
    const { message, request } = await failureOf('profile:ttft=20,tpot=5,tokens=40|drop_after=12');
    assert.match(message, /^The connection broke after 12 chunk\(s\): .*The partial response is kept\.$/);
    assert.equal(request.failure.kind, 'truncated');
    assert.equal(request.chunks.length, 12);
  });

  test('malformed SSE is named and the rest of the stream is kept', async () => {
    const { message, request } = await failureOf('profile:ttft=20,tpot=5,tokens=20|malformed_after=5');
    assert.match(message, /^The stream is not valid OpenAI-style SSE \(event \d+: stream event is not valid JSON/);
    assert.equal(request.failure.kind, 'malformed');
    assert.equal(request.chunks.length, 20);
  });
});
