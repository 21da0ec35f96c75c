// Where a late replay release comes from, per browser, in one run: the
// pieces of the precise scheduler's path measured apart on the served
// (cross-origin isolated) page, idle and while the page draws:
// - frames: requestAnimationFrame intervals (late: over 1.5 × the median);
// - worker sleep: a dedicated worker waking from `Atomics.wait` on shared
//   WebAssembly memory (what the release clock does) and from `setTimeout`,
//   late by how much against its own clock;
// - worker channel hop: a worker's message to itself through a
//   MessageChannel (how the release clock ends a slice and starts the
//   next, so new schedules get in);
// - hop: a message from that worker to the page, worker stamp to page
//   stamp on the common clock (`timeOrigin + now()`): how long a release
//   waits for the page when the page handles it;
// - main timers: `setTimeout` on the page (the fallback's sleep).
// "drawing": the same while a frame loop appends 40 words per frame to the
// page (a replay's DOM work). Run: node tests/bench/clock_paths.bench.mjs
// (part of ./lab bench); WebKit needs Xvfb (the adapter starts it).
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ARTIFACTS, DIST, launchBrowser, openPage, startServer } from '../e2e/lib/lab.mjs';
import { launchFirefox, openFirefoxPage } from '../e2e/lib/firefox.mjs';
import { launchWebKit, openWebKitPage } from '../e2e/lib/webkit.mjs';
import { waitFor } from '../e2e/lib/dom.mjs';

const SLEEPS = Number(process.env.SLEEPS ?? 150);

/** The probe's worker (served from a copy of the app's dist: the CSP allows same-origin workers only). */
const PROBE_WORKER = `
    const mem = new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true });
    const cell = new Int32Array(mem.buffer);
    const ch = new MessageChannel();
    const hop = () => new Promise((r) => { ch.port1.onmessage = r; ch.port2.postMessage(0); });
    onmessage = async (e) => {
      const { kind, sleeps } = e.data;
      const late = [];
      if (kind === 'channel') {
        for (let i = 0; i < sleeps; i++) {
          Atomics.wait(cell, 0, 0, 2);
          const t = performance.now();
          await hop();
          late.push(performance.now() - t);
        }
        postMessage({ late });
        return;
      }
      for (let i = 0; i < sleeps; i++) {
        const d = 4 + (i * 7919 % 9);
        const target = performance.now() + d;
        if (kind === 'atomics') {
          Atomics.wait(cell, 0, 0, Math.max(0, target - performance.now()));
        } else {
          await new Promise((r) => setTimeout(r, Math.max(0, target - performance.now())));
        }
        const now = performance.now();
        late.push(now - target);
        postMessage({ hop: performance.timeOrigin + now });
      }
      postMessage({ late });
    };`;


