// OpenAI Chat Completions (and legacy Completions) chunks: choices[0].delta
// content, reasoning (reasoning_content / reasoning) and tool-call argument
// fragments; usage on the last chunk; [DONE] ends it (decode.js frames it).
// A chunk with an empty content string that is neither the role's opening
// nor the finish is a token whose text is still empty.
const text = (v) => (typeof v == 'string' ? v : Array.isArray(v) ? v.map((p) => text(p?.text)).join('') : '');

export default {
  id: 'chat',
  ct: /event-stream/,
  ends: 1,
  decode(o, ev, st, push) {
    const e = o.error, u = o.usage, c = o.choices?.find?.((x) => (Number.isInteger(x?.index) ? x.index : 0) == 0);
    if ((e && typeof e == 'object') || typeof e == 'string' || o.object == 'error') return (st.error = 1);
    if (u && typeof u == 'object') st.use(u.prompt_tokens, u.completion_tokens, u.prompt_tokens_details?.cached_tokens);
    st.named(o.model);
    if (c === undefined) return;
    const d = c?.delta, f = c?.finish_reason, tc = d?.tool_calls, fc = d?.function_call;
    const v = d === undefined ? c?.text : d?.content, s = text(v), r = text(d?.reasoning_content) || text(d?.reasoning);
    const calls = (Array.isArray(tc) ? tc : fc && typeof fc == 'object' && !Array.isArray(fc) ? [fc] : []).map((t) => text((t?.function ?? t)?.arguments));
    st.fin(f);
    if (r) push(1, r);
    if (s || (!r && !calls.length && (typeof v == 'string' || (d !== undefined && Array.isArray(v))) && typeof d?.role != 'string' && typeof f != 'string')) push(0, s);
    calls.forEach((a) => push(2, a));
  },
};
