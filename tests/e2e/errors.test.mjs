// Every failure of a live run gets a clear message in the UI, and the
// partial trace is kept, marked as failed: HTTP errors with the server's
// body, CORS refusal, unreachable server, malformed SSE, a stream cut mid-way.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { LATE_MS, downloadTrace, launchBrowser, openPage, runLive, startServer } from './lib/lab.mjs';

/** A server that streams a valid SSE answer but sends no CORS headers. */
function startNoCorsServer() {
  const srv = http.createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    res.end('data: {"choices":[{"index":0,"delta":{"content":"hi"}}]}\n\ndata: [DONE]\n\n');
  });
  return new Promise((resolve) => srv.listen(0, '127.0.0.1', () => resolve(srv)));
}

describe('live-mode errors', () => {
  let server;
  let browser;
  let page;
  let context;
  before(async () => {
    server = await startServer();
    browser = await launchBrowser();
    ({ page, context } = await openPage(browser, `${server.url}#live`));
  });
  after(async () => {
    await context?.close();
    await browser?.close();
    server?.stop();
  });

  const failureOf = async (model, opts = {}) => {
    await runLive(page, { model, ...opts });
    const message = await page.getByTestId('failure-message').first().innerText();
    const { trace } = await downloadTrace(page);
    return { message, request: trace.requests[0] };
  };

  test('unknown model: HTTP 404 with the server body', async () => {
    const { message, request } = await failureOf('no-such-model');
    assert.match(message, /^HTTP 404\. Not found: check the base URL .* Server says: model "no-such-model" is not served here/);
    assert.equal(request.failure.kind, 'http');
    assert.equal(request.status, 404);
    assert.match(request.failure.body, /"type":"model_not_found"/);
    assert.match(await page.getByTestId('failure-body').textContent(), /model_not_found/);
  });

  test('HTTP 401, 429 with Retry-After, and 500 explain themselves', async () => {
    let f = await failureOf('profile:fast-start|status=401');
    assert.match(f.message, /^HTTP 401\. The server refused the credentials: check the API key/);
    f = await failureOf('profile:fast-start|status=429,retry_after=7');
    assert.match(f.message, /^HTTP 429\. Rate limited: the server asks to retry after 7 s/);
    f = await failureOf('profile:fast-start|status=500');
    assert.match(f.message, /^HTTP 500\. The server failed while handling the request\. Server says: injected fault/);
    assert.equal(f.request.failure.status, 500);
  });

  test('malformed SSE is named and the rest of the stream is kept', async () => {
    const { message, request } = await failureOf('profile:ttft=20,tpot=5,tokens=20|malformed_after=5');
    assert.match(message, /^The stream is not valid OpenAI-style SSE \(event \d+: stream event is not valid JSON/);
    assert.equal(request.failure.kind, 'malformed');
    assert.equal(request.chunks.length, 20);
  });

  test('a stream cut mid-way keeps the partial response', async () => {
    const { message, request } = await failureOf('profile:ttft=20,tpot=5,tokens=40|drop_after=12');
    assert.match(message, /^The connection broke after 12 chunk\(s\): .*The partial response is kept\.$/);
    assert.equal(request.failure.kind, 'truncated');
    assert.equal(request.chunks.length, 12);
    assert.match(await page.getByTestId('run-results').innerText(), /12 chunk\(s\) received before it are kept in the trace/);
  });

  test('injected stalls, garbage bytes, slow headers and an oversized chunk: named, kept, usable', async () => {
    // A 1.5 s stall after 5 chunks: the run finishes and lists the stall.
    await runLive(page, { model: 'profile:ttft=20,tpot=5,tokens=20|stall_after=5,stall_ms=1500' });
    let { trace } = await downloadTrace(page);
    let chunks = trace.requests[0].chunks;
    const gaps = chunks.slice(1).map((c, i) => c.arrived_ms - chunks[i].arrived_ms);
    // The stall's chunk leaves 1.5 s after the one before it; either may be read late.
    const longest = Math.max(...gaps);
    assert.ok(longest >= 1500 - LATE_MS && longest < 1500 + LATE_MS, `longest gap ${longest}`);
    assert.match(await page.getByTestId('run-results').innerText(), /stall/i);
    // Garbage bytes mid-stream: a clear message, what came before is kept.
    const g = await failureOf('profile:ttft=20,tpot=5,tokens=20|garbage_after=6');
    assert.match(g.message, /not valid OpenAI-style SSE|not an SSE field/);
    assert.ok(g.request.chunks.length >= 6, `${g.request.chunks.length} chunks kept`);
    // Slow-loris headers: TTFB shows the wait; the run completes.
    await runLive(page, { model: 'profile:ttft=20,tpot=5,tokens=10|headers_delay_ms=1200' });
    ({ trace } = await downloadTrace(page));
    const r = trace.requests[0];
    assert.ok(r.headers_ms - r.sent_ms >= 1190, `TTFB ${r.headers_ms - r.sent_ms}`);
    assert.equal(r.failure ?? null, null);
    // A 4 MB first chunk arrives whole and is counted once.
    await runLive(page, { model: 'profile:ttft=20,tpot=5,tokens=10|oversized=4000000' });
    ({ trace } = await downloadTrace(page));
    chunks = trace.requests[0].chunks;
    assert.ok(chunks.some((c) => c.text.length >= 4_000_000), 'the oversized chunk is kept');
    assert.equal(trace.requests[0].failure ?? null, null);
    assert.match(await page.getByTestId('run-status').innerText(), /^Finished/);
  });

  test('unreachable server and CORS refusal say what to do', async () => {
    let f = await failureOf('any', { baseUrl: 'http://127.0.0.1:9/v1' });
    assert.match(f.message, /^Could not reach http:\/\/127\.0\.0\.1:9\/v1\/chat\/completions \(the browser says: Failed to fetch\)\./);
    assert.match(f.message, /does not allow requests from this page's origin http:\/\/127\.0\.0\.1:\d+ \(CORS\)/);
    assert.equal(f.request.failure.kind, 'network');
    const noCors = await startNoCorsServer();
    try {
      await page.getByTestId('preset').selectOption('vllm');
      f = await failureOf('m', { baseUrl: `http://127.0.0.1:${noCors.address().port}/v1` });
      assert.match(f.message, /\(CORS\)\. Start vLLM with --allowed-origins '\["http:\/\/127\.0\.0\.1:\d+"\]'/);
    } finally {
      noCors.close();
      await page.getByTestId('preset').selectOption('replay');
    }
    // The lab is still usable after all of that.
    await runLive(page, { model: 'profile:ttft=10,tpot=2,tokens=10' });
    assert.match(await page.getByTestId('run-status').innerText(), /^Finished/);
    assert.equal(await page.getByTestId('failure-message').count(), 0);
  });
});
