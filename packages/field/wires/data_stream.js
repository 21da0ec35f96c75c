// The Vercel AI SDK data stream (AI SDK 4), one `code:JSON` part a line:
// 0 answer, g reasoning, b / c a streamed call, 9 a whole one, e / d a
// step's and the message's finish with usage (d ends it), 3 an error.
export default {
  id: 'data_stream',
  ct: /^text\/plain/,
  lines: 1,
  ends: 1,
  code: 1,
  decode([k, v], ev, st, push) {
    const s = (x) => (typeof x == 'string' ? x : ''), id = s(v?.toolCallId);
    if (k == '0') push(0, s(v));
    else if (k == 'g') push(1, s(v));
    else if (k == 'b') st.calls.add(id), push(2, '');
    else if (k == 'c') push(2, s(v?.argsTextDelta));
    else if (k == '9' && !st.calls.has(id)) st.calls.add(id), push(2, v?.args === undefined ? '' : JSON.stringify(v.args));
    else if (k == 'e' || k == 'd') st.fin(v?.finishReason), v?.usage && st.use(v.usage.inputTokens ?? v.usage.promptTokens, v.usage.outputTokens ?? v.usage.completionTokens, v.usage.cachedInputTokens, v.usage.reasoningTokens), (st.done ||= k == 'd');
    else if (k == '3') st.error = 1;
  },
};
