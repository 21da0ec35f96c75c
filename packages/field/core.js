// @latency-lab/field's recorder (README.md: what it records and why each
// line is here). field.js installs it with its decoders loaded on demand; a
// build of one wire (build.mjs) with that wire's decoder built in.

const NS = 'latency_lab.';
const MAX = 100000;
const ACT = 1000;
const now = () => performance.now();
const cp = (s) => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

const val = (x) =>
  Array.isArray(x)
    ? { arrayValue: { values: x.map(val) } }
    : typeof x == 'string'
      ? { stringValue: x }
      : typeof x == 'boolean'
        ? { boolValue: x }
        : Number.isInteger(x)
          ? { intValue: String(x) }
          : { doubleValue: x };
const attr = (key, x) => ({ key, value: val(x) });
const ms = (x) => Math.round(x * 1000) / 1000;
const ns = (t) => String(BigInt(Math.round((performance.timeOrigin + t) * 1000)) * 1000n);
const hex = (n) => [...crypto.getRandomValues(new Uint8Array(n))].map((b) => b.toString(16).padStart(2, '0')).join('');

export function spanOf(r, env) {
  const a = [
    ['gen_ai.operation.name', r.op],
    ['server.address', r.host],
    [NS + 'wire', r.wire || 'unknown'],
    [NS + 'chunk_ms', r.at.map(ms)],
    [NS + 'chunk_kinds', r.kind],
    [NS + 'sample_rate', env.sampleRate],
  ];
  const add = (k, x) => x !== undefined && x !== null && a.push([k, x]);
  const st = r.st || {};
  add(NS + 'chunk_chars', r.chars.includes(null) ? null : r.chars);
  add('gen_ai.request.model', r.model);
  add('gen_ai.response.model', st.model);
  if (r.at.length) add('gen_ai.response.time_to_first_chunk', r.at[0] / 1000);
  const u = st.usage || {};
  add('gen_ai.usage.input_tokens', u.input);
  add('gen_ai.usage.output_tokens', u.output);
  add('gen_ai.usage.cache_read.input_tokens', u.cached);
  if (st.finish?.length) add('gen_ai.response.finish_reasons', st.finish);
  add(NS + 'headers_ms', r.headers === null ? null : ms(r.headers));
  add(NS + 'action_ms', r.act);
  if (r.paint.length) {
    add(NS + 'paint_ms', r.paint.map(ms));
    add(NS + 'paint_chars', r.shown);
  }
  if (r.aborted) add(NS + 'aborted', true);
  add('error.type', r.aborted ? null : r.err);
  add(NS + 'clock_step_ms', env.step);
  add(NS + 'display_hz', env.hz);
  return {
    traceId: hex(16),
    spanId: hex(8),
    name: r.op + (r.model ? ' ' + r.model : ''),
    kind: 3,
    startTimeUnixNano: ns(r.t0),
    endTimeUnixNano: ns(r.t0 + r.end),
    attributes: a.map(([k, x]) => attr(k, x)),
    status: r.err && !r.aborted ? { code: 2 } : {},
  };
}

function clockStep(best = Infinity) {
  for (let t = now(), t0 = t, u, seen = 0; seen < 4 && t - t0 < 3; t = u)
    if ((u = now()) > t) (best = Math.min(best, u - t)), seen++;
  return best < Infinity ? ms(best) : undefined;
}

function refresh(done, at = []) {
  requestAnimationFrame(function tick(t) {
    if (at.push(t) < 11) return requestAnimationFrame(tick);
    const g = at.slice(1).map((x, i) => x - at[i]).sort((x, y) => x - y)[5];
    if (g > 0) done(Math.round(10000 / g) / 10);
  });
}

const isAbort = (e) => e && e.name == 'AbortError';

