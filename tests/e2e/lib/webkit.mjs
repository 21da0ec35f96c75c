// WebKit, Safari's engine: Debian's WebKitGTK MiniBrowser, driven by
// WebKitWebDriver (package webkit2gtk-driver) over W3C WebDriver on an Xvfb
// display. The protocol is plain HTTP + JSON, so the adapter speaks it with
// `fetch` (a client library would add nothing the four commands used here
// need). A page offers `evaluate(fn, arg)` with the shape of playwright's and
// puppeteer's, so the DOM helpers of `dom.mjs` and the shared checks run on
// it unchanged.
//
// Classic WebDriver has no console events and no scripts that run before the
// page's own: console errors and uncaught exceptions are recorded from the
// moment the page has loaded (`problems()`), which is when the app starts
// its work.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, labSuite } from './lab.mjs';

export const WEBKIT_DRIVER = process.env.WEBKIT_DRIVER ?? '/usr/bin/WebKitWebDriver';
export const MINIBROWSER = process.env.MINIBROWSER ?? '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';
/** Tries of one script when the driver cannot parse its result. */
const EVAL_ATTEMPTS = 4;
/** How long the driver and the display get to start (ms). */
const START_MS = 20_000;
/**
 * How long opening a MiniBrowser window may take (ms). On a loaded machine
 * WebKitWebDriver has, rarely, never answered a new-session request (the
 * HTTP client gave up after 300 s); past this the driver and its browser are
 * restarted and the window is asked for again.
 */
const SESSION_MS = 30_000;
/** Tries at opening a window, each with a fresh driver after the first. */
const SESSION_ATTEMPTS = 3;

/** A free X display number (no socket in /tmp/.X11-unix). */
function freeDisplay() {
  for (let n = 90; n < 200; n++) {
    if (!existsSync(`/tmp/.X11-unix/X${n}`) && !existsSync(`/tmp/.X${n}-lock`)) return n;
  }
  throw new Error('no free X display between :90 and :199');
}

async function until(what, ok) {
  const deadline = Date.now() + START_MS;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`${what} did not start within ${START_MS} ms`);
    await sleep(50);
  }
}

/**
 * One WebDriver command; the value, or an Error naming the driver's error.
 * `timeoutMs` bounds the wait for an answer (none by default: a script may
 * rightly run long).
 */
