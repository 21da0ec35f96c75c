// OpenAI Responses API events: output_text / refusal deltas (answer),
// reasoning summary and text deltas, function-call items and their argument
// deltas; response.completed / .incomplete end it with usage;
// response.failed and error events are the server's errors.
export default {
  id: 'responses',
  ct: /event-stream/,
  decode(o, ev, st, push) {
    const k = typeof o.type == 'string' ? o.type : ev || '', r = o.response, d = typeof o.delta == 'string' ? o.delta : '';
    if (/^response\.(output_text|refusal)\.delta$/.test(k)) push(0, d);
    else if (/^response\.reasoning_(summary_)?text\.delta$/.test(k)) push(1, d);
    else if (k == 'response.function_call_arguments.delta') push(2, d);
    else if (k == 'response.output_item.added' && o.item?.type == 'function_call')
      push(2, typeof o.item.arguments == 'string' ? o.item.arguments : '');
    else if (k == 'response.failed' || k == 'error') st.error = 1;
    else if (/^response\.(created|in_progress|completed|incomplete)$/.test(k)) {
      st.named(r?.model);
      if (/(completed|incomplete)$/.test(k)) {
        const u = r?.usage;
        if (u) st.use(u.input_tokens, u.output_tokens, u.input_tokens_details?.cached_tokens, u.output_tokens_details?.reasoning_tokens);
        const why = r?.incomplete_details?.reason;
        st.fin(typeof why == 'string' ? why : typeof r?.status == 'string' ? r.status : 'completed');
        st.done = 1;
      }
    }
  },
};
