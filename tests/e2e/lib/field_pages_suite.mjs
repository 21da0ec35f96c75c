// Field data from the pages products ship (issue 46), written once for every
// browser's adapter (`openPlain(browser, url)` → `{ page, close }`): the
// field snippet installed as packages/field/README.md says, on
// - the AI SDK chat page (examples/ai-sdk: React, `useChat` with its
//   default transport) served by its `streamText` backend
//   (examples/ai-sdk/server.mjs, `@ai-sdk/openai-compatible` over the replay
//   endpoint), which answers in the UI message stream; and
// - the plain-text page (examples/text), whose backend pipes text/plain
//   (latency-lab serve's /v1/lab/text-stream plays it);
// - the EventSource page (examples/events: a GET per question, OpenAI-style
//   chunks as messages) and the WebSocket page (examples/socket: one socket,
//   a message per question, a message per chunk), answered by serve's
//   /v1/lab/event-stream and /v1/lab/ws, the snippet with its transports.
// Each is asked 5 questions as a person does (plain ones, one with a stall,
// one calling a tool where the wire carries tools, one stopped). The
// collector must hold every answer with its wire; each first paint within a
// frame of the page's own rAF stamp from the send; the stall and the stop
// recorded; no answer the user saw complete counted as failed; no prompt
// text anywhere.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { LAB_BIN, ROOT, startServer } from './lab.mjs';
import { until } from './field_suite.mjs';

const PROMPT = 'field pages secret prompt 3b9e';
const STALL = 'profile:ttft=200,tpot=12,tokens=30,text=chat,stall=once:800@10';
const TOOL = 'profile:ttft=150,tpot=10,tokens=12,text=chat,tool_call=get_weather:16';
const STOP = 'profile:ttft=120,tpot=40,tokens=400,text=chat';
const plain = (i) => `profile:ttft=${120 + 60 * i},tpot=8,tokens=24,text=chat,seed=${i}`;
/** Each page's questions: the wire's own (plain text carries no tool call). */
const PLANS = {
  // The tool call last: its call, unanswered, ends the conversation.
  'ai-sdk': [{ model: plain(0) }, { model: plain(1) }, { model: STALL, what: 'stall' }, { model: STOP, what: 'stopped', stop: true }, { model: TOOL, what: 'tool' }],
  text: [{ model: plain(0) }, { model: plain(1) }, { model: plain(2) }, { model: STALL, what: 'stall' }, { model: STOP, what: 'stopped', stop: true }],
  events: [{ model: plain(0) }, { model: plain(1) }, { model: STALL, what: 'stall' }, { model: TOOL, what: 'tool' }, { model: STOP, what: 'stopped', stop: true }],
  socket: [{ model: plain(0) }, { model: plain(1) }, { model: STALL, what: 'stall' }, { model: TOOL, what: 'tool' }, { model: STOP, what: 'stopped', stop: true }],
};
/** The wire each page's answers are read in. */
const WIRE = { 'ai-sdk': 'ui_stream', text: 'text', events: 'chat', socket: 'chat' };
/** |collector − page| first paint at the median (ms): one frame's stamp
 *  read twice (the field demo's bound); each answer within a frame. */
const SAME_FRAME_MS = 2;

