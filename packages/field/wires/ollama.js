// Ollama's native API (/api/chat, /api/generate), one JSON object a line:
// message.content / response (answer), thinking (reasoning), whole
// tool_calls; the "done" line ends it with its counts; {"error"} is the
// server's error.
export default {
  id: 'ollama',
  ct: /ndjson|json/,
  lines: 1,
  decode(o, ev, st, put) {
    let n = 0;
    const push = (k, t) => put(k, t, n++);
    st.named(o.model);
    if (o.error) return (st.error = 1);
    const m = o.message, f = (k, g) => (typeof m?.[k] == 'string' ? m[k] : typeof o[g] == 'string' ? o[g] : '');
    if (f('thinking', 'thinking')) push(1, f('thinking', 'thinking'));
    if (f('content', 'response')) push(0, f('content', 'response'));
    for (const c of Array.isArray(m?.tool_calls) ? m.tool_calls : []) {
      const a = (c?.function || c)?.arguments;
      push(2, a === undefined ? '' : JSON.stringify(a));
    }
    if (o.done === true) st.fin(typeof o.done_reason == 'string' ? o.done_reason : 'stop'), st.use(o.prompt_eval_count, o.eval_count), (st.done = 1);
    else if (!n && (m !== undefined || o.response !== undefined)) push(0, '');
  },
};
