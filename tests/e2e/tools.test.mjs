// Tool calls streamed by the replay endpoint (`tool_call=NAME:ARG_TOKENS`)
// and measured in Live: a call-only response is completed, text then a call
// keeps both, two calls in one response show as two; time to first tool
// call and tool calls complete are figures of the run.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { downloadTrace, labSuite, openPage, setField, waitForText } from './lib/lab.mjs';

const PROFILE = 'profile:ttft=80,tpot=5,jitter=constant';

async function stream(page, model) {
  await setField(page, 'model', model);
  await page.getByTestId('start').click();
  await waitForText(page.getByTestId('run-status'), /^Finished/, 20_000);
  await page.getByTestId('run-results').waitFor(); // drawn by the runs module
}

/** The calls shown: [name, arguments]. */
async function shownCalls(page) {
  return page.getByTestId('tool-call').evaluateAll((calls) =>
    calls.map((c) => [c.querySelector('[data-testid=tool-call-name]').textContent, c.querySelector('[data-testid=tool-call-args]').textContent]));
}

describe('tool calls', () => {
  const lab = labSuite();

  test('a call-only response is completed and timed', async () => {
    const { page, context, problems } = await openPage(lab.browser, `${lab.server.url}#live`);
    await stream(page, `${PROFILE},tokens=0,tool_call=get_weather:6`);
    const calls = await shownCalls(page);
    assert.equal(calls.length, 1);
    assert.equal(calls[0][0], 'get_weather');
    assert.equal(typeof JSON.parse(calls[0][1]).query, 'string', 'the arguments are whole JSON');
    assert.equal(await page.getByTestId('output').innerText(), '');
    assert.equal(await page.getByTestId('completed').textContent(), '1');
    assert.equal(await page.getByTestId('failed').textContent(), '0');
    const first = Number.parseFloat(await page.getByTestId('live-first-tool-call').textContent());
    assert.ok(first >= 80 && first < 80 + 250, `first tool call ${first} ms`);
    const complete = Number.parseFloat(await page.getByTestId('metric-tool_calls_complete-median').textContent());
    assert.ok(complete >= 80 + 6 * 5 && complete < 80 + 6 * 5 + 250, `complete ${complete} ms`);
    // How it felt: one fast request.
    assert.equal(await page.getByTestId('feel-apdex').textContent(), '1.00');
    assert.match(await page.getByTestId('feel-fluidity').textContent(), /^1\.00 \(median 1\.00/);
    const { trace } = await downloadTrace(page);
    const kinds = trace.requests[0].chunks.map((c) => c.kind ?? 'content');
    assert.ok(kinds.every((k) => k === 'tool_call'), kinds.join());
    assert.equal(trace.requests[0].chunks[0].tool.name, 'get_weather');
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('text then a call keeps both; two calls show as two', async () => {
    const { page, context, problems } = await openPage(lab.browser, `${lab.server.url}#live`);
    await stream(page, `${PROFILE},tokens=12,tool_call=search:4`);
    assert.ok((await page.getByTestId('output').innerText()).length > 10, 'the text is shown');
    assert.deepEqual((await shownCalls(page)).map((c) => c[0]), ['search']);
    await stream(page, `${PROFILE},tokens=0,tool_call=get_weather:5+get_time:3`);
    const calls = await shownCalls(page);
    assert.deepEqual(calls.map((c) => c[0]), ['get_weather', 'get_time']);
    for (const [, args] of calls) JSON.parse(args);
    assert.deepEqual(problems, []);
    await context.close();
  });
});
