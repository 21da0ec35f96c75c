// The plain client the Live benchmarks compare the lab with: `fetch` +
// `reader.read()` in the page, no lab code, stamping the first read that
// carries answer text, against the server's own send time of that chunk
// (the replay endpoint's ground truth). Written once for
// live_browsers.bench.mjs and idle_gap.bench.mjs.

/**
 * In the page (pass to `page.evaluate` with `[base, model, n, pause]`):
 * `n` requests, each after `pause` ('none', 'sleep10', 'sleep50', 'frames':
 * three animation frames and a task, as the lab waits for its view to
 * settle, or 'busy50': the main thread spinning 50 ms); returns TTFT −
 * the server's TTFT per request (ms).
 */
export async function plainLoop([base, model, n, pause]) {
  const out = [];
  for (let i = 0; i < n; i++) {
    if (pause === 'sleep10' || pause === 'sleep50') {
      await new Promise((r) => setTimeout(r, pause === 'sleep10' ? 10 : 50));
    } else if (pause === 'frames') {
      for (let f = 0; f < 3; f++) await new Promise((r) => requestAnimationFrame(r));
      await new Promise((r) => setTimeout(r, 0));
    } else if (pause === 'busy50') {
      const end = performance.now() + 50;
      while (performance.now() < end);
    }
    const body = JSON.stringify({ model, stream: true, max_tokens: 100, messages: [{ role: 'user', content: 'Hello' }] });
    const t0 = performance.now();
    const r = await fetch(`${base}v1/chat/completions`, {
      method: 'POST', body, cache: 'no-store', credentials: 'omit',
      headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' },
    });
    const reader = r.body.getReader();
    const dec = new TextDecoder();
    let first = null;
    for (;;) {
      const { done, value } = await reader.read();
      const at = performance.now();
      if (done) break;
      if (first === null && /"content":"[^"]/.test(dec.decode(value, { stream: true }))) first = at;
    }
    const truth = await (await fetch(`${base}v1/lab/requests/${r.headers.get('x-latency-lab-request-id')}`)).json();
    out.push(first - t0 - truth.chunks[0].sent_ms);
  }
  return out;
}