async function command(base, method, path, body, timeoutMs) {
  const r = await fetch(`${base}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: timeoutMs ? AbortSignal.timeout(timeoutMs) : undefined,
  });
  const { value } = await r.json();
  if (value && typeof value === 'object' && value.error) throw new Error(`WebKitWebDriver ${path}: ${value.error}: ${value.message}`);
  return value;
}

/** Records console errors and uncaught exceptions once the page has loaded. */
const WATCH = () => {
  if (window.__labProblems) return;
  window.__labProblems = [];
  const error = console.error.bind(console);
  console.error = (...a) => {
    window.__labProblems.push(`console: ${a.map(String).join(' ')}`);
    error(...a);
  };
  addEventListener('error', (e) => window.__labProblems.push(`pageerror: ${e.message}`));
  addEventListener('unhandledrejection', (e) => window.__labProblems.push(`pageerror: ${e.reason}`));
};

/** One MiniBrowser window (its own session: its own storage). */
export class WebKitPage {
  constructor(base, id) {
    this.base = base;
    this.path = `/session/${id}`;
  }

  /**
   * `fn(arg)` in the page (awaited when it returns a promise); its JSON
   * result. Under load WebKitWebDriver now and then answers "Could not
   * parse script result" for a script that ran: each call has an id, its
   * result is kept in the page until the next call, and a retry returns the
   * kept result instead of running `fn` again (a click is not repeated).
   */
  async evaluate(fn, arg) {
    const id = `e${this.calls = (this.calls ?? 0) + 1}`;
    const script = `const [arg, id] = arguments; const done = arguments[arguments.length - 1];
      const store = (window.__labEval ??= {});
      for (const k of Object.keys(store)) if (k !== id && store[k] !== 'pending') delete store[k];
      const settle = (r) => { store[id] = r; done(r); };
      if (id in store) {
        const wait = () => (store[id] === 'pending' ? setTimeout(wait, 10) : done(store[id]));
        wait();
      } else {
        store[id] = 'pending';
        Promise.resolve().then(() => (${fn})(arg))
          .then((v) => settle({ ok: v === undefined ? null : v }), (e) => settle({ err: String((e && e.stack) || e) }));
      }`;
    let out;
    for (let attempt = 1; ; attempt++) {
      try {
        out = await command(this.base, 'POST', `${this.path}/execute/async`, { script, args: [arg ?? null, id] });
        break;
      } catch (e) {
        if (attempt >= EVAL_ATTEMPTS || !/Could not parse script result/.test(e.message)) throw e;
        await sleep(20);
      }
    }
    if (out && 'err' in out) throw new Error(`in WebKit: ${out.err}`);
    return out?.ok ?? null;
  }

  async goto(url) {
    await command(this.base, 'POST', `${this.path}/url`, { url });
    await this.evaluate(WATCH);
  }

  reload() {
    return command(this.base, 'POST', `${this.path}/refresh`, {}).then(() => this.evaluate(WATCH));
  }

  setViewport({ width, height }) {
    return command(this.base, 'POST', `${this.path}/window/rect`, { width, height });
  }

  /** Console errors and uncaught exceptions since the page loaded. */
  problems() {
    return this.evaluate(() => window.__labProblems ?? []);
  }

  /** Ends the session; a driver that does not answer is restarted by the next `newPage`. */
  close() {
    return command(this.base, 'DELETE', this.path, undefined, SESSION_MS).catch(() => {});
  }
}

/**
 * Starts WebKitWebDriver on display `:n` in its own process group (so that
 * killing the group also ends the MiniBrowser it launched); resolves once the
 * driver says it is ready.
 */
async function startDriver(n) {
  const port = await freePort();
  const proc = spawn(WEBKIT_DRIVER, [`--port=${port}`], { env: { ...process.env, DISPLAY: `:${n}` }, stdio: 'ignore', detached: true });
  const base = `http://127.0.0.1:${port}`;
  const stop = () => {
    try {
      process.kill(-proc.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  try {
    await until('WebKitWebDriver', async () => {
      try {
        return (await command(base, 'GET', '/status', undefined, 2_000)).ready === true;
      } catch {
        return false;
      }
    });
  } catch (e) {
    stop();
    throw e;
  }
  return { base, stop };
}

/** Starts Xvfb and WebKitWebDriver; `newPage()` opens a MiniBrowser window. */
export async function launchWebKit() {
  const n = freeDisplay();
  const xvfb = spawn('Xvfb', [`:${n}`, '-screen', '0', '1280x1024x24', '-nolisten', 'tcp'], { stdio: 'ignore' });
  await until('Xvfb', () => existsSync(`/tmp/.X11-unix/X${n}`));
  let driver = await startDriver(n);
  const pages = new Set();
  let version = null;
  const caps = { capabilities: { alwaysMatch: { 'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation'] } } } };
  return {
    async newPage() {
      // The driver runs one session at a time: a window a failed test left
      // open is closed first, so the next test gets its own.
      for (const p of pages) await p.close();
      pages.clear();
      for (let attempt = 1; ; attempt++) {
        try {
          const { sessionId, capabilities } = await command(driver.base, 'POST', '/session', caps, SESSION_MS);
          version = capabilities?.browserVersion ?? version;
          const page = new WebKitPage(driver.base, sessionId);
          pages.add(page);
          return page;
        } catch (e) {
          if (attempt >= SESSION_ATTEMPTS) throw new Error(`WebKitWebDriver opened no window in ${attempt} tries (${SESSION_MS} ms each): ${e.message}`);
          console.error(`# WebKitWebDriver opened no window (${e.message}); restarting it (try ${attempt + 1} of ${SESSION_ATTEMPTS})`);
          driver.stop();
          driver = await startDriver(n);
        }
      }
    },
    /** WebKitGTK's version, once a window was opened. */
    async version() {
      return version ? `WebKitGTK ${version}` : 'WebKitGTK';
    },
    async close() {
      for (const p of pages) await p.close();
      driver.stop();
      xvfb.kill('SIGTERM');
    },
  };
}

/** Opens `url` in a fresh MiniBrowser window and waits for the app. */
export async function openWebKitPage(browser, url, viewport = { width: 1280, height: 800 }) {
  const page = await browser.newPage();
  await page.setViewport(viewport);
  await page.goto(url);
  const deadline = Date.now() + 15_000;
  while (!(await page.evaluate(() => !!document.querySelector('[data-testid="app-header"]')))) {
    if (Date.now() > deadline) throw new Error('the app did not start in WebKit');
    await sleep(50);
  }
  return { page, context: page, problems: () => page.problems() };
}

/** The shared suites' adapter (`suites.mjs`): `{ page, close, problems }`. */
export async function webkitOpen(browser, url) {
  const { page } = await openWebKitPage(browser, url);
  return { page, close: () => page.close(), problems: () => page.problems() };
}

/** `labSuite` with WebKit: `lab.server` and `lab.browser` in the tests. */
export function webkitSuite(serverArgs = []) {
  return labSuite(serverArgs, launchWebKit);
}