/** The streamText backend of the AI SDK page, over `lab`'s replay endpoint. */
async function startBackend(lab) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lab-ai-sdk-'));
  const urlFile = path.join(dir, 'url');
  const proc = spawn(process.execPath, [path.join(ROOT, 'examples/ai-sdk/server.mjs'), '--lab', lab, '--url-file', urlFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  proc.stdout.on('data', (d) => (output += d));
  proc.stderr.on('data', (d) => (output += d));
  const url = await until('the AI SDK backend', () => existsSync(urlFile) && readFileSync(urlFile, 'utf8').trim(), 10_000).catch((e) => {
    throw new Error(`${e.message}:\n${output}`);
  });
  return { url, stop: () => proc.kill('SIGINT'), output: () => output };
}

/** One question, as a person asks it; resolves when the page is done with it. */
async function ask(page, { model, stop = false }) {
  const n = await page.evaluate(() => window.demo.answers.length);
  await page.evaluate(
    ([m, p]) => {
      // Set as a person types, so React's state has it too.
      const put = (id, v) => {
        const el = document.getElementById(id);
        Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set.call(el, v);
        el.dispatchEvent(new Event('input', { bubbles: true }));
      };
      put('model', m);
      put('prompt', p);
    },
    [model, PROMPT],
  );
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => done())));
  await page.evaluate(() => document.getElementById('send').click());
  if (stop) {
    await until('a first paint to stop after', () => page.evaluate((k) => window.demo.answers[k]?.firstPaint > 0, n)).catch(async (e) => {
      throw new Error(`${e.message}: the page has ${JSON.stringify(await page.evaluate(() => [window.demo.answers, document.getElementById('status')?.textContent]))}`);
    });
    await sleep(200);
    await page.evaluate(() => document.getElementById('stop').click());
  }
  await until(`answer ${n + 1}`, () => page.evaluate((k) => window.demo.answers[k]?.end != null && !window.demo.busy, n));
}

const firstPaint = (q) => Math.min(...q.chunks.map((c) => c.painted_ms ?? Infinity)) - q.sent_ms;
const gaps = (q) => q.chunks.slice(1).map((c, k) => c.arrived_ms - q.chunks[k].arrived_ms);

