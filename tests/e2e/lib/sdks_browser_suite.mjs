// The official npm SDKs, unchanged, in a page (issue 45), written once for
// every browser's adapter (`launch()`, `open(browser, url)` → `{ page,
// close, problems }`): `openai` (the Responses API), `@anthropic-ai/sdk`,
// `@google/genai` and `ollama`, each bundled for the browser by esbuild as a
// product's build would bundle it, served by a page on its own origin that
// calls the replay endpoint across origins, as a page calls its provider.
// Each reads a text profile at its pace (TTFT and gaps against the server's
// clock, the Chat tests' bounds), a profile with reasoning, an answer and a
// tool call as the SDK reports them, and its own error for an unknown model
// (checkSdkReport).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import * as esbuild from 'esbuild';
import { startServer } from './lab.mjs';
import { FULL, TEXT, checkSdkReport } from './sdk_timing.mjs';

const ENTRIES = {
  openai: "export { default as SDK } from 'openai';",
  anthropic: "export { default as SDK } from '@anthropic-ai/sdk';",
  genai: "export { GoogleGenAI as SDK } from '@google/genai';",
  ollama: "export { Ollama as SDK } from 'ollama/browser';",
};

/** A page origin serving each SDK bundled for the browser. */
async function sdkSite() {
  // The adapters' `open` waits for the lab's header: the page has one.
  const files = { '/': '<!doctype html><title>SDKs</title><header data-testid="app-header">SDKs in a page</header>' };
  for (const [name, contents] of Object.entries(ENTRIES)) {
    const out = await esbuild.build({
      stdin: { contents, resolveDir: process.cwd(), loader: 'js' },
      bundle: true, format: 'esm', platform: 'browser', write: false, logLevel: 'silent',
    });
    files[`/sdk/${name}.mjs`] = out.outputFiles[0].text;
  }
  const srv = http.createServer((req, res) => {
    const body = files[req.url];
    if (body === undefined) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': req.url === '/' ? 'text/html' : 'text/javascript' }).end(body);
  });
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${srv.address().port}/`, close: () => srv.close() };
}

/** Runs in the page: one SDK against the lab, as the Python script does. */
async function inPage({ sdk, root, TEXT, FULL }) {
  const calls = [];
  const real = window.fetch.bind(window);
  const noting = async (url, init) => {
    const call = { sent: performance.now() };
    calls.push(call);
    const r = await real(url, init);
    call.id = r.headers.get('x-latency-lab-request-id');
    return r;
  };
  const { SDK } = await import(`/sdk/${sdk}.mjs`);
  const user = [{ role: 'user', content: 'How fast?' }];
  const status = (e) => ({ status: e.status ?? e.status_code ?? e.code, message: String(e.message) });
  let text, full, bad;
  if (sdk === 'openai') {
    const c = new SDK({ baseURL: `${root}/v1`, apiKey: 'lab', fetch: noting, dangerouslyAllowBrowser: true, maxRetries: 0 });
    text = async (on) => {
      for await (const e of await c.responses.create({ model: TEXT, input: 'How fast?', stream: true })) if (e.type === 'response.output_text.delta') on();
    };
    full = async () => {
      const s = c.responses.stream({ model: FULL, input: 'Weather?' });
      const kinds = new Set();
      for await (const e of s) kinds.add(e.type);
      const r = await s.finalResponse();
      const call = r.output.find((o) => o.type === 'function_call');
      return { reasoning: kinds.has('response.reasoning_summary_text.delta'), text: r.output_text, tool: call?.name,
        arguments: JSON.parse(call.arguments), output_tokens: r.usage.output_tokens, reasoning_tokens: r.usage.output_tokens_details.reasoning_tokens };
    };
    bad = () => c.responses.create({ model: 'no-such-model', input: 'x', stream: true });
  } else if (sdk === 'anthropic') {
    const c = new SDK({ baseURL: root, apiKey: 'lab', fetch: noting, dangerouslyAllowBrowser: true, maxRetries: 0 });
    text = async (on) => {
      const s = c.messages.stream({ model: TEXT, max_tokens: 64, messages: user });
      s.on('text', on);
      await s.finalMessage();
    };
    full = async () => {
      let thinking = '';
      const s = c.messages.stream({ model: FULL, max_tokens: 64, messages: user });
      s.on('thinking', (d) => { thinking += d; });
      const m = await s.finalMessage();
      const call = m.content.find((b) => b.type === 'tool_use');
      return { reasoning: thinking.length > 0, text: m.content.filter((b) => b.type === 'text').map((b) => b.text).join(''),
        tool: call?.name, arguments: call?.input, output_tokens: m.usage.output_tokens };
    };
    bad = () => c.messages.create({ model: 'no-such-model', max_tokens: 5, messages: user });
  } else if (sdk === 'genai') {
    // The SDK calls the page's fetch: note its calls there.
    window.fetch = noting;
    const c = new SDK({ apiKey: 'lab', httpOptions: { baseUrl: root } });
    text = async (on) => {
      for await (const chunk of await c.models.generateContentStream({ model: TEXT, contents: 'How fast?' })) if (chunk.text) on();
    };
    full = async () => {
      let thoughts = 0, answer = '', calls = [], usage = null;
      for await (const chunk of await c.models.generateContentStream({ model: FULL, contents: 'Weather?' })) {
        for (const p of chunk.candidates?.[0]?.content?.parts ?? []) {
          if (p.thought) thoughts += 1;
          else if (p.text) answer += p.text;
        }
        calls.push(...(chunk.functionCalls ?? []));
        usage = chunk.usageMetadata ?? usage;
      }
      return { reasoning: thoughts > 0, text: answer, tool: calls[0]?.name, arguments: calls[0]?.args,
        output_tokens: usage.candidatesTokenCount + usage.thoughtsTokenCount, reasoning_tokens: usage.thoughtsTokenCount };
    };
    bad = async () => { for await (const _ of await c.models.generateContentStream({ model: 'no-such-model', contents: 'x' })); };
  } else {
    const c = new SDK({ host: root, fetch: noting });
    text = async (on) => {
      for await (const part of await c.chat({ model: TEXT, messages: user, stream: true })) if (part.message.content) on();
    };
    full = async () => {
      let thinking = '', answer = '', calls = [], last = null;
      for await (const part of await c.chat({ model: FULL, messages: user, stream: true })) {
        thinking += part.message.thinking ?? '';
        answer += part.message.content ?? '';
        calls.push(...(part.message.tool_calls ?? []));
        last = part;
      }
      return { reasoning: thinking.length > 0, text: answer, tool: calls[0]?.function.name,
        arguments: calls[0]?.function.arguments, output_tokens: last.eval_count };
    };
    bad = async () => { for await (const _ of await c.chat({ model: 'no-such-model', messages: user, stream: true })); };
  }
  await text(() => {});
  const rounds = [];
  for (let i = 0; i < 3; i++) {
    const arrived = [];
    await text(() => arrived.push(performance.now()));
    const call = calls.at(-1);
    rounds.push({ sent: call.sent, id: call.id, arrived });
  }
  let error = null;
  try { await bad(); } catch (e) { error = status(e); }
  return { rounds, full: await full(), error };
}

/** `skip`: SDKs not run in this browser, each with why. */
export function sdksBrowserSuite({ name, launch, open, skip = {} }) {
  describe(`the official npm SDKs in a page read the replay endpoint (${name})`, () => {
    let server, root, site, browser;
    before(async () => {
      server = await startServer([]);
      root = server.url.replace(/\/$/, '');
      site = await sdkSite();
      browser = await launch();
    });
    after(async () => {
      await browser?.close();
      site?.close();
      server?.stop();
    });
    for (const sdk of Object.keys(ENTRIES)) {
      test(`${sdk}: the pace, reasoning, the tool call, usage and its error`, { skip: skip[sdk] }, async () => {
        const { page, close, problems } = await open(browser, site.url);
        try {
          const out = await page.evaluate(inPage, { sdk, root, TEXT, FULL });
          await checkSdkReport(root, sdk, out);
          // The unknown model's 404 is the page's one expected console error.
          const left = (await problems()).filter((p) => !/404|Not Found/i.test(String(p)));
          assert.deepEqual(left, []);
        } finally {
          await close();
        }
      });
    }
  });
}
