// @latency-lab/field's decoding, loaded when a page's first answer streams
// (or bundled into a build for one wire): framing (SSE, lines, raw text),
// which wire a response speaks, and each stream read into the lab's chunks.
// Held to the lab's own tables (tests/fixtures/wires, tests/fixtures/sse).

const cp = (s) => [...s].length;
const TEXT = { id: 'text', raw: 1, ct: /^text\/plain/ };
export const text = TEXT;
const wires = { text: TEXT };

/** Reads one stream of wire `w` (a module of ./wires/, or TEXT): `feed`
 *  takes network reads and gives the chunks each completed, `close` names
 *  how the stream ended (null: complete). */
export function createDecoder(w = TEXT) {
  const td = new TextDecoder();
  const st = {
    usage: null, finish: [], done: 0, error: 0, aborted: 0, bad: 0, n: 0, model: null, calls: new Set(),
    use(...v) {
      const u = (st.usage ||= {});
      ['input', 'output', 'cached', 'reasoning'].forEach((k, i) => Number.isInteger(v[i]) && v[i] >= 0 && (u[k] = v[i]));
    },
    fin: (f) => typeof f == 'string' && !st.finish.includes(f) && st.finish.push(f),
    named: (m) => typeof m == 'string' && (st.model = m),
  };
  let rest = '', data = null, ev = null, cr = false, out;
  const push = (kind, text) => out.push({ kind, chars: cp(text) });
  const json = (s) => {
    try {
      return JSON.parse(s);
    } catch {}
  };
  const message = (e, d) => {
    if (e == 'error') return (st.error = 1);
    if ((d = d.trim()) == '[DONE]' && !w.lines) return (st.done = 1);
    let o;
    if (w.code) {
      const m = /^(\w):([^]*)$/.exec(d);
      o = m && [m[1], json(m[2])];
      if (o && o[1] === undefined) o = null;
    } else o = json(d);
    o && typeof o == 'object' && (w.code || !Array.isArray(o)) ? w.decode(o, e, st, push) : st.bad++;
  };
  const line = (l) => {
    if (w.lines) return l.trim() && message(null, l);
    if (l === '') {
      if (data !== null) message(ev, data);
      data = ev = null;
    } else if (l[0] != ':') {
      const i = l.indexOf(':');
      const name = i < 0 ? l : l.slice(0, i);
      let v = i < 0 ? '' : l.slice(i + 1);
      if (v[0] == ' ') v = v.slice(1);
      if (name == 'data') data = data === null ? v : data + '\n' + v;
      else if (name == 'event') ev = v;
      else if (w.id == 'gemini' && l.includes('"error"')) st.error = 1;
      else if (name != 'id' && name != 'retry') st.bad++;
    }
  };
  return {
    state: st,
    close() {
      const clean = !rest && data === null && !td.decode();
      const complete = st.done || (w.ends && st.finish.length && clean) || (w.raw && clean);
      return st.aborted ? 'aborted' : st.error ? 'server_error' : st.bad ? 'malformed' : !complete ? 'truncated' : st.n ? null : 'empty';
    },
    message(e, d) {
      out = [];
      message(e, d);
      st.n += out.length;
      return out;
    },
    feed(bytes) {
      let s = typeof bytes == 'string' ? bytes : td.decode(bytes, { stream: true });
      out = [];
      if (w.raw) s && push(0, s);
      else if (s) {
        if (cr && s[0] == '\n') s = s.slice(1);
        cr = s.endsWith('\r');
        const lines = (rest + s).split(/\r\n|\r|\n/);
        rest = lines.pop();
        lines.forEach(line);
      }
      st.n += out.length;
      return out;
    },
  };
}

let fetchWire;
/** A wire's decoder module: registered (a build's own), or fetched (a
 *  promise until then; null when there is none). */
const wire = (id) =>
  wires[id] ?? (wires[id] = fetchWire ? fetchWire(id).then((m) => (wires[id] = m.default), () => (wires[id] = null)) : null);

/** Registers wire modules (a build's own), and how to fetch the others. */
export const register = (list, fetch) => {
  list.forEach((w) => (wires[w.id] = w));
  fetchWire = fetch;
};

/** Detection for a build of one wire: a stream of its content type is it. */
export const only = (w) => (ct) => (w.ct.test(ct) ? w.id : 'unknown');

/**
 * One streamed answer, read as it arrives: `feed(t, bytes)` a network read
 * at page time `t`, `message(t, event, data)` one already framed (an
 * EventSource or WebSocket message). `close()` gives what was read: the
 * wire ('unknown' when it is none the lab reads), the chunks' times, kinds
 * and characters (null where unknown: a message of an unknown format is a
 * chunk of unknown text), the decoder's state and how it ended (`byPage`:
 * the page closed the connection, so a cut stream was stopped, 'aborted');
 * `ready()` resolves when the decoder it needs has arrived.
 */
export function open(ct, header, which) {
  ct = ct.toLowerCase();
  const td = new TextDecoder(), q = [], out = { wire: undefined, at: [], kind: [], chars: [] };
  let s = '', dec = null, w;
  const add = (t) => (c) => out.at.length < 1e5 && out.at.push(t) && out.kind.push(c.kind) && out.chars.push(c.chars);
  const run = ([t, b, e]) =>
    dec ? (e === undefined ? dec.feed(b) : dec.message(e, b)).forEach(add(t)) : out.wire == 'unknown' && e !== undefined && add(t)({ kind: 0, chars: null });
  let loading;
  const known = (id) => {
    out.wire = id;
    const go = (m) => {
      if ((w = m)) dec = createDecoder(m);
      else out.wire = 'unknown';
      q.splice(0).forEach(run);
    };
    const m = id == 'unknown' ? null : wire(id);
    m?.then ? (loading = m.then(go)) : go(m);
  };
  const tell = (more, end) => {
    if (out.wire !== undefined) return;
    s += more;
    const id = which(ct, header, s) || (end && (/^text\/plain/.test(ct) ? 'text' : 'unknown'));
    if (id) known(id);
  };
  tell('');
  const take = (x) => (dec || out.wire == 'unknown' ? run(x) : q.push(x));
  return {
    feed(t, b) {
      tell(td.decode(b, { stream: true }));
      take([t, b]);
    },
    message(t, e, d) {
      tell(`event: ${e}\ndata: ${d}\n\n`);
      take([t, d, e]);
    },
    /** Once the wire is told (the end tells it) and its decoder here. */
    ready() {
      tell('', 1);
      return loading;
    },
    close(byPage) {
      tell('', 1);
      if (!dec) out.wire = 'unknown';
      out.fail = dec ? dec.close() : null;
      if (byPage && out.fail == 'truncated') out.fail = 'aborted';
      out.st = dec && dec.state;
      return out;
    },
  };
}
