// A 1,000,000-row workload read in the browser's import worker: the
// Mooncake file of tests/fixtures/workload/make_workloads.py --large
// (148 MB) and its first 100,000 and 300,000 rows, chosen in the Import
// view of headless Chromium; the worker's own time and its wasm memory
// when done (the figures the file's status line shows), 3 loads each in
// fresh pages. The worker reads 4 MiB slices; what grows is the summary.
import { statSync } from 'node:fs';
import { launchBrowser, openPage, startServer } from '../e2e/lib/lab.mjs';
import { largeWorkloadFiles } from './lib/large_workload.mjs';

const files = largeWorkloadFiles();

const server = await startServer();
const browser = await launchBrowser();
/** One load: [worker s, worker memory MB, requests shown]. */
async function load(file) {
  const { page, context } = await openPage(browser, `${server.url}#import`);
  await page.locator('[data-testid=import-view] input[type=file]').setInputFiles(file);
  const status = page.locator('[data-testid=import-file] .file-status');
  await status.filter({ hasText: /workload of/ }).waitFor({ timeout: 300_000 });
  const text = await status.innerText();
  await context.close();
  const m = /workload of (\d+) requests · read in ([\d.]+) s, worker memory ([\d.]+) (kB|MB)/.exec(text);
  if (!m) throw new Error(`unexpected status: ${text}`);
  return [Number(m[2]), Number(m[3]) / (m[4] === 'kB' ? 1000 : 1), Number(m[1])];
}
try {
  console.log('| rows | file MB | worker s (3 loads) | worker memory MB (3 loads) |');
  console.log('|---:|---:|---|---|');
  for (const [n, f] of files) {
    const runs = [await load(f), await load(f), await load(f)];
    for (const r of runs) if (r[2] !== n) throw new Error(`${n} rows: the card says ${r[2]}`);
    const mb = (statSync(f).size / 1e6).toFixed(1);
    console.log(`| ${n.toLocaleString('en')} | ${mb} | ${runs.map((r) => r[0].toFixed(2)).join(', ')} | ${runs.map((r) => r[1].toFixed(1)).join(', ')} |`);
  }
} finally {
  await browser.close();
  server.stop();
}
