// A chat page that asks by EventSource: one GET per question (the question
// in the URL), OpenAI-style chunks as its messages until [DONE]. Settings
// from the URL's fragment: #api=PATH (latency-lab serve's
// /v1/lab/event-stream by default), model=… The page keeps its own measure
// of each answer (window.demo.answers).
const conf = Object.fromEntries(new URLSearchParams(location.hash.slice(1)));
const API = conf.api || '/v1/lab/event-stream';
const $ = (id) => document.getElementById(id);
$('model').value = conf.model || 'profile:fast-start';
window.demo = { answers: [], busy: false };
let source = null, finish = null;

const bubble = (cls, text = '') => {
  const el = document.createElement('div');
  el.className = 'msg ' + cls;
  el.textContent = text;
  $('log').append(el);
  return el;
};
const nextFrame = () => new Promise((done) => requestAnimationFrame(() => done(performance.now())));

$('ask').addEventListener('submit', (event) => {
  event.preventDefault();
  if (window.demo.busy) return;
  window.demo.busy = true;
  $('send').disabled = true;
  $('stop').disabled = false;
  const model = $('model').value.trim();
  bubble('user', $('prompt').value);
  const el = bubble('answer');
  el.dataset.llmAnswer = '';
  let tool = null;
  const a = { model, sent: performance.now(), firstChunk: null, firstPaint: null, end: null, aborted: false, error: null };
  window.demo.answers.push(a);
  finish = (error) => {
    source.close();
    a.end = performance.now();
    a.error = error ?? null;
    source = finish = null;
    $('status').textContent = `${window.demo.answers.length} answer(s)`;
    window.demo.busy = false;
    $('send').disabled = false;
    $('stop').disabled = true;
  };
  source = new EventSource(`${API}?${new URLSearchParams({ model, q: $('prompt').value })}`);
  source.onmessage = (e) => {
    if (e.data === '[DONE]') return finish();
    const chunk = JSON.parse(e.data);
    if (chunk.error) return finish(chunk.error.message);
    const d = chunk.choices?.[0]?.delta ?? {};
    if ((d.content || d.tool_calls?.length) && a.firstChunk === null) a.firstChunk = performance.now();
    if (d.content) {
      if (!el.textContent) nextFrame().then((t) => (a.firstPaint = t));
      el.textContent += d.content;
    }
    for (const call of d.tool_calls ?? []) {
      tool ??= bubble('tool', '→ ');
      tool.textContent += (call.function?.name ?? '') + (call.function?.arguments ?? '');
    }
  };
  // The server closed before [DONE], or could not be reached.
  source.onerror = () => finish?.('the answer broke off');
});
$('stop').addEventListener('click', () => {
  if (!finish) return;
  window.demo.answers.at(-1).aborted = true;
  finish();
});
