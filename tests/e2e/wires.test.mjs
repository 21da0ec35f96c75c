// Live over every wire (issue 45): the Live view sends its request in each
// wire the replay endpoint speaks (OpenAI Responses, Anthropic Messages,
// Gemini, Ollama's native API, the AI SDK's UI message and data streams,
// plain text), reads the answer with core's decoder for that wire, and
// measures it as precisely as over OpenAI Chat: TTFT against the server's
// own clock (checkTtft, with its broken variants failing) and the median
// gap against the server's (checkItl). The trace records its wire.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { downloadTrace, labSuite, openPage, runLive } from './lib/lab.mjs';
import { checkItl, checkTtft, ttftFailsBroken } from './lib/precision.mjs';

const TTFT = 150;
const MODEL = `profile:ttft=${TTFT},tpot=15,tokens=30,jitter=constant`;
const WIRES = ['responses', 'anthropic', 'gemini', 'ollama', 'ui_stream', 'data_stream', 'text'];

describe('Live over every wire', () => {
  const lab = labSuite();

  test('each wire: complete answers, TTFT and gaps as the server sent them, the wire in the trace', async () => {
    const { page, context, problems } = await openPage(lab.browser, `${lab.server.url}#live`);
    for (const wire of WIRES) {
      await page.getByTestId('api-flavour').selectOption(wire);
      const status = await runLive(page, { model: MODEL, mode: 'concurrent', n: 3 }).then(() => page.getByTestId('run-status').innerText());
      assert.match(status, /^Finished/, `${wire}: ${status}`);
      const { trace } = await downloadTrace(page);
      assert.equal(trace.meta.wire, wire, 'the trace records its wire');
      const rows = trace.requests.map((r) => {
        assert.equal(r.failure, undefined, `${wire}: ${JSON.stringify(r.failure)}`);
        const answer = r.chunks.filter((c) => (c.kind ?? 'content') === 'content');
        assert.equal(answer.length, 30, `${wire}: the profile's 30 tokens`);
        assert.ok(r.server, `${wire}: ground truth attached`);
        checkItl(answer.map((c) => c.arrived_ms), r.server.chunks_sent_ms);
        const ttft = r.chunks[0].arrived_ms - r.sent_ms;
        return { ttft_server: r.server.chunks_sent_ms[0], ttft_delta: ttft - r.server.chunks_sent_ms[0] };
      });
      checkTtft(rows, TTFT);
      ttftFailsBroken(rows, TTFT, 1000 / 60);
    }
    assert.deepEqual(problems, []);
    await context.close();
  });
});
