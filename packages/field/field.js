// @latency-lab/field (README.md: what it records and why each line is here).

const NS = 'latency_lab.';
const MAX = 100000;
const ACT = 1000;
const now = () => performance.now();

const cp = (s) => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};
const obj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const get = (v, k) => (obj(v) ? v[k] : undefined);
const str = (v) => (typeof v === 'string' ? v : undefined);
const uint = (v) => (Number.isInteger(v) && v >= 0 ? v : undefined);
const textOf = (v) =>
  typeof v === 'string' ? v : Array.isArray(v) ? v.map((p) => str(get(p, 'text')) || '').join('') : '';

function payload(ev, data, st, out) {
  if (ev === 'error') return void (st.error = true);
  const d = data.trim();
  if (d === '[DONE]') return void (st.done = true);
  let o;
  try {
    o = JSON.parse(d);
  } catch {}
  if (!obj(o)) return void st.bad++;
  const e = o.error;
  if (obj(e) || typeof e === 'string' || o.object === 'error')
    return void (st.error = true);
  if (obj(o.usage)) {
    const u = o.usage;
    st.usage = {
      input: uint(u.prompt_tokens),
      output: uint(u.completion_tokens),
      cached: uint(get(u.prompt_tokens_details, 'cached_tokens')),
    };
  }
  if (typeof o.model === 'string') st.model = o.model;
  const c = Array.isArray(o.choices) ? o.choices.find((ch) => (uint(get(ch, 'index')) ?? 0) === 0) : undefined;
  if (c === undefined) return;
  const finish = str(get(c, 'finish_reason'));
  if (finish && !st.finish.includes(finish)) st.finish.push(finish);
  const delta = get(c, 'delta');
  let content, present, reasoning = '', role, calls = [];
  if (delta !== undefined) {
    const v = get(delta, 'content');
    present = typeof v === 'string' || Array.isArray(v);
    content = textOf(v);
    reasoning = textOf(get(delta, 'reasoning_content')) || textOf(get(delta, 'reasoning'));
    role = str(get(delta, 'role'));
    const tc = get(delta, 'tool_calls'), fc = get(delta, 'function_call');
    const one = (t) => {
      const f = get(t, 'function') !== undefined ? get(t, 'function') : t;
      return str(get(f, 'arguments')) || '';
    };
    calls = Array.isArray(tc) ? tc.map(one) : obj(fc) ? [one(fc)] : [];
  } else {
    present = typeof get(c, 'text') === 'string';
    content = textOf(get(c, 'text'));
  }
  const hasText = content || reasoning || calls.length;
  const token = hasText || (present && role === undefined && finish === undefined);
  if (reasoning) out.push({ kind: 1, chars: cp(reasoning) });
  if (content || (token && !hasText)) out.push({ kind: 0, chars: cp(content) });
  for (const a of calls) out.push({ kind: 2, chars: cp(a) });
}

export function createDecoder() {
  const td = new TextDecoder();
  const st = { usage: null, finish: [], done: false, error: null, bad: 0, n: 0, model: null };
  let rest = '', data = null, ev = null, cr = false;
  const line = (l, out) => {
    if (l === '') {
      if (data !== null) payload(ev || null, data, st, out);
      data = ev = null;
    } else if (l[0] !== ':') {
      const i = l.indexOf(':');
      const name = i < 0 ? l : l.slice(0, i);
      let v = i < 0 ? '' : l.slice(i + 1);
      if (v[0] === ' ') v = v.slice(1);
      if (name === 'data') data = data === null ? v : data + '\n' + v;
      else if (name === 'event') ev = v;
      else if (name !== 'id' && name !== 'retry') st.bad++;
    }
  };
  return {
    state: st,
    close: () =>
      st.error ? 'server_error' : st.bad ? 'malformed'
      : !st.done && !(st.finish.length && !rest && data === null) ? 'truncated'
      : st.n ? null : 'empty',
    feed(bytes) {
      let s = typeof bytes === 'string' ? bytes : td.decode(bytes, { stream: true });
      const out = [];
      if (!s) return out;
      if (cr && s[0] === '\n') s = s.slice(1);
      cr = s.endsWith('\r');
      const lines = (rest + s).split(/\r\n|\r|\n/);
      rest = lines.pop();
      for (const l of lines) line(l, out);
      st.n += out.length;
      return out;
    },
  };
}

