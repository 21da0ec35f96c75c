// Import benchmark: a 10,000-request vLLM detailed result (1,000 tokens
// each, ~10 M ITL values, 216 MB) chosen in the Import view, timed from the
// file being handed to the page until its summary is on screen, with the
// page's longest frame gap meanwhile (does the UI stay responsive?), plus
// the native `latency-lab analyze` time of the same file.
// Run: ./lab bench   (prints a Markdown table)
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { LAB_BIN, ROOT, launchBrowser, openPage, startServer } from '../e2e/lib/lab.mjs';

const CACHE = process.env.LATENCY_LAB_CACHE ?? path.join(homedir(), '.cache/latency-lab');
const FILE = path.join(CACHE, 'bench/vllm_bench_serve_10k.json');
const RUNS = 3;

if (!existsSync(FILE)) {
  mkdirSync(path.dirname(FILE), { recursive: true });
  console.log(`generating ${FILE} (once)…`);
  execFileSync('python3', [path.join(ROOT, 'tests/fixtures/import/gen_vllm.py'), '--large', FILE], { stdio: 'inherit' });
}
const bytes = statSync(FILE).size;

const server = await startServer();
const browser = await launchBrowser();
const rows = [];
try {
  for (let run = 0; run < RUNS; run++) {
    const { page, context, problems } = await openPage(browser, `${server.url}#import`);
    // Longest gap between animation frames while the import runs.
    await page.evaluate(() => {
      window.__gaps = { last: performance.now(), max: 0, frames: 0, on: true };
      const tick = (t) => {
        const g = window.__gaps;
        g.max = Math.max(g.max, t - g.last);
        g.last = t;
        g.frames++;
        if (g.on) requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    });
    const t0 = Date.now();
    await page.getByTestId('import-input').setInputFiles(FILE);
    await page.getByTestId('import-run').waitFor({ timeout: 120_000 });
    const wall = Date.now() - t0;
    const gaps = await page.evaluate(() => {
      window.__gaps.on = false;
      return window.__gaps;
    });
    const status = await page.getByTestId('import-file').first().innerText();
    const worker = Number(status.match(/in ([\d.]+) s/)?.[1] ?? NaN) * 1000;
    const p99 = await page.getByTestId('import-itl-p99').innerText();
    if (problems.length) throw new Error(problems.join('\n'));
    rows.push({ wall, worker, maxGap: gaps.max, frames: gaps.frames, p99 });
    await context.close();
  }
} finally {
  await browser.close();
  server.stop();
}

const t = Date.now();
execFileSync(LAB_BIN, ['analyze', FILE, '--json'], { maxBuffer: 1 << 26 });
const native = Date.now() - t;

const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`\nImport of ${(bytes / 1e6).toFixed(0)} MB vLLM result (10,000 requests, 9,990,000 ITL values), ${RUNS} runs, median:\n`);
console.log('| measure | value |\n|---|---|');
console.log(`| file chosen → summary on screen (browser) | ${(med(rows.map((r) => r.wall)) / 1000).toFixed(2)} s |`);
console.log(`| of which in the import worker (read, parse, metrics, digest) | ${(med(rows.map((r) => r.worker)) / 1000).toFixed(2)} s |`);
console.log(`| longest gap between page frames meanwhile | ${med(rows.map((r) => r.maxGap)).toFixed(0)} ms |`);
console.log(`| native \`latency-lab analyze --json\` (same file) | ${(native / 1000).toFixed(2)} s |`);
console.log(`\nAll runs: ${rows.map((r) => `${(r.wall / 1000).toFixed(2)} s / gap ${r.maxGap.toFixed(0)} ms`).join('; ')}; ITL P99 shown ${rows[0].p99} ms.`);
