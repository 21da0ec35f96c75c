// Start-up of two builds side by side, interleaved in one browser session
// (a noisy machine drifts between runs; interleaving shares the drift):
// cold loads (new context, empty cache) of build A then build B, RUNS
// times. Prints medians of: wasm instantiated, mount (instantiated → the
// header in the DOM), and the landing story's first replay token on screen.
// Run: A_DIST=/path/to/old/dist B_DIST=dist node tests/bench/startup_ab.bench.mjs
// (each dist is served by its own `latency-lab serve`; LAB_BIN picks the server).
import { launchBrowser, startServer } from '../e2e/lib/lab.mjs';

const RUNS = Number(process.env.RUNS ?? 10);
const builds = { A: process.env.A_DIST, B: process.env.B_DIST ?? 'dist' };
if (!builds.A) {
  console.error('A_DIST (the build to compare against) is required');
  process.exit(2);
}

const probe = () => {
  window.__marks = {};
  const instantiate = WebAssembly.instantiateStreaming;
  WebAssembly.instantiateStreaming = async (...args) => {
    const result = await instantiate(...args);
    window.__marks.instantiated = performance.now();
    return result;
  };
  new MutationObserver(() => {
    if (!window.__marks.header && document.querySelector('[data-testid=app-header]')) window.__marks.header = performance.now();
    const out = document.querySelector('[data-testid=pane-0-output]');
    if (!window.__marks.token && out && out.textContent.trim().length > 0) window.__marks.token = performance.now();
  }).observe(document, { childList: true, subtree: true, characterData: true });
};

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const servers = {};
for (const [name, dist] of Object.entries(builds)) {
  process.env.LAB_DIST = dist;
  servers[name] = await startServer();
}
const browser = await launchBrowser();
const marks = { A: [], B: [] };
try {
  for (let i = 0; i < RUNS; i++) {
    for (const name of ['A', 'B']) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      await page.addInitScript(probe);
      await page.goto(servers[name].url);
      await page.waitForFunction(() => window.__marks?.token && window.__marks?.instantiated, null, { timeout: 30_000 });
      marks[name].push(await page.evaluate(() => window.__marks));
      await context.close();
    }
  }
} finally {
  await browser.close();
  for (const s of Object.values(servers)) s.stop();
}
console.log(`\nCold start, interleaved, median of ${RUNS} (ms since navigation start)\n`);
console.log('| build | wasm instantiated | mount (→ header) | first replay token | first replay token range |');
console.log('|---|---:|---:|---:|---|');
for (const name of ['A', 'B']) {
  const m = marks[name];
  const token = m.map((x) => x.token);
  console.log(
    `| ${name}: ${builds[name]} | ${median(m.map((x) => x.instantiated)).toFixed(0)} | ${median(m.map((x) => x.header - x.instantiated)).toFixed(0)} | ${median(token).toFixed(0)} | ${Math.min(...token).toFixed(0)}–${Math.max(...token).toFixed(0)} |`,
  );
}
