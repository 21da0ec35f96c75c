// The Vercel AI SDK UI message stream (SSE data: parts, ending [DONE]):
// text-delta (answer), reasoning-delta, tool-input-start / -delta /
// -available (a call not streamed), finish (its reason, usage a page put
// in messageMetadata), error and abort parts.
export default {
  id: 'ui_stream',
  ct: /event-stream/,
  ends: 1,
  decode(o, ev, st, push) {
    const k = o.type, s = (v) => (typeof v == 'string' ? v : ''), id = s(o.toolCallId);
    const use = (m) => (m = m?.totalUsage || m?.usage) && st.use(m.inputTokens ?? m.promptTokens, m.outputTokens ?? m.completionTokens, m.cachedInputTokens, m.reasoningTokens);
    if (k == 'text-delta') push(0, s(o.delta));
    else if (k == 'reasoning-delta') push(1, s(o.delta));
    else if (k == 'tool-input-start') st.calls.add(id), push(2, '');
    else if (k == 'tool-input-delta') push(2, s(o.inputTextDelta));
    else if (k == 'tool-input-available' && !st.calls.has(id)) st.calls.add(id), push(2, o.input === undefined ? '' : JSON.stringify(o.input));
    else if (k == 'finish') st.fin(s(o.finishReason) || 'stop'), use(o.messageMetadata);
    else if (k == 'message-metadata') use(o.messageMetadata);
    else if (k == 'error') st.error = 1;
    else if (k == 'abort') st.aborted = 1;
  },
};