/** In the page: the measurements above; returns summaries. */
async function probe(sleeps) {
  const pct = (xs, p) => {
    const s = Float64Array.from(xs).sort();
    if (!s.length) return null;
    const h = (s.length - 1) * p;
    const lo = Math.floor(h);
    return s[lo] + (s[Math.min(lo + 1, s.length - 1)] - s[lo]) * (h - lo);
  };
  const sum = (xs) => ({ n: xs.length, p50: pct(xs, 0.5), p99: pct(xs, 0.99), max: xs.length ? Math.max(...xs) : null });
  const url = '/public/clock-probe.js';
  let drawing = false;
  const frames = [];
  const box = document.createElement('div');
  box.style.cssText = 'position:fixed;left:0;top:0;width:400px;height:300px;overflow:hidden;font:14px sans-serif';
  document.body.append(box);
  let last = null;
  const loop = (ts) => {
    if (last != null) frames.push(ts - last);
    last = ts;
    if (drawing) box.append(document.createTextNode('word '.repeat(40)));
    if (box.childNodes.length > 400) box.textContent = '';
    requestAnimationFrame(loop);
  };
  requestAnimationFrame(loop);
  const worker = async (kind) => {
    const w = new Worker(url);
    const hops = [];
    const late = await new Promise((resolve, reject) => {
      w.onerror = (e) => reject(new Error(e.message || 'worker error'));
      w.onmessage = (e) => {
        if (e.data.hop != null) hops.push(performance.timeOrigin + performance.now() - e.data.hop);
        else resolve(e.data.late);
      };
      w.postMessage({ kind, sleeps });
    });
    w.terminate();
    return { sleep: sum(late), hop: sum(hops) };
  };
  const mainTimers = async () => {
    const late = [];
    for (let i = 0; i < sleeps; i++) {
      const d = 4 + (i * 7919 % 9);
      const target = performance.now() + d;
      await new Promise((r) => setTimeout(r, d));
      late.push(performance.now() - target);
    }
    return sum(late);
  };
  const framesOf = (xs) => {
    const m = pct(xs, 0.5);
    return { ...sum(xs), late: xs.filter((x) => x > 1.5 * m).length };
  };
  const out = { sab_global: typeof SharedArrayBuffer !== 'undefined', isolated: self.crossOriginIsolated };
  for (const mode of ['idle', 'drawing']) {
    drawing = mode === 'drawing';
    frames.length = 0;
    const atomics = await worker('atomics').catch((e) => ({ error: String(e) }));
    const timers = await worker('timers').catch((e) => ({ error: String(e) }));
    const channel = await worker('channel').catch((e) => ({ error: String(e) }));
    const main = await mainTimers();
    out[mode] = { frames: framesOf(frames.slice()), atomics, timers, channel, main };
  }
  box.remove();
  return out;
}

const f = (v) => (v == null ? '–' : v.toFixed(2));
const dist = mkdtempSync(path.join(tmpdir(), 'lab-probe-dist-'));
cpSync(DIST, dist, { recursive: true });
writeFileSync(path.join(dist, 'public', 'clock-probe.js'), PROBE_WORKER);
const server = await startServer([], { dist });
const results = {};
try {
  const browsers = [
    ['Chromium', await launchBrowser(), (b, url) => openPage(b, url)],
    ['Firefox', await launchFirefox(), (b, url) => openFirefoxPage(b, url)],
    ['WebKit', await launchWebKit(), (b, url) => openWebKitPage(b, url)],
  ];
  for (const [name, browser, open] of browsers) {
    const { page, context } = await open(browser, `${server.url}#library`);
    await waitFor(page, 'app-header');
    results[name] = await page.evaluate(probe, SLEEPS);
    await context.close();
    await browser.close();
  }
} finally {
  server.stop();
  rmSync(dist, { recursive: true, force: true });
}
console.log(`\nWhere releases wait, per browser (ms; ${SLEEPS} sleeps of 4–12 ms per row; P50 / P99 / max):\n`);
console.log('| browser | page | frames: P99 interval, late | worker Atomics.wait late | worker setTimeout late | worker channel hop | hop worker → page (after Atomics) | page setTimeout late |');
console.log('|---|---|---|---|---|---|---|---|');
const t = (s) => (s?.error ? `error: ${s.error}` : s ? `${f(s.p50)} / ${f(s.p99)} / ${f(s.max)}` : '–');
for (const [name, r] of Object.entries(results)) {
  for (const mode of ['idle', 'drawing']) {
    const m = r[mode];
    console.log(`| ${name} | ${mode} | ${f(m.frames.p99)}, ${m.frames.late} of ${m.frames.n} | ${t(m.atomics.sleep ?? m.atomics)} | ${t(m.timers.sleep ?? m.timers)} | ${t(m.channel.sleep ?? m.channel)} | ${t(m.atomics.hop ?? m.atomics)} | ${t(m.main)} |`);
  }
}
for (const [name, r] of Object.entries(results)) console.log(`${name}: global SharedArrayBuffer ${r.sab_global ? 'present' : 'absent'}, crossOriginIsolated ${r.isolated}`);
mkdirSync(ARTIFACTS, { recursive: true });
writeFileSync(path.join(ARTIFACTS, 'clock_paths.json'), JSON.stringify(results, null, 2));
