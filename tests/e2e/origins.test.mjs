// Where latency comes from, in Live against the replay endpoint's server
// model: a prompt-length sweep recovers the profile's prefill rate, a
// conversation shows what a stable prefix saves, the prefix cache halves
// a repeated long prompt's TTFT (and does nothing when off), and a
// concurrency sweep and a rate ramp against `slots=4` find the knee.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeJson, downloadTrace, labSuite, openPage, runLive, setField, waitForText } from './lib/lab.mjs';

const ttfts = (requests) => requests.map((r) => r.chunks.find((c) => (c.tokens ?? 1) > 0).arrived_ms - r.sent_ms);

describe('where latency comes from', () => {
  const lab = labSuite();

  test('a prompt-length sweep fits the prefill rate of the profile within 10%', async () => {
    const { page, context, problems } = await openPage(lab.browser, `${lab.server.url}#live`);
    await setField(page, 'model', 'profile:ttft=30,tpot=5,tokens=4,jitter=constant,prefill=0.25');
    await page.getByTestId('run-mode').selectOption('prompt_sweep');
    await setField(page, 'run-rounds', 1);
    await page.getByTestId('run-prompt-max').selectOption('4096');
    await page.getByTestId('start').click();
    await waitForText(page.getByTestId('run-status'), /^Finished/, 60_000);
    await page.getByTestId('run-results').waitFor(); // drawn by the runs module
    const summary = await page.getByTestId('prefill-summary').textContent();
    const rate = Number(/about (\d+) tokens\/s/.exec(summary)?.[1]);
    assert.ok(Math.abs(rate - 4000) <= 400, `fitted ${rate} tokens/s against 4000: ${summary}`);
    assert.equal(await page.getByTestId('prefill-point').count(), 5, '64 … 4096 tokens');
    const { trace } = await downloadTrace(page);
    const prompts = trace.requests.map((r) => r.usage.prompt_tokens);
    assert.ok(prompts[4] > 3500 && prompts[0] < 100, `prompt tokens ${prompts}`);
    assert.ok(trace.requests.every((r) => r.usage.prompt_tokens > 0 && r.usage.cached_tokens === undefined), 'unique prompts: nothing cached');
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('a conversation: from turn 2 a stable prefix answers sooner than a changed one', async () => {
    const { page, context, problems } = await openPage(lab.browser, `${lab.server.url}#live`);
    await setField(page, 'model', 'profile:ttft=30,tpot=2,tokens=60,jitter=constant,prefill=1');
    await page.getByTestId('run-mode').selectOption('conversation');
    await setField(page, 'run-turns', 3);
    await page.getByTestId('start').click();
    await waitForText(page.getByTestId('run-status'), /^Finished/, 60_000);
    await page.getByTestId('run-results').waitFor(); // drawn by the runs module
    assert.equal(await page.getByTestId('turn-row').count(), 6);
    assert.match(await page.getByTestId('turns-saving').textContent(), /prefix caching saves about \d+ ms/);
    const { trace } = await downloadTrace(page);
    const stable = trace.requests.filter((r) => r.group === 'stable prefix');
    const changed = trace.requests.filter((r) => r.group === 'changed prefix');
    assert.deepEqual(stable.map((r) => r.turn), [0, 1, 2]);
    const [s, c] = [ttfts(stable), ttfts(changed)];
    assert.ok(s[2] < c[2], `turn 3: stable ${s[2]} ms, changed ${c[2]} ms`);
    assert.ok(stable[2].usage.prompt_tokens > stable[0].usage.prompt_tokens, 'the context grows');
    assert.ok(stable[2].usage.cached_tokens > 0 && changed[2].usage.cached_tokens === undefined, 'the server reports what it cached');
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('the same long prompt twice: cache on halves the second TTFT, cache off does not', async () => {
    const { page, context } = await openPage(lab.browser, `${lab.server.url}#live`);
    await setField(page, 'prompt', 'Tell me about latency. '.repeat(300));
    const twice = async (cache) => {
      await runLive(page, { model: `profile:ttft=20,tpot=5,tokens=5,jitter=constant,prefill=0.5,cache=${cache}`, mode: 'repeat', n: 2 });
      return ttfts((await downloadTrace(page)).trace.requests);
    };
    const on = await twice('on');
    assert.ok(on[1] <= on[0] / 2, `cache on: ${on}`);
    const off = await twice('off');
    assert.ok(off[0] > 400 && Math.abs(off[1] - off[0]) < 0.25 * off[0], `cache off: ${off}`);
    await context.close();
  });

  test('slots=4: the concurrency sweep and a rate ramp both find the knee near 4', async () => {
    const { page, context } = await openPage(lab.browser, `${lab.server.url}#live`);
    const model = 'profile:ttft=50,tpot=10,tokens=30,jitter=constant,slots=4';
    await runLive(page, { model, mode: 'sweep', n: 16, rounds: 1, timeout: 90_000 });
    const knee = Number(await page.locator('[data-testid=sweep-row].knee th').textContent());
    assert.ok([2, 4, 8].includes(knee), `knee at ${knee}: ${await page.getByTestId('saturation').textContent()}`);
    // A ramp from 1 to 20 requests/s over 16 s: the server holds 4 at once
    // (each about 0.4 s, so it keeps up to about 9 requests/s).
    await page.getByTestId('run-mode').selectOption('rate');
    await setField(page, 'run-rate', 20);
    await setField(page, 'run-duration', 16);
    await setField(page, 'run-ramp-from', 1);
    assert.match(await page.getByTestId('run-rate-note').textContent(), /at most 6 streams/);
    await page.getByTestId('start').click();
    // Running from the start (not the sweep's "Finished" until a first answer), with requests in flight.
    await waitForText(page.getByTestId('run-status'), /^Streaming… \d+ of \d+ request\(s\) done, [1-9]\d* at once/, 10_000);
    await waitForText(page.getByTestId('run-status'), /^Finished/, 90_000);
    await page.getByTestId('run-results').waitFor(); // drawn by the runs module
    const summary = await page.getByTestId('rate-summary').textContent();
    assert.match(summary, /Requests started to queue at about [\d.]+ requests\/s/);
    assert.match(summary, /The browser (sent [\d.]+ ms late at P99|could not keep the schedule: it sent \d+ ms late at P99)/);
    assert.match(summary, /so the queue is at the server/, 'slots=4: the server queues, not the browser');
    const { trace, path: file } = await downloadTrace(page);
    // Past the knee the server delivers what 4 slots can: each 30-token
    // answer takes 50 + 29 × 10 × 1.3 = 427 ms with 4 decoding, so about
    // 281 tokens/s; the plateau of system tokens/s is 3 to 5 slots' worth
    // (without slots the browser's 6 connections would give about 7.5).
    const { windows, saturation } = analyzeJson(file).rate_run;
    assert.ok(saturation >= 1, `saturation window ${saturation}`);
    const plateau = Math.max(...windows.map((w) => w.system_tokens_per_s));
    const slots = plateau / (30 / 0.427);
    assert.ok(slots >= 3 && slots <= 5, `plateau ${plateau} tokens/s = ${slots.toFixed(1)} slots: ${JSON.stringify(windows)}`);
    assert.ok(trace.requests.length > 100, `${trace.requests.length} requests`);
    assert.ok(trace.requests.every((r) => typeof r.scheduled_ms === 'number'));
    await context.close();
  });

  test("a rate run beyond the browser's 6 connections puts the queue in the browser; Live shows this run", async () => {
    const { page, context, problems } = await openPage(lab.browser, `${lab.server.url}#live`);
    // A first run whose figures must not stay on screen.
    await runLive(page, { model: 'profile:ttft=600,tpot=5,tokens=10,jitter=constant' });
    assert.match(await page.getByTestId('live-ttft').innerText(), /^6\d\d\.\d ms$/);
    // No slot limit: the server answers every request in 150 ms and keeps
    // pace, but 10 requests/s of 0.93 s streams need more than 6 connections.
    await setField(page, 'model', 'profile:ttft=150,tpot=20,tokens=40,jitter=constant');
    await page.getByTestId('run-mode').selectOption('rate');
    assert.equal(await page.getByTestId('run-rate-n').inputValue(), '60', 'enough requests by default to show a rate');
    await setField(page, 'run-rate', 10);
    await setField(page, 'run-rate-n', 40);
    await page.getByTestId('start').click();
    // In flight from the first send; the figures and the answer are this run's.
    await waitForText(page.getByTestId('run-status'), /^Streaming… \d+ of 40 request\(s\) done, [1-9]\d* at once/, 5_000);
    const ttft = await waitForText(page.getByTestId('live-ttft'), /ms$/, 5_000);
    assert.ok(Number.parseFloat(ttft) < 450, `the tile shows this run's first request (${ttft}), not the last run's 600 ms`);
    await waitForText(page.getByTestId('run-status'), /^Finished/, 60_000);
    await page.getByTestId('run-results').waitFor(); // drawn by the runs module
    const summary = await page.getByTestId('rate-summary').textContent();
    assert.match(summary, /^Requests queued in the browser, not at the server/, summary);
    assert.doesNotMatch(summary, /Requests started to queue/);
    assert.match(summary, /The server's own clock: its TTFT went from 1\d\d ms to 1\d\d ms/, summary);
    const { trace, path: file } = await downloadTrace(page);
    assert.equal(trace.requests.length, 40);
    assert.equal(analyzeJson(file).rate_run.cause.at, 'browser', '`analyze` says the same');
    // The answer on the page is this run's (40 tokens), not the first run's 10.
    assert.equal(await page.getByTestId('live-tokens').innerText(), '40');
    assert.deepEqual(problems, []);
    await context.close();
  });
});
