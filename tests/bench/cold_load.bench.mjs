// Cold loads on an emulated network: time from navigation to what a
// visitor waits for, in headless Chromium with the cache disabled
// (`Network.setCacheDisabled`) and the network shaped by
// `Network.emulateNetworkConditions`, served by `latency-lab serve`:
//   - landing: the landing replay's first text on screen (pane 0);
//   - participant: a study link's consent screen;
//   - study view: `#study` with the designer shown (its module loaded cold);
//   - library view: `#library` shown (the runs module loaded cold);
//   - study and library views, prefetched: the landing page first, its
//     replay played and the on-demand modules prefetched in idle time, then
//     the view's tab, timed from the click until the view is shown.
// Each twice, side by side in one run: "uncompressed" serves a copy of
// dist/ without the precompressed files (the transfer before issue 31),
// "compressed" serves dist/ as built (Brotli to Chromium).
// Run: node tests/bench/cold_load.bench.mjs   (RUNS=5 by default; ONLY=regex picks targets; part of ./lab bench)
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DIST, ROOT, launchBrowser, startServer } from '../e2e/lib/lab.mjs';

const RUNS = Number(process.env.RUNS ?? 5);
const LINKS = JSON.parse(readFileSync(path.join(ROOT, 'tests/fixtures/share-links.json'), 'utf8'));
const NETWORKS = [
  { name: 'loopback', conditions: null },
  { name: 'fast 4G (9 Mbps, 100 ms RTT)', conditions: { latency: 100, down: 9e6, up: 9e6 } },
  { name: 'slow 4G (1.6 Mbps, 150 ms RTT)', conditions: { latency: 150, down: 1.6e6, up: 0.75e6 } },
];
const TARGETS = [
  { name: 'landing replay, first text', hash: '', selector: '[data-testid=pane-0-output]', text: true },
  { name: 'participant link, consent', hash: LINKS.study.fragment, selector: '[data-testid=participant-consent]' },
  { name: 'study view, designer', hash: '#study', selector: '[data-testid=study-run]' },
  { name: 'library view (runs module)', hash: '#library', selector: '[data-testid=library-view]' },
  { name: 'study view after prefetch, from the click', hash: '', selector: '[data-testid=study-run]', prefetched: { wasm: 'study_module(-[0-9a-f]+)?_bg\\.wasm', tab: 'tab-study' } },
  { name: 'library view after prefetch, from the click', hash: '', selector: '[data-testid=library-view]', prefetched: { wasm: 'runs_module(-[0-9a-f]+)?_bg\\.wasm', tab: 'tab-library' } },
];

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** dist/ without its .br and .gz copies. */
function uncompressedCopy() {
  const dir = mkdtempSync(path.join(tmpdir(), 'lab-dist-plain-'));
  cpSync(DIST, dir, { recursive: true, filter: (src) => !/\.(br|gz)$/.test(src) });
  return dir;
}

function bytesOf(dir) {
  let n = 0;
  for (const f of readdirSync(dir, { recursive: true })) {
    const p = path.join(dir, f);
    if (statSync(p).isFile() && /latency-lab-app-.*_bg\.wasm$/.test(f)) n += statSync(p).size;
  }
  return n;
}

async function load(browser, url, target, conditions) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  // A new context starts with an empty cache; it stays off for the cold
  // loads, on for the prefetched one (what was prefetched is in it).
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: !target.prefetched });
  if (conditions) {
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: conditions.latency,
      downloadThroughput: conditions.down / 8,
      uploadThroughput: conditions.up / 8,
    });
  }
  let bytes = 0;
  cdp.on('Network.loadingFinished', (e) => (bytes += e.encodedDataLength));
  await page.goto(`${url}${target.hash}`, { waitUntil: 'commit', timeout: 120_000 });
  let from = 0;
  if (target.prefetched) {
    // The landing replay plays, then the modules come in idle time.
    await page.waitForFunction(
      (wasm) => performance.getEntriesByType('resource').some((e) => new RegExp(wasm).test(e.name) && e.responseEnd > 0),
      target.prefetched.wasm,
      { timeout: 120_000, polling: 250 },
    );
    from = await page.evaluate(() => performance.now());
    await page.evaluate((tab) => document.querySelector(`[data-testid=${tab}]`).click(), target.prefetched.tab);
  }
  // The page's clock starts at navigation: the moment it is done, read there.
  const done = await page.waitForFunction(
    ([selector, text]) => {
      const el = document.querySelector(selector);
      return !!el && (!text || el.textContent.trim().length > 0) && performance.now();
    },
    [target.selector, !!target.text],
    { timeout: 120_000, polling: 'raf' },
  );
  const ms = (await done.jsonValue()) - from;
  await context.close();
  return { ms, bytes };
}

const plainDir = uncompressedCopy();
const servers = {
  uncompressed: await startServer([], { dist: plainDir }),
  compressed: await startServer(),
};
const browser = await launchBrowser();
const rows = [];
try {
  const only = process.env.ONLY ? new RegExp(process.env.ONLY) : null;
  for (const net of NETWORKS) {
    for (const target of TARGETS.filter((t) => !only || only.test(t.name))) {
      const cell = {};
      for (const [kind, server] of Object.entries(servers)) cell[kind] = [];
      // Alternate the two servers run by run, so drift hits both alike.
      for (let i = 0; i < RUNS; i++) {
        for (const [kind, server] of Object.entries(servers)) {
          cell[kind].push(await load(browser, server.url, target, net.conditions));
        }
      }
      rows.push({ net: net.name, target: target.name, cell });
    }
  }
} finally {
  await browser.close();
  for (const s of Object.values(servers)) s.stop();
  rmSync(plainDir, { recursive: true, force: true });
}

console.log(`\nCold loads, cache disabled, median of ${RUNS} (range), time from navigation (s); bytes over the wire (kB)\n`);
console.log('| network | until | uncompressed | compressed | transferred: uncompressed → compressed |');
console.log('|---|---|---:|---:|---:|');
const s = (xs) => `${(median(xs) / 1000).toFixed(2)} (${(Math.min(...xs) / 1000).toFixed(2)}–${(Math.max(...xs) / 1000).toFixed(2)})`;
for (const r of rows) {
  const u = r.cell.uncompressed;
  const c = r.cell.compressed;
  const kb = (xs) => (median(xs.map((x) => x.bytes)) / 1000).toFixed(0);
  console.log(`| ${r.net} | ${r.target} | ${s(u.map((x) => x.ms))} | ${s(c.map((x) => x.ms))} | ${kb(u)} → ${kb(c)} |`);
}
console.log(`\n(app wasm on disk: ${bytesOf(DIST)} B)`);
