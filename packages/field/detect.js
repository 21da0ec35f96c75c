// @latency-lab/field: which wire a streamed response speaks (loaded with
// decode.js; a build of one wire does without it). The lab's own detection
// (core's stream::wire::detect) and held to the same table.

/** The wire a streamed response speaks, from its content type, header(name)
 *  and the text of its first reads: a wire's id, 'unknown', or undefined
 *  while the text does not tell yet (the lab's own detection, in core). */
export function wireOf(ct, header, s) {
  const v1 = (h) => (header(h) || '').trim() == 'v1';
  if (v1('x-vercel-ai-ui-message-stream')) return 'ui_stream';
  if (v1('x-vercel-ai-data-stream')) return 'data_stream';
  if (/ndjson|jsonl/.test(ct)) return 'ollama';
  const first = s.split(/\r?\n/)[0];
  if (/^text\/plain/.test(ct)) {
    if (!s) return;
    try {
      if (/^\w:/.test(first)) return JSON.parse(first.slice(2)), 'data_stream';
    } catch {}
    return 'text';
  }
  if (/application\/json/.test(ct) && /^\s*{/.test(s) && s.includes('\n')) return 'ollama';
  let e;
  for (const l of s.split(/\r?\n/)) {
    if (l.startsWith('event:')) e = l.slice(6).trim();
    else if (l.startsWith('data:')) {
      const d = l.slice(5).trim();
      if (d == '[DONE]') return 'chat';
      let o;
      try {
        o = JSON.parse(d);
      } catch {
        return 'unknown';
      }
      const k = e || o?.type || '';
      return /^response\./.test(k) || (k == 'error' && o?.sequence_number !== undefined) ? 'responses'
        : /^(message_|content_block|ping$)/.test(k) ? 'anthropic'
        : o?.candidates || o?.usageMetadata ? 'gemini'
        : /^(start|finish|abort|error|text-|reasoning-|tool-|source-|file$|data-|message-metadata)/.test(k) ? 'ui_stream'
        : o?.choices || o?.error || /^(chat\.completion|text_completion)/.test(o?.object) ? 'chat'
        : 'unknown';
    }
  }
  if (s.length > 65536) return 'unknown';
}


