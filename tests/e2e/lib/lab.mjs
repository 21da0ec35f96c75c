// Shared helpers of the end-to-end suite: start `latency-lab serve` on a free
// port and launch Debian's Chromium through playwright-core (never a
// downloaded browser).
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { chromium } from 'playwright-core';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const LAB_BIN = process.env.LAB_BIN ?? path.join(ROOT, 'target/release/latency-lab');
export const DIST = process.env.LAB_DIST ?? path.join(ROOT, 'dist');
export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

/**
 * Bounds of the suite's timed assertions (ms). The suite runs on shared
 * 2-core machines beside other work, and is checked with two CPU-bound
 * processes running next to it (docs/src/contributing/testing.md), so a
 * timed assertion only catches what is broken: an event early, or stamped
 * at the wrong moment, a schedule ignored. How precise the lab is gets
 * measured by `./lab bench` and recorded in BENCHMARKS.md, never asserted.
 * - `LATE_MS`: how late one event (a release, a paint, an arrival) may be.
 * - `MEDIAN_LATE_MS`: how far the median of several may be off.
 */
export const LATE_MS = 250;
export const MEDIAN_LATE_MS = 50;

/** Flags for Chromium on a closed network, run as root. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Starts `latency-lab serve` (on a free port unless `--port` is given); resolves with its URL and a stop(). */
export async function startServer(extraArgs = [], { dist = DIST } = {}) {
  if (!existsSync(LAB_BIN)) throw new Error(`${LAB_BIN} is missing: run ./lab test (it builds it)`);
  const dir = mkdtempSync(path.join(tmpdir(), 'lab-e2e-'));
  const urlFile = path.join(dir, 'url');
  // Each server keeps its study database and researcher token in its own
  // temporary data directory unless the test names one.
  const data = extraArgs.includes('--data') ? [] : ['--data', path.join(dir, 'data')];
  const port = extraArgs.includes('--port') ? [] : ['--port', '0'];
  const proc = spawn(LAB_BIN, ['serve', ...port, '--dist', dist, '--url-file', urlFile, ...data, ...extraArgs], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  proc.stdout.on('data', (d) => (output += d));
  proc.stderr.on('data', (d) => (output += d));
  for (let i = 0; i < 200; i++) {
    if (existsSync(urlFile)) {
      const url = readFileSync(urlFile, 'utf8').trim();
      if (url) return { url, proc, dir, stop: () => proc.kill('SIGINT'), output: () => output };
    }
    if (proc.exitCode !== null) break;
    await sleep(50);
  }
  proc.kill('SIGKILL');
  throw new Error(`latency-lab serve did not start:\n${output}`);
}

/**
 * A `latency-lab serve` and a headless browser (Chromium unless `launch`
 * says otherwise) for one suite: started in its `before`, stopped in its
 * `after`. Read `lab.server` and `lab.browser` inside the tests.
 */
export function labSuite(serverArgs = [], launch = launchBrowser) {
  const lab = { server: null, browser: null };
  before(async () => {
    lab.server = await startServer(serverArgs);
    lab.browser = await launch();
  });
  after(async () => {
    await lab.browser?.close();
    lab.server?.stop();
  });
  return lab;
}

/** Launches headless Chromium. */
export function launchBrowser() {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}

/** Opens a page that records console errors and uncaught exceptions
 *  (`options.initScript`: a script run in the page before its own). */
export async function openPage(browser, url, viewport = { width: 1280, height: 800 }, options = {}) {
  const { initScript, ...contextOptions } = options;
  const context = await browser.newContext({ viewport, ...contextOptions });
  if (initScript) await context.addInitScript(initScript);
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  await page.goto(url);
  await page.getByTestId('app-header').waitFor();
  return { page, context, problems };
}

/** A suite adapter's `open` for Chromium: `{ page, close, problems }`
 *  (firefox.mjs's `firefoxOpen` is Firefox's). */
export async function chromiumOpen(browser, url) {
  const { page, context, problems } = await openPage(browser, url);
  return { page, close: () => context.close(), problems: async () => problems };
}

/** Opens any page (not the app: no wait for its header) in a fresh
 *  Chromium context: `{ page, close }` (firefox.mjs's `firefoxPlain`). */
export async function chromiumPlain(browser, url) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.goto(url);
  return { page, close: () => context.close() };
}

/** Runs `latency-lab analyze --json` and parses the result. */
export function analyzeJson(file, extra = []) {
  return JSON.parse(execFileSync(LAB_BIN, ['analyze', file, '--json', ...extra], { encoding: 'utf8' }));
}

/** Waits until the locator's text matches `pattern`; returns the text. */
export async function waitForText(locator, pattern, timeout = 10_000) {
  const deadline = Date.now() + timeout;
  let last = '';
  while (Date.now() < deadline) {
    last = (await locator.count()) ? await locator.first().innerText() : '';
    if (pattern.test(last)) return last;
    await sleep(25);
  }
  throw new Error(`timed out waiting for ${pattern}; last text: ${JSON.stringify(last)}`);
}

/** Fills a form field and commits it (change event). */
export async function setField(page, testId, value) {
  const el = page.getByTestId(testId);
  await el.fill(String(value));
  await el.blur();
}

/**
 * Runs a live request from the Live view and waits for the results.
 * `mode` is single | repeat | concurrent | sweep.
 */
export async function runLive(page, { model, mode = 'single', n, rounds, baseUrl, maxTokens, timeout = 60_000 }) {
  if (baseUrl) await setField(page, 'base-url', baseUrl);
  if (model) await setField(page, 'model', model);
  if (maxTokens) await setField(page, 'max-tokens', maxTokens);
  await page.getByTestId('run-mode').selectOption(mode);
  if (n) await setField(page, 'run-n', n);
  if (rounds) await setField(page, 'run-rounds', rounds);
  await page.getByTestId('start').click();
  await waitForText(page.getByTestId('run-status'), /^(Finished|Stopped)/, timeout);
}

/** Downloads the last run's trace and parses it. */
export async function downloadTrace(page, savePath) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-trace').first().click()]);
  const path = savePath ?? (await download.path());
  if (savePath) await download.saveAs(savePath);
  return { trace: JSON.parse(readFileSync(path, 'utf8')), path, name: download.suggestedFilename() };
}

/** Directory for artifacts the suite writes (screenshots, measurements). */
export const ARTIFACTS = path.join(ROOT, 'tests/e2e/artifacts');

/**
 * Asserts that a number shown with `digits` decimals is `value` rounded:
 * within half a display unit (Rust and JavaScript round exact ties
 * differently, so strings are not compared).
 */
export function assertShown(shown, value, digits = 2, what = '') {
  const tolerance = 0.5 * 10 ** -digits + 1e-9;
  if (!(Math.abs(Number(shown) - value) <= tolerance)) {
    throw new Error(`${what}: shown ${shown}, expected ${value} to ${digits} decimals`);
  }
}
