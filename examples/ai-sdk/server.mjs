// The AI SDK chat page's backend, as products write it: a route that calls
// `streamText` (here `@ai-sdk/openai-compatible`, pointed at an
// OpenAI-compatible server: latency-lab serve's replay endpoint unless told
// otherwise) and answers with the UI message stream; it also serves the
// built page (dist/examples/ai-sdk, made by ./lab build).
//
//   node examples/ai-sdk/server.mjs --lab http://127.0.0.1:8080/ [--port 0] [--url-file FILE]
//
// (`--lab-file FILE` instead of `--lab`: the lab's address is read from FILE
// when the first question comes; `./lab serve` starts this backend before
// the lab, whose `--field-page` needs the page's address, knows its port.)
//
// Prints the page's address; open it with the fragment latency-lab serve
// printed for the demo page (#key=…&collector=…) to send field data, and
// #api=/api/chat so the page asks this route.
import { createServer } from 'node:http';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { convertToModelMessages, jsonSchema, streamText, tool } from 'ai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const { values: args } = parseArgs({
  options: {
    lab: { type: 'string', default: 'http://127.0.0.1:8080/' },
    port: { type: 'string', default: '0' },
    host: { type: 'string', default: '127.0.0.1' },
    page: { type: 'string', default: path.join(ROOT, 'dist/examples/ai-sdk') },
    'lab-file': { type: 'string' },
    'url-file': { type: 'string' },
  },
});
let provider = null;
/** The provider over the lab's OpenAI-compatible API, made at the first question. */
async function lab() {
  const at = args['lab-file'] ? (await readFile(args['lab-file'], 'utf8')).trim() : args.lab;
  return (provider ??= createOpenAICompatible({ name: 'lab', baseURL: new URL('v1', at).href, apiKey: 'lab', includeUsage: true }));
}
const tools = {
  get_weather: tool({
    description: 'The weather in a city',
    inputSchema: jsonSchema({ type: 'object', properties: { city: { type: 'string' } }, additionalProperties: true }),
  }),
};
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml' };

async function chat(req, res) {
  let body = '';
  for await (const piece of req) body += piece;
  let messages, model;
  try {
    ({ messages, model } = JSON.parse(body));
    messages = await convertToModelMessages(messages);
  } catch (e) {
    res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: `not a chat request: ${e.message}` }));
    return;
  }
  const abort = new AbortController();
  res.on('close', () => res.writableFinished || abort.abort());
  const result = streamText({ model: (await lab())(model || 'profile:fast-start'), messages, tools, maxRetries: 0, abortSignal: abort.signal });
  result.pipeUIMessageStreamToResponse(res, { onError: (e) => String(e?.message ?? e) });
}

async function file(req, res) {
  const rel = decodeURIComponent(new URL(req.url, 'http://x').pathname).replace(/^\/+/, '') || 'index.html';
  const full = path.join(args.page, rel);
  if (!full.startsWith(args.page)) return res.writeHead(404).end();
  try {
    const bytes = await readFile(full);
    res.writeHead(200, { 'content-type': TYPES[path.extname(full)] ?? 'application/octet-stream' }).end(bytes);
  } catch {
    res.writeHead(404, { 'content-type': 'text/plain' }).end(`no ${rel} in ${args.page} (run ./lab build)`);
  }
}

const server = createServer((req, res) => {
  const route = req.method === 'POST' && new URL(req.url, 'http://x').pathname === '/api/chat' ? chat : file;
  route(req, res).catch((e) => {
    if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: String(e?.message ?? e) }));
  });
});
server.listen(Number(args.port), args.host, async () => {
  const url = `http://${args.host}:${server.address().port}/`;
  if (args['url-file']) await writeFile(args['url-file'], url);
  const over = args['lab-file'] ? `the lab named in ${args['lab-file']}` : `${args.lab}v1`;
  console.log(`AI SDK chat page (streamText backend over ${over}): ${url}#api=/api/chat`);
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => server.close(() => process.exit(0)));
