// What the SDK tests share: a `fetch` that notes when each request left and
// its ground-truth id (every SDK takes one, or calls the global one), the
// server's record of a request, and three timed answers of a text profile
// checked against the server's clock (TTFT within the Chat tests' bounds,
// checkTtft; the median gap against the server's, checkItl).
import assert from 'node:assert/strict';
import { checkItl, checkTtft } from './precision.mjs';

export const TTFT = 120;
export const TPOT = 12;
/** 24 answer tokens, evenly paced. */
export const TEXT = `profile:ttft=${TTFT},tpot=${TPOT},tokens=24,jitter=constant`;
/** Reasoning (4 tokens), an answer (8) and a tool call (get_weather, 6 output tokens). */
export const FULL = `profile:ttft=${TTFT},tpot=${TPOT},tokens=8,reasoning=4,jitter=constant,tool_call=get_weather:5`;

/** A fetch that notes when each request left and its ground-truth id. */
export function noting(real = globalThis.fetch) {
  const calls = [];
  const f = async (url, init) => {
    const call = { sent: performance.now() };
    calls.push(call);
    const r = await real(url, init);
    call.id = r.headers.get('x-latency-lab-request-id');
    return r;
  };
  return { fetch: f, calls };
}

/** The server's own record of request `id` (when each chunk was sent). */
export async function truth(root, id) {
  return (await fetch(`${root}/v1/lab/requests/${id}`)).json();
}

/**
 * Three streamed answers of TEXT by `ask(onText)`; checks TTFT and gaps
 * against the server's clock. One answer first, untimed: an SDK's first call
 * in a process compiles its schemas and modules on the event loop, which
 * holds the first deltas back and then hands them over at once (seen once
 * in six runs beside a busy core: a median gap of 3 ms for the server's 12).
 * What is measured is the wire's pace, as every later call meets it.
 */
export async function timed(root, name, noted, ask, options = {}) {
  await ask(() => {});
  const rounds = [];
  for (let i = 0; i < 3; i++) {
    const arrived = [];
    await ask(() => arrived.push(performance.now()));
    const call = noted.calls.at(-1);
    rounds.push({ sent: call.sent, id: call.id, arrived });
  }
  return checkRounds(root, name, rounds, options);
}

/** The whole answer of `model`, as Chat Completions gives it (not streamed). */
export async function answerOf(root, model) {
  const r = await fetch(`${root}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'How fast?' }] }),
  });
  return (await r.json()).choices[0].message.content;
}

/**
 * Timed answers of TEXT, each `{ sent, id, arrived: [ms…] }` on one clock
 * (the client's): 24 text deltas each, the median gap against the server's
 * (checkItl) and TTFT within the Chat tests' bounds (checkTtft).
 */
export async function checkRounds(root, name, rounds, { reads = false, deltaMs } = {}) {
  const rows = [];
  for (const { sent: left, id, arrived } of rounds) {
    const t = await truth(root, id);
    const sent = t.chunks.map((c) => c.sent_ms);
    if (reads) {
      // Plain text has no token boundaries: a busy client may be handed two
      // tokens' writes in one read (the caller checks the text is whole).
      assert.ok(arrived.length >= 1 && arrived.length <= 24, `${name}: ${arrived.length} reads for 24 tokens`);
    } else {
      assert.equal(arrived.length, 24, `${name}: 24 text deltas`);
    }
    checkItl(arrived, sent);
    rows.push({ ttft_server: sent[0], ttft_delta: arrived[0] - left - sent[0] });
  }
  return checkTtft(rows, TTFT, deltaMs);
}

/**
 * What an SDK run reports (`{ rounds, full, error }`, from Python or a
 * page): TEXT at its pace (checkRounds); FULL's reasoning, answer, tool call
 * and output tokens (4 + 8 + 6); its own error, 404, naming the model.
 * Returns TEXT's timing (checkTtft's medians); `deltaMs`: checkTtft's
 * bound when not the Chat tests'.
 */
export async function checkSdkReport(root, sdk, out, { deltaMs } = {}) {
  const timing = await checkRounds(root, sdk, out.rounds, { deltaMs });
  const f = out.full;
  assert.ok(f.reasoning, `${sdk}: reasoning`);
  assert.ok(f.text.length > 0, `${sdk}: answer text`);
  assert.equal(f.tool, 'get_weather');
  assert.equal(typeof f.arguments, 'object');
  assert.equal(f.output_tokens, 4 + 8 + 6, `${sdk}: output tokens`);
  if ('reasoning_tokens' in f) assert.equal(f.reasoning_tokens, 4);
  assert.ok(out.error, `${sdk}: no error for a model the lab does not know`);
  assert.equal(out.error.status, 404);
  assert.match(out.error.message, /no-such-model/);
  return timing;
}
