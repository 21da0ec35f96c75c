// A chat page as products build it with the Vercel AI SDK: React, `useChat`
// with its default transport, the answer streamed from the page's own
// backend in the UI message stream. Settings come from the URL's fragment:
// #api=PATH (the backend's chat route: a streamText route such as
// examples/ai-sdk/server.mjs's /api/chat, or by default latency-lab serve's
// /v1/lab/ui-stream, which answers in the same stream), model=…
// The page keeps its own measure of each answer (window.demo.answers), as a
// product would: from the send to the first frame showing the answer.
import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport } from 'ai';
import { useLayoutEffect, useMemo, useRef, useState } from 'react';
import { createRoot } from 'react-dom/client';

const conf = Object.fromEntries(new URLSearchParams(location.hash.slice(1)));
const API = conf.api || '/v1/lab/ui-stream';
/** Answers to try, from latency-lab serve's built-in profiles. */
const MODELS = [
  ['profile:fast-start', 'starts at once'],
  ['profile:slow-start', 'starts late, then fast'],
  ['profile:ttft=250,tpot=20,tokens=40,text=chat,stall=once:900@12', 'one 0.9 s stall'],
  ['profile:ttft=200,tpot=15,tokens=12,text=chat,tool_call=get_weather:16', 'calls a tool'],
];
const answers = [];
window.demo = { answers, busy: false };
const nextFrame = () => new Promise((done) => requestAnimationFrame(() => done(performance.now())));

const textOf = (m) => m.parts.filter((p) => p.type === 'text').map((p) => p.text).join('');
const toolsOf = (m) => m.parts.filter((p) => p.type.startsWith('tool-') || p.type === 'dynamic-tool');

/** An answer: its text in the element the snippet watches; the page's own
 *  first-paint stamp the frame after its text first shows. */
function Answer({ message, measure }) {
  const text = textOf(message);
  useLayoutEffect(() => {
    if (text && measure && measure.firstPaint === null) {
      measure.firstPaint = 0;
      nextFrame().then((t) => (measure.firstPaint = t));
    }
  }, [text, measure]);
  return (
    <>
      {toolsOf(message).map((p) => (
        <div className="msg tool" key={p.toolCallId}>{`→ ${p.toolName ?? p.type.slice(5)}(${JSON.stringify(p.input ?? {})})`}</div>
      ))}
      <div className="msg answer" data-llm-answer="">{text}</div>
    </>
  );
}

function Chat() {
  const [model, setModel] = useState(conf.model || MODELS[0][0]);
  const [prompt, setPrompt] = useState('How fast is this answer?');
  const transport = useMemo(() => new DefaultChatTransport({ api: API }), []);
  const measures = useRef(new Map());
  const { messages, sendMessage, stop, status, error } = useChat({
    transport,
    onFinish: ({ message, isAbort, isError }) => {
      const a = measures.current.get('pending') ?? measures.current.get(message.id);
      if (!a) return;
      measures.current.delete('pending');
      measures.current.set(message.id, a);
      a.end = performance.now();
      a.aborted ||= isAbort;
      a.error = isError ? 'error' : null;
      a.chars = textOf(message).length;
      window.demo.busy = false;
    },
  });
  const send = (e) => {
    e.preventDefault();
    if (window.demo.busy) return;
    window.demo.busy = true;
    const a = { model, sent: performance.now(), firstPaint: null, end: null, aborted: false, error: null };
    answers.push(a);
    measures.current.set('pending', a);
    sendMessage({ text: prompt }, { body: { model } });
  };
  const measureOf = (m, i) => {
    if (m.role !== 'assistant') return null;
    if (!measures.current.has(m.id) && i === messages.length - 1 && measures.current.has('pending')) {
      measures.current.set(m.id, measures.current.get('pending'));
    }
    return measures.current.get(m.id) ?? null;
  };
  return (
    <>
      <main id="log" aria-live="polite" data-testid="demo-log">
        {messages.map((m, i) =>
          m.role === 'user' ? (
            <div className="msg user" key={m.id}>{textOf(m)}</div>
          ) : (
            <Answer key={m.id} message={m} measure={measureOf(m, i)} />
          ),
        )}
      </main>
      <form id="ask" onSubmit={send}>
        <label>Model <input id="model" list="models" size="34" value={model} onChange={(e) => setModel(e.target.value)} data-testid="demo-model" /></label>
        <datalist id="models">{MODELS.map(([id, label]) => <option key={id} value={id}>{label}</option>)}</datalist>
        <input id="prompt" aria-label="Your message" value={prompt} onChange={(e) => setPrompt(e.target.value)} data-testid="demo-prompt" />
        <button id="send" disabled={status === 'submitted' || status === 'streaming'} data-testid="demo-send">Send</button>
        <button type="button" id="stop" disabled={status !== 'submitted' && status !== 'streaming'}
          onClick={() => { const a = answers.at(-1); if (a) a.aborted = true; stop(); }} data-testid="demo-stop">Stop</button>
      </form>
      <p id="status" role="status" data-testid="demo-status">{error ? `error: ${error.message}` : `${answers.length} answer(s) · ${status}`}</p>
    </>
  );
}

createRoot(document.getElementById('root')).render(<Chat />);