export function record(options) {
  const cfg = { sampleRate: 1, answer: '[data-llm-answer]', settleMs: 1000, ...options };
  const G = globalThis, orig = G.fetch;
  // The decoders (decode.js) and which wire a response speaks (detect.js):
  // a build's own, or loaded (cfg.load) when an answer first streams.
  let D = cfg.decoder, W = cfg.detect;
  const load = () => D ?? (D = cfg.load().then((m) => ((W ||= m.detect), m.register(cfg.wires || [], m.fetchWire), (D = m)), () => (D = 0)));
  if (D) D.register(cfg.wires || []);
  const env = { sampleRate: cfg.sampleRate, step: clockStep() };
  refresh((hz) => (env.hz = hz));
  const open = new Set();
  const queue = [];
  let mo = null, frame = false, timer = 0, act = -1 / 0, said = false;
  const acts = (f) => ['click', 'submit', 'keydown'].forEach((k) => f(k, action, true));
  const action = (e) => {
    if (e.type[0] != 'k' || (e.key == 'Enter' && !e.isComposing)) act = e.timeStamp;
  };
  acts(addEventListener);

  const answers = () => document.querySelectorAll(cfg.answer);
  const current = () => [...open].reverse().find((r) => r.sure) || [...open].pop();
  // A paint: the newest answer element's text changed since the last one
  // (a node the page re-created with the same text is not one).
  const stamp = () => {
    frame = false;
    const t = now(), r = current(), all = answers(), i = all.length - 1;
    if (!r || i < 0) return;
    const n = cp(all[i].textContent || '');
    if (n == 0 || (i == r.li && n == r.last)) return;
    r.li = i;
    r.last = n;
    r.lastPaint = t;
    if (r.paint.length < MAX) r.paint.push(t - r.t0) && r.shown.push(n);
  };
  const watch = () => {
    if (mo || typeof MutationObserver == 'undefined') return;
    mo = new MutationObserver(() => frame || ((frame = true), requestAnimationFrame(stamp)));
    mo.observe(document.documentElement, { childList: true, subtree: true, characterData: true });
  };
  const flush = () => {
    clearTimeout(timer);
    if (!queue.length) return;
    const spans = queue.splice(0);
    const body = JSON.stringify({
      resourceSpans: [
        {
          resource: { attributes: [attr('service.name', cfg.site || location.host)] },
          scopeSpans: [{ scope: { name: '@latency-lab/field', version: '0.2.0' }, spans }],
        },
      ],
    });
    // fetch with keepalive outlives the page as a beacon does, and says the
    // page's origin even where its Referrer-Policy is no-referrer (a
    // beacon then says "null" in Firefox, as the standard has it); a
    // beacon where fetch fails outright.
    const url = cfg.collector + '?key=' + encodeURIComponent(cfg.key);
    const small = body.length < 60000;
    orig(url, { method: 'POST', body, keepalive: small, headers: { 'content-type': 'text/plain' } }).catch(
      () => small && navigator.sendBeacon?.(url, new Blob([body], { type: 'text/plain' })),
    );
  };
  const drop = (r) => {
    open.delete(r);
    if (!open.size && mo) mo.disconnect(), (mo = null);
  };
  // The span: what the decoder read (nothing, for a wire it does not know).
  const done = (r) => {
    if (!open.has(r)) return;
    drop(r);
    const x = r.d ? r.d.close(r.byPage) : { at: [], kind: [], chars: [] };
    Object.assign(r, x, { at: x.at.map((t) => t - r.t0) });
    if (!r.aborted && !r.err) r.err = x.fail;
    if (r.err == 'aborted') (r.aborted = true), (r.err = null);
    // No answer element on the page: said once; unless matched, not an answer.
    if (!answers().length && !r.paint.length) {
      said || console.warn(`@latency-lab/field: nothing matches answer "${cfg.answer}"`), (said = true);
      if (!cfg.match) return;
    }
    const span = spanOf(r, env);
    if (cfg.onSpan) cfg.onSpan(span);
    queue.push(span);
    clearTimeout(timer);
    timer = setTimeout(flush, queue.length < 20 ? 2000 : 0);
  };
  // The stream ended at `at`; the span goes once the answer has stayed
  // unchanged settleMs (a smoothing buffer paints on after the last chunk).
  const end = (r, err, at = now()) => {
    if (r.end !== null) return;
    r.end = at - r.t0;
    if (err !== undefined && !r.aborted) r.err = err;
    const settle = () => {
      const t = now();
      t - Math.max(r.t0 + r.end, r.lastPaint) >= cfg.settleMs || t - r.t0 - r.end > 60000
        ? Promise.resolve(r.d && r.d.ready()).then(() => done(r))
        : setTimeout(settle, cfg.settleMs / 4);
    };
    setTimeout(settle, cfg.settleMs);
  };
  const want = (url, init) => {
    try {
      return cfg.match ? cfg.match(url, init) : now() - act <= ACT;
    } catch {}
  };
  // A request: it starts at the user's action when one came at most ACT
  // before it, else at its send; sampled here.
  const begin = (t0, host, body, model) => {
    if (Math.random() >= cfg.sampleRate) return null;
    try {
      if (typeof body == 'string' && body[0] == '{') model = JSON.parse(body).model ?? model;
    } catch {}
    const all = answers(), li = all.length - 1;
    const r = { t0, host, model: cfg.model || (typeof model == 'string' ? model : undefined), op: 'chat', headers: null, end: null, err: null, li };
    if (t0 - act <= ACT) r.act = ms(t0 - act);
    Object.assign(r, { paint: [], shown: [], lastPaint: 0, last: li < 0 ? 0 : cp(all[li].textContent || '') });
    open.add(r);
    watch();
    return r;
  };
  // It is an answer: the action is its, and it is decoded as it arrives.
  const take = (r, ct, header) => {
    r.sure = true;
    act = -1 / 0;
    const q = [];
    const go = () => {
      if (D && !D.then) (r.d = D.open(ct, header, W)), q.splice(0).forEach((f) => f(r.d));
    };
    const m = load();
    m.then ? m.then(go) : go();
    return (f) => (r.d ? f(r.d) : D !== 0 && q.push(f));
  };
  const wrap = (res, r, put) => {
    const reader = res.body.getReader();
    const body = new ReadableStream({
      async pull(ctl) {
        let x;
        try {
          x = await reader.read();
        } catch (e) {
          r.aborted ||= isAbort(e);
          end(r, e && e.name);
          return ctl.error(e);
        }
        if (x.done) return end(r), ctl.close();
        const t = now(), b = x.value;
        put((d) => d.feed(t, b));
        ctl.enqueue(b);
      },
      cancel(reason) {
        r.aborted = true;
        end(r);
        return reader.cancel(reason);
      },
    });
    const out = new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
    Object.defineProperty(out, 'url', { value: res.url });
    return out;
  };

  function fetchField(input, init = {}) {
    const t0 = now();
    let url, r;
    try {
      url = new URL(input instanceof Request ? input.url : String(input), location.href);
      const model = /\/models\/([^/:]+):/.exec(url.pathname)?.[1];
      r = want(url, init) && begin(t0, url.hostname, init.body, model && decodeURIComponent(model));
    } catch {}
    if (!r) return orig.apply(this, arguments);
    const p = url.pathname;
    r.op = /models\/[^/]+:/.test(p) ? 'generate_content' : /\/completions$|\/api\/generate$/.test(p) && !/chat\/completions$/.test(p) ? 'text_completion' : 'chat';
    const post = (input.method || init.method || 'GET').toUpperCase() == 'POST';
    const signal = init.signal || input.signal;
    if (signal) signal.addEventListener('abort', () => r.end === null && (r.aborted = true));
    return orig.apply(this, arguments).then(
      (res) => {
        r.headers = now() - r.t0;
        const ct = res.headers.get('content-type') || '', h = (k) => res.headers.get(k);
        const streams =
          /event-stream|ndjson|jsonl/i.test(ct) || h('x-vercel-ai-ui-message-stream') || h('x-vercel-ai-data-stream') || (/^text\/plain/i.test(ct) && !h('content-length'));
        if (res.ok && streams && res.body) return wrap(res, r, take(r, ct, h));
        if (!res.ok && (cfg.match || post)) take(r, '', h), end(r, String(res.status));
        else drop(r);
        return res;
      },
      (e) => {
        if (cfg.match || post) {
          take(r, '', () => null);
          r.aborted ||= isAbort(e);
          end(r, (e && e.name) || 'network');
        } else drop(r);
        throw e;
      },
    );
  }
  G.fetch = fetchField;
  // Other ways answers arrive (transports.js: EventSource, WebSocket).
  const api = { want, begin, take, end, cfg };
  const undo = (cfg.transports || []).map((t) => t(api));
  const hide = () => {
    for (const r of [...open]) {
      if (!r.sure) continue;
      if (r.end === null) (r.aborted = true), end(r);
      done(r);
    }
    flush();
  };
  addEventListener('pagehide', hide);
  return {
    flush,
    stop() {
      if (G.fetch === fetchField) G.fetch = orig;
      undo.forEach((u) => u());
      removeEventListener('pagehide', hide);
      acts(removeEventListener);
      hide();
    },
  };
}
