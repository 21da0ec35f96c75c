// A chat page whose backend streams plain text: the page POSTs the question
// and appends each read of `response.body` to the answer, as pages built on
// a bare `fetch` do. Settings from the URL's fragment: #api=PATH (the
// backend's route; latency-lab serve's /v1/lab/text-stream by default),
// model=… The page keeps its own measure of each answer (window.demo.answers).
const conf = Object.fromEntries(new URLSearchParams(location.hash.slice(1)));
const API = conf.api || '/v1/lab/text-stream';
const $ = (id) => document.getElementById(id);
const MODELS = [
  ['profile:fast-start', 'starts at once'],
  ['profile:slow-start', 'starts late, then fast'],
  ['profile:ttft=250,tpot=20,tokens=40,text=chat,stall=once:900@12', 'one 0.9 s stall'],
];
for (const [id, label] of MODELS) $('models').append(new Option(label, id));
$('model').value = conf.model || MODELS[0][0];
window.demo = { answers: [], busy: false };
let abort = null;

const bubble = (cls, text = '') => {
  const el = document.createElement('div');
  el.className = 'msg ' + cls;
  el.textContent = text;
  $('log').append(el);
  return el;
};
const nextFrame = () => new Promise((done) => requestAnimationFrame(() => done(performance.now())));

$('ask').addEventListener('submit', async (event) => {
  event.preventDefault();
  if (window.demo.busy) return;
  window.demo.busy = true;
  $('send').disabled = true;
  $('stop').disabled = false;
  const model = $('model').value.trim();
  bubble('user', $('prompt').value);
  const el = bubble('answer');
  el.dataset.llmAnswer = '';
  const a = { model, sent: performance.now(), firstChunk: null, firstPaint: null, end: null, aborted: false, error: null };
  window.demo.answers.push(a);
  abort = new AbortController();
  try {
    const res = await fetch(API, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: $('prompt').value }] }),
      signal: abort.signal,
    });
    if (!res.ok) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!value) continue;
      if (a.firstChunk === null) {
        a.firstChunk = performance.now();
        nextFrame().then((t) => (a.firstPaint = t));
      }
      el.textContent += value;
    }
  } catch (e) {
    if (e?.name === 'AbortError') a.aborted = true;
    else a.error = String(e?.message ?? e);
  }
  a.end = performance.now();
  $('status').textContent = `${window.demo.answers.length} answer(s)`;
  window.demo.busy = false;
  $('send').disabled = false;
  $('stop').disabled = true;
});
$('stop').addEventListener('click', () => abort?.abort());
