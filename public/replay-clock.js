// Latency Lab's release clock for replays (a dedicated worker).
//
// The page's main thread is busy every frame with style, layout and paint,
// so a timer there fires late whenever a frame is being drawn. This worker
// has an event loop of its own. It sleeps until shortly before the next due
// time, then polls the clock through a MessageChannel (tasks that are never
// clamped) and releases each chunk the moment it is due, reporting the
// release time on the page's clock.
//
// Sleeping: when the page is cross-origin isolated, Atomics.wait on a
// private SharedArrayBuffer (a futex with a sub-millisecond timeout; where
// the global constructor is hidden, as in WebKitGTK, the buffer of a shared
// WebAssembly.Memory, which is one) until
// the due time, in slices of about SLICE_MS, yielding between slices so
// new schedules get in (a slice ends HOP_MARGIN_MS before a due time or
// more, so the hop between slices never delays a release); worker timers in Chromium otherwise fire up to
// several ms late. Without isolation it falls back to setTimeout with a
// polling window.
//
// The two clocks are related by an offset the page measures with pings
// (performance.timeOrigin differs between page and worker by up to a few
// milliseconds in Chromium, so it cannot be used for this).
//
// Protocol (page -> worker):
//   {type: 'ping'} -> worker answers {type: 'pong', t: <worker performance.now()>,
//     sleep: 'atomics' | 'timers'} (how it sleeps, for the trace);
//   {type: 'schedule', offset: <page clock - worker clock>, due: Float64Array [pane, index, dueMs, ...]}
//     replaces the schedule (due times on the page's clock, sorted);
//   {type: 'stop'} clears it.
// Worker -> page: Float64Array [pane, index, releasedMs, ...] per release batch.
'use strict';

/** A private 32-bit cell to wait on, or null without isolation or Atomics.wait. */
function sharedCell() {
  if (!self.crossOriginIsolated || typeof Atomics === 'undefined' || typeof Atomics.wait !== 'function') return null;
  try {
    if (typeof SharedArrayBuffer !== 'undefined') return new Int32Array(new SharedArrayBuffer(4));
    return new Int32Array(new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true }).buffer, 0, 1);
  } catch {
    return null;
  }
}
const cell = sharedCell();
const ATOMIC = cell !== null;
// Without Atomics, setTimeout may fire late: it wakes SPIN_MS early and the
// rest is covered by polling through the MessageChannel.
const SPIN_MS = 4;
const SLICE_MS = 20;
// A slice ends this long before the next due time at least (the hop to the
// next slice through the MessageChannel: 0.3 ms typical and up to about
// 2 ms in WebKitGTK's workers on a busy machine, tens of µs in Chromium and
// Firefox; tests/bench/clock_paths.bench.mjs) ...
const HOP_MARGIN_MS = 10;
// ... or once it has run this long, whatever is due.
const MAX_SLICE_MS = 100;
// Releases are reported in batches at most BATCH_MS apart: a 5,000-token/s
// stream would otherwise post thousands of messages a second to the page.
// Each release keeps its own timestamp, so batching costs no accuracy.
const BATCH_MS = 2;
let outbox = [];
let outboxSince = 0;

function flush() {
  if (outbox.length) {
    postMessage(new Float64Array(outbox));
    outbox = [];
  }
}
let due = new Float64Array(0);
let next = 0;
let offset = 0;
let timer = null;
let spinning = false;
const channel = new MessageChannel();

const now = () => performance.now() + offset;

/** Releases every chunk due by now (batched; see BATCH_MS). */
function release() {
  const t = now();
  while (next < due.length && due[next + 2] <= t) {
    if (!outbox.length) outboxSince = t;
    outbox.push(due[next], due[next + 1], t);
    next += 3;
  }
  const upcoming = next < due.length ? due[next + 2] - t : Infinity;
  if (outbox.length && (upcoming > BATCH_MS || t - outboxSince >= BATCH_MS)) flush();
}

function tick() {
  spinning = false;
  if (next >= due.length) {
    flush();
    return;
  }
  release();
  arm();
}

function arm() {
  if (timer !== null) {
    clearTimeout(timer);
    timer = null;
  }
  if (next >= due.length) return;
  if (ATOMIC) {
    // Sleep exactly until each due time (a futex with a sub-millisecond
    // timeout; a busy-wait would burn a core at 5,000 tokens/s) and release
    // right after waking, in this task (a hop through the MessageChannel
    // first would add its cost, see HOP_MARGIN_MS, to every release). After
    // about SLICE_MS the task ends and the next begins through the channel,
    // so new schedules get in; it ends only where that hop lands before the
    // next due time (HOP_MARGIN_MS to spare), or after MAX_SLICE_MS in any
    // case, so a dense stream still lets a new schedule in.
    const start = performance.now();
    const until = start + SLICE_MS;
    while (next < due.length) {
      const wait = due[next + 2] - now();
      const left = until - performance.now();
      if (wait > Math.max(left, 0) + HOP_MARGIN_MS || performance.now() - start > MAX_SLICE_MS) {
        if (left > 0) Atomics.wait(cell, 0, 0, left);
        break;
      }
      if (wait > 0) Atomics.wait(cell, 0, 0, wait);
      release();
    }
    if (!spinning) {
      spinning = true;
      channel.port2.postMessage(0);
    }
    return;
  }
  const wait = due[next + 2] - now();
  if (wait > SPIN_MS) {
    timer = setTimeout(() => {
      timer = null;
      arm();
    }, wait - SPIN_MS);
  } else if (!spinning) {
    spinning = true;
    channel.port2.postMessage(0);
  }
}

channel.port1.onmessage = tick;

onmessage = (e) => {
  const m = e.data;
  if (m.type === 'ping') {
    postMessage({ type: 'pong', t: performance.now(), sleep: ATOMIC ? 'atomics' : 'timers' });
  } else if (m.type === 'schedule') {
    offset = m.offset;
    due = m.due;
    next = 0;
    arm();
  } else if (m.type === 'stop') {
    due = new Float64Array(0);
    next = 0;
    outbox = [];
    arm();
  }
};
