// Live over every wire (issue 45), written once for every browser's adapter
// (`open(browser, url)` → `{ page, close, problems }`): the Live view sends
// its request in each wire the replay endpoint speaks (OpenAI Responses,
// Anthropic Messages, Gemini, Ollama's native API, the AI SDK's UI message
// and data streams, plain text), reads the answer with core's decoder for
// that wire, and measures it as precisely as over OpenAI Chat in the same
// browser and run: every TTFT at or after the server sent the first chunk,
// the server on time (SERVER_LATE_MS), the median TTFT after the server's
// within WIRE_OVER_CHAT_MS of Chat's (a first chunk stamped a frame late
// fails it), and the median gap against the server's (checkItl). The trace
// records its wire.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from './lab.mjs';
import { downloadTrace, runLive, setValue } from './dom.mjs';
import { SERVER_LATE_MS, assertFails, checkItl, median } from './precision.mjs';

const TTFT = 150;
const MODEL = `profile:ttft=${TTFT},tpot=15,tokens=30,jitter=constant`;
const WIRES = ['chat', 'responses', 'anthropic', 'gemini', 'ollama', 'ui_stream', 'data_stream', 'text'];
/** How much later than over Chat a wire's median TTFT may be read (ms):
 *  decoding one more JSON shape costs microseconds; a frame (16.7 ms) is
 *  what a broken stamp costs. */
const WIRE_OVER_CHAT_MS = 3;

/** The TTFT check of one wire against Chat's median delta. */
function checkWire(wire, rows, chat) {
  for (const r of rows) {
    assert.ok(r.ttft_delta >= 0, `${wire}: TTFT ${r.ttft_delta.toFixed(3)} ms before the server sent it`);
  }
  const server = median(rows.map((r) => r.ttft_server)) - TTFT;
  assert.ok(server >= 0 && server <= SERVER_LATE_MS, `${wire}: the server's median first chunk ${server.toFixed(3)} ms late`);
  const delta = median(rows.map((r) => r.ttft_delta));
  assert.ok(delta <= chat + WIRE_OVER_CHAT_MS, `${wire}: median TTFT ${delta.toFixed(3)} ms after the server sent it, over Chat ${chat.toFixed(3)} ms (bound +${WIRE_OVER_CHAT_MS} ms)`);
  return delta;
}

export function wiresSuite({ name, launch, open }) {
  describe(`Live over every wire (${name})`, () => {
    let server, browser;
    before(async () => {
      server = await startServer([]);
      browser = await launch();
    });
    after(async () => {
      await browser?.close();
      server?.stop();
    });

    test('each wire: complete answers, TTFT and gaps as the server sent them, the wire in the trace', async () => {
      const { page, close, problems } = await open(browser, `${server.url}#live`);
      let chat = null;
      try {
        // A first run warms the page and the connection (its first request
        // loads the runs module): Chat is then measured like every wire.
        await setValue(page, 'api-flavour', 'chat');
        await runLive(page, { model: MODEL, mode: 'repeat', n: 5 });
        for (const wire of WIRES) {
          await setValue(page, 'api-flavour', wire);
          const status = await runLive(page, { model: MODEL, mode: 'repeat', n: 5 });
          assert.match(status, /^Finished/, `${wire}: ${status}`);
          const trace = await downloadTrace(page);
          assert.equal(trace.meta.wire ?? 'chat', wire, 'the trace records its wire');
          const rows = trace.requests.map((r) => {
            assert.equal(r.failure, undefined, `${wire}: ${JSON.stringify(r.failure)}`);
            const answer = r.chunks.filter((c) => (c.kind ?? 'content') === 'content');
            assert.equal(answer.length, 30, `${wire}: the profile's 30 tokens`);
            assert.ok(r.server, `${wire}: ground truth attached`);
            checkItl(answer.map((c) => c.arrived_ms), r.server.chunks_sent_ms);
            const ttft = r.chunks[0].arrived_ms - r.sent_ms;
            return { ttft_server: r.server.chunks_sent_ms[0], ttft_delta: ttft - r.server.chunks_sent_ms[0] };
          });
          const delta = median(rows.map((r) => r.ttft_delta));
          chat ??= delta;
          checkWire(wire, rows, chat);
          assertFails(`${wire} with the first chunk stamped a frame late`, () =>
            checkWire(wire, rows.map((r) => ({ ...r, ttft_delta: r.ttft_delta + 1000 / 60 })), chat));
        }
        assert.deepEqual(await problems(), []);
      } finally {
        await close();
      }
    });
  });
}