export function fieldPagesSuite({ name, launch, openPlain, pages = ['ai-sdk', 'text', 'events', 'socket'] }) {
  describe(`field data from the pages products ship (${name})`, () => {
    let lab, backend, browser, data;
    before(async () => {
      data = mkdtempSync(path.join(os.tmpdir(), 'lab-field-pages-'));
      lab = await startServer(['--data', data]);
      if (pages.includes('ai-sdk')) backend = await startBackend(lab.url);
      browser = await launch();
    });
    after(async () => {
      await browser?.close();
      backend?.stop();
      lab?.stop();
    });

    for (const which of pages) {
      test(`${which} page: every answer in the collector, as the page itself painted it`, async () => {
        const plan = PLANS[which];
        // The pages served by serve share its demo site: this page's answers are those sent from now.
        const from = Date.now();
        const printed = lab.output().match(/Demo chat page \(its answers go to Field\): \S+#key=(\S+)/)?.[1];
        assert.ok(printed, `serve printed the demo pages' key:\n${lab.output()}`);
        let url, site = 'demo', key = printed;
        if (which === 'ai-sdk') {
          // The page comes from its own backend: a site for that origin.
          site = 'aisdk';
          key = execFileSync(LAB_BIN, ['field', 'add-site', site, '--origin', new URL(backend.url).origin, '--data', data], { encoding: 'utf8' }).trim().split('\n').at(-1);
          url = `${backend.url}#${new URLSearchParams({ key, collector: new URL('/v1/traces', lab.url).href, api: '/api/chat', settle: '400' })}`;
        } else {
          url = `${new URL(`/examples/${which}/`, lab.url).href}#${new URLSearchParams({ key, settle: '400' })}`;
        }
        const { page, close } = await openPlain(browser, url);
        try {
          await until(`the ${which} page`, () => page.evaluate(() => !!window.demo && !!document.getElementById('send')));
          assert.ok(await page.evaluate(() => !!window.field), 'the snippet is installed');
          for (const a of plan) await ask(page, a);
          const answers = await page.evaluate(() => window.demo.answers);
          assert.deepEqual(answers.filter((a) => a.error).map((a) => a.error), [], 'no answer failed on the page');
          assert.equal(answers[plan.findIndex((a) => a.stop)].aborted, true, 'the stop reached the page');
          const hz = await page.evaluate(() => new Promise((done) => {
            const t = [];
            const tick = (x) => (t.push(x) < 11 ? requestAnimationFrame(tick) : done(1000 / ((t[10] - t[0]) / 10)));
            requestAnimationFrame(tick);
          }));
          await page.evaluate(() => new Promise((done) => setTimeout(done, 600)).then(() => window.field.flush()));

          const token = readFileSync(path.join(data, 'researcher-token'), 'utf8').trim();
          // Read every 300 ms: the researcher API is rate-limited (a 429
          // says when to ask again).
          const trace = await until(`${plan.length} requests in the collector`, async () => {
            const r = await fetch(new URL(`/v1/field/requests?site=${site}&from=${from}`, lab.url), { headers: { Authorization: `Bearer ${token}` } });
            if (r.status === 429) return void (await sleep(1000 * Number(r.headers.get('retry-after') ?? 1)));
            if (r.status !== 200) assert.fail(`the collector answered ${r.status}: ${await r.text()}`);
            const t = await r.json();
            if (t.requests.length < plan.length) await sleep(300);
            return t.requests.length >= plan.length && t;
          });
          assert.equal(trace.requests.length, plan.length, `exactly the ${plan.length} answers`);
          const qs = [...trace.requests].sort((x, y) => x.sent_ms - y.sent_ms);
          const frame = 1000 / hz;
          const rows = answers.map((a, i) => ({ i, what: plan[i].what ?? '', paint: firstPaint(qs[i]), pagePaint: a.firstPaint - a.sent }));
          const f2 = (x) => (Number.isFinite(x) ? x.toFixed(2) : '-');
          console.log(`${name}, ${which} page, a frame ${frame.toFixed(1)} ms: answer, first paint collector | page (ms)\n` +
            rows.map((r) => `${r.i + 1} ${r.what}\t${f2(r.paint)} | ${f2(r.pagePaint)}`).join('\n'));
          for (const r of rows) {
            assert.ok(Math.abs(r.paint - r.pagePaint) <= frame + 1, `answer ${r.i + 1}: first paint ${f2(r.paint)} ms in the collector, ${f2(r.pagePaint)} ms on the page`);
          }
          const offs = rows.map((r) => Math.abs(r.paint - r.pagePaint)).sort((x, y) => x - y);
          assert.ok(offs[Math.floor(offs.length / 2)] <= SAME_FRAME_MS, `first paints differ by ${f2(offs[2])} ms at the median: ${offs.map(f2)}`);
          const wire = WIRE[which];
          for (const [i, q] of qs.entries()) {
            const a = plan[i];
            // Read from the wire, not from the screen: each token a chunk
            // (plain text: each read), the first before the first paint.
            const tokens = wire !== 'text' && !a.what ? 24 : 2;
            assert.ok(q.chunks.length >= tokens, `answer ${i + 1}: ${q.chunks.length} chunks read from the ${wire} wire`);
            assert.ok(q.chunks[0].arrived_ms <= firstPaint(q) + q.sent_ms, `answer ${i + 1}: its first chunk before its first paint`);
            if (a.stop) assert.equal(q.failure?.kind, 'aborted', 'the stop is recorded');
            else assert.equal(q.failure, undefined, `answer ${i + 1} (${a.what ?? 'plain'}) was seen whole, not failed: ${JSON.stringify(q.failure)}`);
          }
          const stall = qs[plan.findIndex((a) => a.what === 'stall')];
          assert.ok(Math.max(...gaps(stall)) >= 600, `the stall is recorded: longest gap ${Math.max(...gaps(stall))} ms`);
          assert.ok(Math.max(...gaps(qs[0])) < 300, 'a plain answer has no such gap');
          const tool = plan.findIndex((a) => a.what === 'tool');
          if (tool >= 0) assert.ok(qs[tool].chunks.some((c) => c.kind === 'tool_call'), 'the tool call is recorded');
          assert.doesNotMatch(JSON.stringify(trace), /secret prompt/);
          for (const f of readdirSync(data)) {
            assert.doesNotMatch(readFileSync(path.join(data, f), 'latin1'), /secret prompt/, `${f} holds the prompt`);
          }
        } finally {
          await close();
        }
      });
    }
  });
}
