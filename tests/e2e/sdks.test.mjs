// The official SDKs, unchanged, against the replay endpoint (issue 45), in
// Node: npm `openai` (the Responses API), `@anthropic-ai/sdk`
// (`messages.stream`), `@google/genai` (`generateContentStream`) and
// `ollama` (`chat` streaming). Each reads a profile with reasoning, an
// answer and a tool call as it reads its provider: text, reasoning, the
// call, usage and finish as the SDK reports them; its own error for a model
// the lab does not know; and the timing as profiled: TTFT against the
// server's clock within the Chat tests' bounds (checkTtft) and the median
// gap against the server's (checkItl). Each SDK is given a `fetch` (a
// documented option of all four) that only notes when the request left and
// the response's ground-truth id.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { Ollama } from 'ollama';
import { startServer } from './lib/lab.mjs';
import { FULL, TEXT, noting, timed as timedAt } from './lib/sdk_timing.mjs';

let server, root;
before(async () => {
  server = await startServer([]);
  root = server.url.replace(/\/$/, '');
});
after(() => server?.stop());

const timed = (...args) => timedAt(root, ...args);

describe('the official SDKs read the replay endpoint as their provider', () => {
  test('openai: Responses streamed (responses.create, stream: true) and responses.stream', async () => {
    const noted = noting();
    const client = new OpenAI({ baseURL: `${root}/v1`, apiKey: 'lab', fetch: noted.fetch });
    await timed('openai', noted, async (onText) => {
      const stream = await client.responses.create({ model: TEXT, input: 'How fast?', stream: true });
      for await (const e of stream) if (e.type === 'response.output_text.delta') onText();
    });
    const s = client.responses.stream({ model: FULL, input: 'Weather?' });
    const kinds = new Set();
    for await (const e of s) kinds.add(e.type);
    const r = await s.finalResponse();
    assert.ok(kinds.has('response.reasoning_summary_text.delta') && kinds.has('response.function_call_arguments.delta'), [...kinds].join());
    assert.ok(r.output_text.length > 0, 'output_text');
    const call = r.output.find((o) => o.type === 'function_call');
    assert.equal(call?.name, 'get_weather');
    JSON.parse(call.arguments);
    assert.equal(r.usage.output_tokens, 4 + 8 + 6);
    assert.equal(r.usage.output_tokens_details.reasoning_tokens, 4);
    await assert.rejects(client.responses.create({ model: 'no-such-model', input: 'x', stream: true }),
      (e) => e instanceof OpenAI.NotFoundError && /no-such-model/.test(e.message));
  });

  test('@anthropic-ai/sdk: messages.stream', async () => {
    const noted = noting();
    const client = new Anthropic({ baseURL: root, apiKey: 'lab', fetch: noted.fetch });
    await timed('anthropic', noted, async (onText) => {
      const stream = client.messages.stream({ model: TEXT, max_tokens: 64, messages: [{ role: 'user', content: 'How fast?' }] });
      stream.on('text', onText);
      await stream.finalMessage();
    });
    const stream = client.messages.stream({ model: FULL, max_tokens: 64, messages: [{ role: 'user', content: 'Weather?' }] });
    let thinking = '';
    stream.on('thinking', (d) => { thinking += d; });
    const m = await stream.finalMessage();
    assert.ok(thinking.length > 0, 'thinking deltas');
    assert.deepEqual(m.content.map((b) => b.type), ['thinking', 'text', 'tool_use']);
    assert.equal(m.content[2].name, 'get_weather');
    assert.equal(typeof m.content[2].input, 'object');
    assert.equal(m.stop_reason, 'tool_use');
    assert.equal(m.usage.output_tokens, 4 + 8 + 6);
    await assert.rejects(client.messages.create({ model: 'no-such-model', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }),
      (e) => e instanceof Anthropic.NotFoundError && /no-such-model/.test(e.message));
  });

  test('@google/genai: generateContentStream', async () => {
    const noted = noting();
    const ai = new GoogleGenAI({ apiKey: 'lab', httpOptions: { baseUrl: root } });
    // The SDK calls the global fetch: note its calls there.
    const global = globalThis.fetch;
    globalThis.fetch = noted.fetch;
    try {
      await timed('gemini', noted, async (onText) => {
        const stream = await ai.models.generateContentStream({ model: TEXT, contents: 'How fast?' });
        for await (const chunk of stream) if (chunk.text) onText();
      });
      let thought = 0, calls = [], usage = null;
      for await (const chunk of await ai.models.generateContentStream({ model: FULL, contents: 'Weather?' })) {
        for (const p of chunk.candidates?.[0]?.content?.parts ?? []) thought += p.thought ? 1 : 0;
        calls.push(...(chunk.functionCalls ?? []));
        usage = chunk.usageMetadata ?? usage;
      }
      assert.ok(thought > 0, 'thought parts');
      assert.equal(calls[0]?.name, 'get_weather');
      assert.equal(usage.thoughtsTokenCount, 4);
      assert.equal(usage.candidatesTokenCount + usage.thoughtsTokenCount, 4 + 8 + 6);
      await assert.rejects(ai.models.generateContentStream({ model: 'no-such-model', contents: 'x' }).then(async (s) => { for await (const _ of s); }),
        (e) => /no-such-model/.test(e.message));
    } finally {
      globalThis.fetch = global;
    }
  });

  test('ollama: chat streamed', async () => {
    const noted = noting();
    const client = new Ollama({ host: root, fetch: noted.fetch });
    await timed('ollama', noted, async (onText) => {
      for await (const part of await client.chat({ model: TEXT, messages: [{ role: 'user', content: 'How fast?' }], stream: true })) {
        if (part.message.content) onText();
      }
    });
    let thinking = '', calls = [], last = null;
    for await (const part of await client.chat({ model: FULL, messages: [{ role: 'user', content: 'Weather?' }], stream: true })) {
      thinking += part.message.thinking ?? '';
      calls.push(...(part.message.tool_calls ?? []));
      last = part;
    }
    assert.ok(thinking.length > 0, 'thinking');
    assert.equal(calls[0]?.function.name, 'get_weather');
    assert.equal(typeof calls[0].function.arguments, 'object');
    assert.equal(last.done, true);
    assert.equal(last.eval_count, 4 + 8 + 6);
    await assert.rejects(client.chat({ model: 'no-such-model', messages: [{ role: 'user', content: 'x' }], stream: true }).then(async (s) => { for await (const _ of s); }),
      (e) => /no-such-model/.test(e.message));
  });
});
