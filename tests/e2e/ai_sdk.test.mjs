// The Vercel AI SDK, unchanged, against the replay endpoint (issue 45), in
// Node. `streamText` over each provider a product builds on — `@ai-sdk/openai`
// (the Responses API), `@ai-sdk/anthropic`, `@ai-sdk/google` and
// `@ai-sdk/openai-compatible` (Chat Completions) — reads every answer whole,
// with reasoning, the tool call and usage as the SDK reports them, its own
// error for a model the lab does not know, and the profile's timing against
// the server's clock (the bounds of the Chat tests). And the AI SDK's front
// end, as `useChat` reads it: `DefaultChatTransport` over the UI message
// stream and `TextStreamChatTransport` over plain text, fed by the lab's
// `/v1/lab/ui-stream` and `/v1/lab/text-stream`.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { streamText, jsonSchema, tool, readUIMessageStream, DefaultChatTransport, TextStreamChatTransport } from 'ai';
import { createOpenAI } from '@ai-sdk/openai';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogle } from '@ai-sdk/google';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { startServer } from './lib/lab.mjs';
import { FULL, TEXT, answerOf, noting, timed } from './lib/sdk_timing.mjs';

let server, root;
before(async () => {
  server = await startServer([]);
  root = server.url.replace(/\/$/, '');
});
after(() => server?.stop());

const tools = {
  get_weather: tool({
    description: 'The weather in a city',
    inputSchema: jsonSchema({ type: 'object', properties: { city: { type: 'string' } }, additionalProperties: true }),
  }),
};

/** Each provider as a product configures it, pointed at the lab. */
const PROVIDERS = {
  'openai (Responses)': (fetch) => createOpenAI({ baseURL: `${root}/v1`, apiKey: 'lab', fetch }).responses,
  anthropic: (fetch) => createAnthropic({ baseURL: `${root}/v1`, apiKey: 'lab', fetch }),
  google: (fetch) => createGoogle({ baseURL: `${root}/v1beta`, apiKey: 'lab', fetch }),
  'openai-compatible (Chat)': (fetch) =>
    createOpenAICompatible({ name: 'lab', baseURL: `${root}/v1`, apiKey: 'lab', fetch, includeUsage: true }),
};

describe('the AI SDK streamText reads the replay endpoint through each provider', () => {
  for (const [name, make] of Object.entries(PROVIDERS)) {
    test(`${name}: whole answers at the profile's pace, reasoning, a tool call, usage and errors`, async () => {
      const noted = noting();
      const model = make(noted.fetch);
      await timed(root, name, noted, async (onText) => {
        const result = streamText({ model: model(TEXT), prompt: 'How fast?', maxRetries: 0 });
        for await (const part of result.fullStream) {
          if (part.type === 'text-delta' && part.text) onText();
          if (part.type === 'error') throw part.error;
        }
        assert.equal((await result.finishReason), 'stop');
      });
      const result = streamText({ model: model(FULL), prompt: 'Weather?', tools, maxRetries: 0 });
      const kinds = new Set();
      let reasoning = '';
      for await (const part of result.fullStream) {
        kinds.add(part.type);
        if (part.type === 'reasoning-delta') reasoning += part.text;
        if (part.type === 'error') throw part.error;
      }
      assert.ok(reasoning.length > 0, `${name}: reasoning deltas (parts: ${[...kinds].join()})`);
      assert.ok((await result.text).length > 0, `${name}: answer text`);
      const calls = await result.toolCalls;
      assert.equal(calls[0]?.toolName, 'get_weather', `${name}: the tool call`);
      assert.equal(typeof calls[0].input, 'object');
      assert.equal(await result.finishReason, 'tool-calls');
      const usage = await result.totalUsage;
      assert.equal(usage.outputTokens, 4 + 8 + 6, `${name}: output tokens`);
      assert.ok(usage.inputTokens > 0, `${name}: input tokens`);
      // A model the lab does not know: the SDK's own error, with the lab's message.
      const bad = streamText({ model: model('no-such-model'), prompt: 'x', maxRetries: 0, onError: () => {} });
      let error = null;
      for await (const part of bad.fullStream) if (part.type === 'error') error = part.error;
      assert.ok(error && /no-such-model/.test(error.message) && error.statusCode === 404, `${name}: ${error}`);
    });
  }
});

describe("the AI SDK's front end reads the lab's page streams as useChat does", () => {
  const message = { id: 'm1', role: 'user', parts: [{ type: 'text', text: 'How fast?' }] };
  const send = (transport) => transport.sendMessages({
    chatId: 'c1', messages: [message], trigger: 'submit-message', messageId: undefined, abortSignal: undefined,
  });

  test('DefaultChatTransport over /v1/lab/ui-stream: every text delta at the pace, reasoning and the tool call', async () => {
    const noted = noting();
    const url = (model) => `${root}/v1/lab/ui-stream?model=${encodeURIComponent(model)}`;
    await timed(root, 'ui-stream', noted, async (onText) => {
      const stream = await send(new DefaultChatTransport({ api: url(TEXT), fetch: noted.fetch }));
      const reader = stream.getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        if (value.type === 'text-delta') onText();
        if (value.type === 'error') throw new Error(value.errorText);
      }
    });
    const stream = await send(new DefaultChatTransport({ api: url(FULL), fetch: noted.fetch }));
    let last = null;
    for await (const m of readUIMessageStream({ stream })) last = m;
    // A reasoning part, the text, and the call of a tool the page named (a
    // static tool part, `tool-<name>`, its input whole).
    const parts = last.parts.filter((p) => p.type !== 'step-start');
    assert.deepEqual(parts.map((p) => p.type), ['reasoning', 'text', 'tool-get_weather']);
    assert.ok(parts[0].text.length > 0 && parts[1].text.length > 0, 'reasoning and text');
    assert.equal(parts[2].state, 'input-available');
    assert.equal(typeof parts[2].input, 'object');
  });

  test('TextStreamChatTransport over /v1/lab/text-stream: every piece at the pace', async () => {
    const noted = noting();
    const api = `${root}/v1/lab/text-stream?model=${encodeURIComponent(TEXT)}`;
    const transport = new TextStreamChatTransport({ api, fetch: noted.fetch });
    const whole = await answerOf(root, TEXT);
    await timed(root, 'text-stream', noted, async (onText) => {
      const reader = (await send(transport)).getReader();
      let text = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        if (value.type === 'text-delta') {
          onText();
          text += value.delta;
        }
      }
      assert.equal(text, whole, 'the whole answer');
    }, { reads: true });
  });
});
