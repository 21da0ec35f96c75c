// @latency-lab/field: answers that arrive by EventSource or WebSocket, for
// pages whose answers do (installField({ transports: [eventSource,
// webSocket] })). Each message is a chunk: decoded when it is a wire the lab
// reads, else one chunk of unknown text (its arrival is still measured).
// Each returns the function that puts the page's class back.

const now = () => performance.now();
const G = globalThis;
const none = () => null;
/** The page closed the answer's connection itself: a stream of a known wire
 *  cut there was stopped by the page (aborted), not cut by the network. */
const stopped = (r, end) => r.end === null && ((r.byPage = true), end(r));

/** An EventSource opened after an action (or matched) is an answer: each
 *  message of a type the page listens to is a chunk; it ends when the page
 *  closes it or the server does. */
export function eventSource({ want, begin, take, end }) {
  const ES = G.EventSource;
  G.EventSource = class extends ES {
    constructor(u, o) {
      super(u, o);
      const url = new URL(u, location.href), r = want(url, {}) && begin(now(), url.hostname);
      if (!r) return;
      const put = take(r, 'text/event-stream', none), seen = new Set();
      this.r = r;
      this.on = (k) => seen.has(k) || (seen.add(k), super.addEventListener(k, (e) => r.end === null && put((d) => d.message(now(), k, e.data))));
      this.on('message');
      super.addEventListener('open', () => (r.headers ??= now() - r.t0));
      super.addEventListener('error', () => end(r, this.readyState == 2 ? 'network' : undefined));
    }
    addEventListener(k, ...a) {
      if (this.on && k != 'open' && k != 'error') this.on(k);
      return super.addEventListener(k, ...a);
    }
    close() {
      const r = this.r;
      r && stopped(r, end);
      return super.close();
    }
  };
  return () => (G.EventSource = ES);
}

/** A message sent after an action (or matched) starts an answer: each
 *  message received is a chunk until the next send, the close, or `idleMs`
 *  (10 s) without one; the answer ended at its last message. */
export function webSocket({ want, begin, take, end, cfg }) {
  const WS = G.WebSocket;
  G.WebSocket = class extends WS {
    constructor(...a) {
      super(...a);
      super.addEventListener('message', (e) => {
        const r = this.r, t = now();
        if (!r || r.end !== null) return;
        r.put((d) => d.message(t, 'message', typeof e.data == 'string' ? e.data : ''));
        r.lm = t;
        clearTimeout(r.idle);
        r.idle = setTimeout(() => end(r, undefined, t), cfg.idleMs ?? 10000);
      });
      super.addEventListener('close', (e) => this.r && end(this.r, e.code == 1000 || e.code == 1005 ? undefined : 'websocket_' + e.code));
    }
    close(...a) {
      const r = this.r;
      r && stopped(r, end);
      return super.close(...a);
    }
    send(x) {
      const url = new URL(this.url), t0 = now();
      if (want(url, { body: x })) {
        if (this.r) end(this.r, undefined, this.r.lm);
        const r = begin(t0, url.hostname, x);
        if (r) (this.r = r), (r.headers = 0), (r.put = take(r, 'text/event-stream', none));
      }
      return super.send(x);
    }
  };
  return () => (G.WebSocket = WS);
}