export function browserOf(ua) {
  const rows = [
    ['Firefox', 'Gecko', 'Firefox/'],
    ['Edge', 'Blink', 'Edg/'],
    ['Chromium', 'Blink', 'Chromium/'],
    ['Chrome', 'Blink', 'HeadlessChrome/'],
    ['Chrome', 'Blink', 'Chrome/'],
    ['Safari', 'WebKit', ua.includes('Safari/') ? 'Version/' : '\0'],
  ];
  for (const [name, engine, t] of rows) {
    const v = (ua.split(t)[1] || '').match(/^[\d.]*/)[0];
    if (v) return [name, engine, v];
  }
  return null;
}

const val = (x) =>
  Array.isArray(x)
    ? { arrayValue: { values: x.map(val) } }
    : typeof x === 'string'
      ? { stringValue: x }
      : typeof x === 'boolean'
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
    ['gen_ai.provider.name', 'openai'],
    ['server.address', r.host],
    [NS + 'chunk_ms', r.at.map(ms)],
    [NS + 'chunk_kinds', r.kind],
    [NS + 'chunk_chars', r.chars],
    [NS + 'sample_rate', env.sampleRate],
  ];
  const add = (k, x) => x !== undefined && x !== null && a.push([k, x]);
  add('gen_ai.request.model', r.model);
  add('gen_ai.response.model', r.st.model);
  if (r.at.length) add('gen_ai.response.time_to_first_chunk', r.at[0] / 1000);
  const u = r.st.usage || {};
  add('gen_ai.usage.input_tokens', u.input);
  add('gen_ai.usage.output_tokens', u.output);
  add('gen_ai.usage.cache_read.input_tokens', u.cached);
  if (r.st.finish.length) add('gen_ai.response.finish_reasons', r.st.finish);
  add(NS + 'headers_ms', r.headers === null ? null : ms(r.headers));
  add(NS + 'action_ms', r.act);
  if (r.paint.length) {
    add(NS + 'paint_ms', r.paint.map(ms));
    add(NS + 'paint_chars', r.shown);
  }
  if (r.aborted) add(NS + 'aborted', true);
  add('error.type', r.aborted ? null : r.err);
  if (env.browser) env.browser.forEach((x, i) => add(NS + ['browser', 'engine', 'browser_version'][i], x));
  add(NS + 'clock_step_ms', env.step);
  add(NS + 'display_hz', env.hz);
  add(NS + 'site', env.site);
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

const isAbort = (e) => e && e.name === 'AbortError';

