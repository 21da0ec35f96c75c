// A chat page that keeps one WebSocket open: each question is a message
// ({"model", "messages"}), each answer comes back as OpenAI-style chunks,
// one message each, until [DONE]. Stop closes the socket (the next question
// opens another). Settings from the URL's fragment: #api=PATH
// (latency-lab serve's /v1/lab/ws by default), model=… The page keeps its
// own measure of each answer (window.demo.answers).
const conf = Object.fromEntries(new URLSearchParams(location.hash.slice(1)));
const API = new URL(conf.api || '/v1/lab/ws', location.href.replace(/^http/, 'ws')).href;
const $ = (id) => document.getElementById(id);
$('model').value = conf.model || 'profile:fast-start';
window.demo = { answers: [], busy: false };
let socket = null, current = null;

const bubble = (cls, text = '') => {
  const el = document.createElement('div');
  el.className = 'msg ' + cls;
  el.textContent = text;
  $('log').append(el);
  return el;
};
const nextFrame = () => new Promise((done) => requestAnimationFrame(() => done(performance.now())));

function done(error) {
  const c = current;
  if (!c) return;
  current = null;
  c.a.end = performance.now();
  c.a.error = error ?? null;
  $('status').textContent = `${window.demo.answers.length} answer(s)`;
  window.demo.busy = false;
  $('send').disabled = false;
  $('stop').disabled = true;
}

function onMessage(e) {
  const c = current;
  if (!c) return;
  if (e.data === '[DONE]') return done();
  const chunk = JSON.parse(e.data);
  if (chunk.error) return done(chunk.error.message);
  const d = chunk.choices?.[0]?.delta ?? {};
  if ((d.content || d.tool_calls?.length) && c.a.firstChunk === null) c.a.firstChunk = performance.now();
  if (d.content) {
    if (!c.el.textContent) nextFrame().then((t) => (c.a.firstPaint = t));
    c.el.textContent += d.content;
  }
  for (const call of d.tool_calls ?? []) {
    c.tool ??= bubble('tool', '→ ');
    c.tool.textContent += (call.function?.name ?? '') + (call.function?.arguments ?? '');
  }
}

/** The open socket, or a new one once it is open. */
function connect() {
  if (socket?.readyState === WebSocket.OPEN) return Promise.resolve(socket);
  return new Promise((ok, fail) => {
    const s = new WebSocket(API);
    s.onopen = () => ok((socket = s));
    s.onerror = () => fail(new Error(`cannot reach ${API}`));
    s.onmessage = onMessage;
    s.onclose = () => {
      if (socket === s) socket = null;
      done(current ? 'the connection closed mid-answer' : undefined);
    };
  });
}

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
  current = { a, el, tool: null };
  try {
    (await connect()).send(JSON.stringify({ model, messages: [{ role: 'user', content: $('prompt').value }] }));
  } catch (e) {
    done(String(e?.message ?? e));
  }
});
$('stop').addEventListener('click', () => {
  if (!current) return;
  current.a.aborted = true;
  const s = socket;
  done();
  s?.close();
});
