// Anthropic Messages events: text_delta (answer), thinking_delta
// (reasoning), tool_use blocks and their input_json_delta pieces;
// message_start and message_delta carry usage (the prompt is input + cache
// reads + cache writes), message_delta the stop reason, message_stop ends
// it; error events are the server's.
export default {
  id: 'anthropic',
  ct: /event-stream/,
  decode(o, ev, st, push) {
    const k = typeof o.type == 'string' ? o.type : ev || '', d = o.delta, s = (v) => (typeof v == 'string' ? v : '');
    const use = (u) => {
      if (!u) return;
      const n = (v) => (Number.isInteger(v) && v >= 0 ? v : undefined), i = n(u.input_tokens);
      st.use(i === undefined ? i : i + (n(u.cache_read_input_tokens) || 0) + (n(u.cache_creation_input_tokens) || 0), u.output_tokens, u.cache_read_input_tokens);
    };
    if (k == 'message_start') st.named(o.message?.model), use(o.message?.usage);
    else if (k == 'content_block_start' && /^(server_)?tool_use$/.test(o.content_block?.type)) push(2, '');
    else if (k == 'content_block_delta')
      d?.type == 'text_delta' ? push(0, s(d.text)) : d?.type == 'thinking_delta' ? push(1, s(d.thinking)) : d?.type == 'input_json_delta' && push(2, s(d.partial_json));
    else if (k == 'message_delta') st.fin(d?.stop_reason), use(o.usage);
    else if (k == 'message_stop') st.done = 1;
    else if (k == 'error') st.error = 1;
  },
};
