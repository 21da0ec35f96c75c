// Google Gemini (streamGenerateContent?alt=sse): each event a whole
// GenerateContentResponse. Text parts (thought: true is reasoning), whole
// functionCall parts, finishReason, usageMetadata (output = candidates +
// thoughts); an error object or a blocked prompt is the server's error.
export default {
  id: 'gemini',
  ct: /event-stream/,
  ends: 1,
  decode(o, ev, st, push) {
    st.named(o.modelVersion);
    const c = Array.isArray(o.candidates) ? o.candidates[0] : undefined;
    if (o.error) return (st.error = 1);
    const u = o.usageMetadata, n = (v) => (Number.isInteger(v) && v >= 0 ? v : undefined);
    if (u) st.use(u.promptTokenCount, n(u.candidatesTokenCount) === undefined ? undefined : u.candidatesTokenCount + (n(u.thoughtsTokenCount) || 0), u.cachedContentTokenCount, u.thoughtsTokenCount);
    if (o.promptFeedback?.blockReason && c === undefined) return (st.error = 1);
    for (const p of Array.isArray(c?.content?.parts) ? c.content.parts : [])
      if (p?.functionCall) push(2, p.functionCall.args === undefined ? '' : JSON.stringify(p.functionCall.args));
      else if (typeof p?.text == 'string' && p.text) push(p.thought === true ? 1 : 0, p.text);
    if (c?.finishReason != 'FINISH_REASON_UNSPECIFIED') st.fin(c?.finishReason);
  },
};
