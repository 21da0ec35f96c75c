// A chat page as products build them: the official `openai` SDK streams
// each answer into its bubble (optionally through a smoothing buffer, as
// many chat front ends do), and Latency Lab's field snippet records what
// each answer looked like on screen. Settings come from the URL's fragment
// (never sent to a server): #key=INGEST_KEY&collector=URL&base=URL&site=NAME.
// The page also keeps its own measure of each answer (window.demo.answers),
// taken with performance.now() as a page would, and shows it under the answer.
import { installField } from './field.js';

const conf = Object.fromEntries(new URLSearchParams(location.hash.slice(1)));
const base = new URL(conf.base || '/v1', location.href).href;
const collector = new URL(conf.collector || '/v1/traces', location.href).href;
const $ = (id) => document.getElementById(id);

// The snippet goes in before the client is made: the SDK keeps the fetch it finds.
const field = conf.key
  ? installField({ collector, key: conf.key, site: conf.site, settleMs: Number(conf.settle || 1000) })
  : null;
const { default: OpenAI } = await import('./openai/index.mjs');
const client = new OpenAI({ baseURL: base, apiKey: 'demo', dangerouslyAllowBrowser: true, maxRetries: 0 });

/** Answers to try, from latency-lab serve's built-in profiles. */
const MODELS = [
  ['profile:fast-start', 'starts at once'],
  ['profile:slow-start', 'starts late, then fast'],
  ['profile:jittery', 'uneven cadence'],
  ['profile:ttft=250,tpot=20,tokens=40,text=chat,stall=once:900@12', 'one 0.9 s stall'],
  ['profile:ttft=200,tpot=15,tokens=12,text=chat,tool_call=get_weather:16', 'calls a tool'],
];
for (const [id, label] of MODELS) $('models').append(new Option(label, id));
$('model').value = conf.model || MODELS[0][0];
// The server's own models join the list (and the SDK is warm before the first question).
try {
  for await (const m of client.models.list()) if (!MODELS.some(([id]) => id === m.id)) $('models').append(new Option(m.id, m.id));
} catch (e) {
  $('status').textContent = `could not list the models: ${e?.message ?? e}`;
}
$('base').textContent = base;
$('collector').textContent = collector;
/** Whether the collector takes this page's answers: it is sent an empty
 * batch once, so a key from another database or an origin the site does
 * not name is said here rather than refused unseen with every answer. */
async function collectorRefusal() {
  try {
    const res = await fetch(`${collector}?key=${encodeURIComponent(conf.key)}`, {
      method: 'POST',
      body: '{"resourceSpans":[]}',
      headers: { 'content-type': 'text/plain' },
    });
    if (res.ok) return null;
    const said = await res.json().catch(() => ({}));
    return `the collector refuses this page (HTTP ${res.status}: ${said.error ?? res.statusText}). Open the address latency-lab serve printed when it started.`;
  } catch (e) {
    return `the collector at ${collector} cannot be reached (${e?.message ?? e}).`;
  }
}
const refusal = field ? await collectorRefusal() : null;
$('field-said').dataset.state = !field ? 'off' : refusal ? 'refused' : 'on';
$('field-said').textContent = !field
  ? 'Field data: off (no #key= in the address; latency-lab serve prints the address with one).'
  : refusal
    ? `Field data: not collected: ${refusal}`
    : 'Field data: on. Open Latency Lab → Field to see these answers.';

window.demo = { answers: [], busy: false, field };
let stream = null;

const bubble = (cls, text = '') => {
  const el = document.createElement('div');
  el.className = 'msg ' + cls;
  el.textContent = text;
  $('log').append(el);
  return el;
};
const nextFrame = () => new Promise((done) => requestAnimationFrame(() => done(performance.now())));

/** Writes text into the answer: at once, or through a smoothing buffer
 * that releases the pieces at an even pace, one frame at a time (more per
 * frame when it falls behind), as chat front ends ship them. */
function writer(el, smooth) {
  let shown = '', closed = false, onPaint = null, loop = null;
  const queue = [];
  const show = (text) => {
    const first = !shown;
    shown += text;
    el.textContent = shown;
    if (first && onPaint) nextFrame().then(onPaint);
  };
  if (smooth) {
    loop = new Promise((done) => {
      const tick = () => {
        if (queue.length) show(queue.splice(0, Math.max(1, Math.floor(queue.length / 4))).join(''));
        if (closed && !queue.length) done();
        else requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    });
  }
  return {
    set onFirstPaint(f) {
      onPaint = f;
    },
    add(text) {
      if (!text) return;
      if (smooth) queue.push(text);
      else show(text);
    },
    async close() {
      closed = true;
      if (loop) await loop;
    },
  };
}

async function ask(event) {
  event.preventDefault();
  if (window.demo.busy) return;
  window.demo.busy = true;
  $('send').disabled = true;
  $('stop').disabled = false;
  const model = $('model').value.trim(), smooth = $('smooth').checked;
  bubble('user', $('prompt').value);
  const el = bubble('answer');
  el.dataset.llmAnswer = '';
  const measured = bubble('measured');
  const a = { model, smooth, sent: performance.now(), firstChunk: null, firstPaint: null, end: null, aborted: false, error: null };
  window.demo.answers.push(a);
  const out = writer(el, smooth);
  out.onFirstPaint = (t) => (a.firstPaint = t);
  let tool = null;
  try {
    stream = await client.chat.completions.create({
      model,
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: $('prompt').value }],
    });
    for await (const chunk of stream) {
      const d = chunk.choices[0]?.delta ?? {};
      const token = d.content || d.reasoning_content || d.tool_calls?.length;
      if (token && a.firstChunk === null) a.firstChunk = performance.now();
      if (d.content) out.add(d.content);
      for (const call of d.tool_calls ?? []) {
        tool ??= bubble('tool', '→ ');
        tool.textContent += (call.function?.name ?? '') + (call.function?.arguments ?? '');
      }
    }
  } catch (e) {
    if (e?.name === 'AbortError' || /abort/i.test(String(e?.message))) a.aborted = true;
    else a.error = String(e?.message ?? e);
  }
  a.end = performance.now();
  await out.close();
  const ms = (t) => (t === null ? '–' : `${Math.round(t - a.sent)} ms`);
  measured.textContent = a.aborted
    ? `stopped after ${ms(a.end)}`
    : a.error ?? `first chunk ${ms(a.firstChunk)} · first paint ${ms(a.firstPaint)} · done ${ms(a.end)} (the page's own measure)`;
  $('status').textContent = `${window.demo.answers.length} answer(s)`;
  stream = null;
  window.demo.busy = false;
  $('send').disabled = false;
  $('stop').disabled = true;
}

$('ask').addEventListener('submit', ask);
// The SDK ends the iteration quietly when its stream is aborted: the page
// itself knows the person stopped it.
$('stop').addEventListener('click', () => {
  if (!stream) return;
  window.demo.answers.at(-1).aborted = true;
  stream.controller.abort();
});
if (!$('status').textContent) $('status').textContent = 'ready';