export function installField(options) {
  const cfg = {
    sampleRate: 1,
    answer: '[data-llm-answer]',
    settleMs: 1000,
    match: (u) => /\/completions$/.test(u.pathname),
    ...options,
  };
  const orig = globalThis.fetch;
  const env = { sampleRate: cfg.sampleRate, site: cfg.site, browser: browserOf(navigator.userAgent), step: clockStep() };
  refresh((hz) => (env.hz = hz));
  const open = new Set();
  const queue = [];
  let mo = null, frame = false, timer = 0, act = -1 / 0;
  const acts = (f) => ['click', 'submit', 'keydown'].forEach((k) => f(k, action, true));
  const action = (e) => {
    if (e.type[0] !== 'k' || (e.key === 'Enter' && !e.isComposing)) act = e.timeStamp;
  };
  acts(addEventListener);

  const current = () => [...open].pop();
  const answerEl = () => [...document.querySelectorAll(cfg.answer)].pop();
  const stamp = () => {
    frame = false;
    const t = now(), r = current(), el = answerEl();
    if (!r || !el || r.at.length === 0) return;
    const n = cp(el.textContent || '');
    if (n === 0 || (el === r.el && n === r.last)) return;
    r.el = el;
    r.last = n;
    r.lastPaint = t;
    if (r.paint.length < MAX) r.paint.push(t - r.t0) && r.shown.push(n);
  };
  const watch = () => {
    if (mo || typeof MutationObserver === 'undefined') return;
    mo = new MutationObserver(() => {
      if (!frame) {
        frame = true;
        requestAnimationFrame(stamp);
      }
    });
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
          scopeSpans: [{ scope: { name: '@latency-lab/field', version: '0.1.0' }, spans }],
        },
      ],
    });
    const url = cfg.collector + '?key=' + encodeURIComponent(cfg.key);
    const small = body.length < 60000;
    (small && navigator.sendBeacon && navigator.sendBeacon(url, new Blob([body], { type: 'text/plain' }))) ||
      orig(url, { method: 'POST', body, keepalive: small, headers: { 'content-type': 'text/plain' } }).catch(() => {});
  };
  const done = (r) => {
    if (!open.has(r)) return;
    open.delete(r);
    if (!open.size && mo) {
      mo.disconnect();
      mo = null;
    }
    const span = spanOf(r, env);
    if (cfg.onSpan) cfg.onSpan(span);
    queue.push(span);
    clearTimeout(timer);
    timer = setTimeout(flush, queue.length < 20 ? 2000 : 0);
  };
  const end = (r, err) => {
    if (r.end !== null) return;
    r.end = now() - r.t0;
    if (err !== undefined && !r.aborted) r.err = err;
    if (!r.aborted && !r.err && r.dec) r.err = r.dec.close();
    const settle = () => {
      const t = now();
      t - Math.max(r.t0 + r.end, r.lastPaint) >= cfg.settleMs || t - r.t0 - r.end > 60000 ? done(r) : setTimeout(settle, cfg.settleMs / 4);
    };
    setTimeout(settle, cfg.settleMs);
  };
  const wrap = (res, r) => {
    const dec = createDecoder(), reader = res.body.getReader();
    r.st = dec.state;
    r.dec = dec;
    const body = new ReadableStream({
      async pull(ctl) {
        let x;
        try {
          x = await reader.read();
        } catch (e) {
          r.aborted = r.aborted || isAbort(e);
          end(r, e && e.name);
          return ctl.error(e);
        }
        if (x.done) {
          end(r);
          return ctl.close();
        }
        const t = now() - r.t0;
        for (const c of dec.feed(x.value)) {
          if (r.at.length >= MAX) break;
          r.at.push(t);
          r.kind.push(c.kind);
          r.chars.push(c.chars);
        }
        ctl.enqueue(x.value);
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

  function fetchField(input, init) {
    let url, body, req, t0 = now();
    try {
      url = new URL(input instanceof Request ? input.url : String(input), location.href);
      body = init && init.body;
      req = typeof body === 'string' && ((init.method || 'GET').toUpperCase() === 'POST') && cfg.match(url) ? JSON.parse(body) : null;
    } catch {
      req = null;
    }
    if (!obj(req) || req.stream !== true || Math.random() >= cfg.sampleRate) return orig.apply(this, arguments);
    const r = { t0, model: str(req.model), host: url.hostname, headers: null, end: null, err: null };
    if (t0 - act >= 0 && t0 - act <= ACT) r.act = ms(t0 - act);
    act = -1 / 0;
    Object.assign(r, { at: [], kind: [], chars: [], paint: [], shown: [], lastPaint: 0, st: { finish: [] } });
    r.op = /chat\/completions$/.test(url.pathname) ? 'chat' : 'text_completion';
    r.el = answerEl();
    r.last = r.el ? cp(r.el.textContent || '') : 0;
    open.add(r);
    watch();
    const signal = init.signal;
    if (signal) signal.addEventListener('abort', () => r.end === null && (r.aborted = true));
    return orig.apply(this, arguments).then(
      (res) => {
        r.headers = now() - r.t0;
        if (!res.ok || !res.body) {
          end(r, res.ok ? 'no_body' : String(res.status));
          return res;
        }
        return wrap(res, r);
      },
      (e) => {
        r.aborted = r.aborted || isAbort(e);
        end(r, (e && e.name) || 'network');
        throw e;
      },
    );
  }
  globalThis.fetch = fetchField;
  const hide = () => {
    for (const r of [...open]) {
      if (r.end === null) {
        r.aborted = true;
        end(r);
      }
      done(r);
    }
    flush();
  };
  addEventListener('pagehide', hide);
  return {
    flush,
    stop() {
      if (globalThis.fetch === fetchField) globalThis.fetch = orig;
      removeEventListener('pagehide', hide);
      acts(removeEventListener);
      hide();
    },
  };
}
