// On-demand modules, written once for every browser's adapter (`open(browser,
// url)` → `{ page, close, problems }`): what the first screen needs works
// with the on-demand modules missing from the server (proof they are not
// needed), a view whose module is missing says so in one sentence and
// Retry recovers once it is back, and the landing replay prefetches them.
//
// The server serves a copy of dist/ from which the on-demand modules' files
// (the Import/Analyze/Library views, the import worker, the study view) are
// moved aside and, for Retry, moved back (all, or one module's): every driver sees the same missing modules, without request
// interception.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DIST, ROOT, startServer } from './lab.mjs';
import { click, content, count, dropFiles, runLive, text, waitFor, waitText } from './dom.mjs';

/** The files of the on-demand modules (`ON_DEMAND` in `ui/app.rs`), with their compressed copies. */
const MODULE = /^(runs_module[^/]*|import_worker[^/]*|public\/import-worker\.js[^/]*|study_module[^/]*)$/;
/** The runs views' module alone. */
const RUNS = /^runs_module/;
const VLLM = path.join(ROOT, 'tests/fixtures/import/vllm_bench_serve.json');

/** A copy of dist/ whose import module can be taken away and given back. */
function movableDist() {
  const dir = mkdtempSync(path.join(tmpdir(), 'lab-modules-'));
  const dist = path.join(dir, 'dist');
  const aside = path.join(dir, 'aside');
  cpSync(DIST, dist, { recursive: true });
  mkdirSync(path.join(aside, 'public'), { recursive: true });
  const files = readdirSync(dist, { recursive: true }).map((f) => f.split(path.sep).join('/')).filter((f) => MODULE.test(f));
  assert.ok(files.length >= 7, `the on-demand modules' files in dist/: ${files}`);
  const move = (from, to, only = /./) => files.filter((f) => only.test(f)).forEach((f) => existsSync(path.join(from, f)) && renameSync(path.join(from, f), path.join(to, f)));
  return { dir, dist, remove: () => move(dist, aside), restore: (only) => move(aside, dist, only) };
}

export function onDemandSuite({ name, launch, open }) {
  describe(`on-demand modules (${name})`, () => {
    let server;
    let browser;
    let dist;
    before(async () => {
      dist = movableDist();
      dist.remove();
      server = await startServer([], { dist: dist.dist });
      browser = await launch();
    });
    after(async () => {
      await browser?.close();
      server?.stop();
      if (dist) rmSync(dist.dir, { recursive: true, force: true });
    });

    test('without the on-demand modules: the landing replay plays, Live streams, a published study\'s participant answers', async () => {
      const landing = await open(browser, server.url);
      await waitFor(landing.page, 'pane-0-result', 30_000);
      assert.ok((await content(landing.page, 'pane-0-output')).trim().length > 0, 'the landing replay showed text');
      await landing.close();

      const live = await open(browser, `${server.url}#live`);
      const status = await runLive(live.page, { model: 'profile:ttft=60,tpot=8,tokens=30', results: false });
      assert.match(status, /^Finished/);
      assert.match(await text(live.page, 'live-stats'), /TTFT/, 'the figures measured while it streamed');
      // The analysis below is the runs module's: one sentence says it is missing.
      assert.match(await waitText(live.page, 'module-failed', /./, 15_000), /^The run's results could not be loaded \(.+\)\. Check the connection, then press Retry\./);
      // Only that module's load is refused (Firefox names it; Chromium logs
      // an unnamed 404).
      assert.deepEqual((await live.problems()).filter((p) => !p.includes('runs_module') && !/Failed to load resource: .* 404/.test(p)), []);
      await live.close();

      const token = readFileSync(path.join(server.dir, 'data', 'researcher-token'), 'utf8').trim();
      const study = {
        schema_version: 1, id: `${name.toLowerCase()}-modules`, title: 'Modules', instructions: 'Watch, then answer.', consent: 'I agree.', text: 'chat',
        conditions: [40, 200].map((ttft, i) => ({ id: `c${i + 1}`, name: `c${i}`, source: { profile: `ttft=${ttft},tpot=5,jitter=constant,tokens=8` } })),
        questions: [{ kind: 'rating', id: 'responsive', prompt: 'How responsive?', points: 5, low: 'slow', high: 'fast' }],
        repetitions: 1, order: { kind: 'latin_square' },
      };
      const res = await fetch(`${server.url}api/studies`, { method: 'POST', headers: { Authorization: `Bearer ${token}` }, body: JSON.stringify(study) });
      assert.equal(res.status, 201);
      const { id } = await res.json();
      const p = await open(browser, `${server.url}s/${id}`);
      await waitFor(p.page, 'consent-accept', 15_000);
      const fetched = () => p.page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name).filter((n) => /import.worker|study_module|runs_module/.test(n)));
      assert.deepEqual(await fetched(), [], 'a participant link fetches no on-demand module before consent');
      await click(p.page, 'consent-accept');
      await click(p.page, 'participant-begin');
      await click(p.page, 'trial-play');
      await waitFor(p.page, 'question-rating', 15_000);
      await click(p.page, 'rate-3');
      await waitText(p.page, 'participant-progress', /^1 of 2 done/);
      await waitText(p.page, 'participant-server', /^\d+ answer\(s\) saved to the study server$/);
      assert.deepEqual(await fetched(), [], 'nor while answering');
      assert.deepEqual(await p.problems(), []);
      await p.close();
    });

    test('the Import view and then the import worker say so when missing; Retry loads each once it is back', async () => {
      const { page, close } = await open(browser, `${server.url}#import`);
      const said = await waitText(page, 'module-failed', /could not be loaded/, 15_000);
      assert.match(said, /^The Import view could not be loaded \(.+\)\. Check the connection, then press Retry\./);
      try {
        dist.restore(RUNS);
        await click(page, 'module-retry');
        await waitFor(page, 'import-view', 20_000);
        assert.equal(await count(page, '[data-testid=module-failed]'), 0, 'the sentence goes');
        await dropFiles(page, '[data-testid=import-view] .dropzone', [{ name: 'vllm_bench_serve.json', text: readFileSync(VLLM, 'utf8') }]);
        const unloaded = await waitText(page, 'import-unloaded', /could not be loaded/, 15_000);
        assert.match(unloaded, /^The import module could not be loaded \(.+\)\. Check the connection, then press Retry\./);
        assert.equal(await count(page, '[data-testid=import-run]'), 0);
        dist.restore();
        await click(page, 'import-retry');
        await waitFor(page, 'import-run', 20_000);
        assert.equal(await count(page, '[data-testid=import-unloaded]'), 0, 'the sentence goes');
        assert.match(await text(page, 'import-run-requests'), /40 requests/);
      } finally {
        dist.remove();
      }
      await close();
    });

    test('the study view says so when its module is missing; Retry opens it once it is back', async () => {
      const { page, close } = await open(browser, `${server.url}#study`);
      const said = await waitText(page, 'module-failed', /could not be loaded/, 15_000);
      assert.match(said, /^The study view could not be loaded \(.+\)\. Check the connection, then press Retry\./);
      dist.restore();
      try {
        await click(page, 'module-retry');
        await waitFor(page, 'study-run', 20_000);
        assert.equal(await count(page, '[data-testid=module-failed]'), 0, 'the sentence goes');
      } finally {
        dist.remove();
      }
      await close();
    });

    test('once the landing replay has played, the on-demand modules are prefetched in idle time; every view then opens', async () => {
      dist.restore();
      try {
        const { page, close } = await open(browser, server.url);
        await waitFor(page, 'pane-0-result', 30_000);
        // Not while it plays: only after its last pane ends.
        const deadline = Date.now() + 30_000;
        while ((await count(page, 'link[rel=prefetch][data-prefetch]')) < 7 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
        const hrefs = await page.evaluate(() => [...document.querySelectorAll('link[rel=prefetch][data-prefetch]')].map((l) => new URL(l.href).pathname));
        // The views' modules under their content-hashed names (cached for a year).
        const hashed = hrefs.filter((h) => /^\/(runs|study)_module-[0-9a-f]{16}(_bg\.wasm|\.js)$/.test(h));
        assert.equal(hashed.length, 4, `hashed module names: ${hrefs}`);
        assert.deepEqual(hrefs.map((h) => h.replace(/-[0-9a-f]{16}/, '')).sort(), [
          '/import_worker.js', '/import_worker_bg.wasm', '/public/import-worker.js',
          '/runs_module.js', '/runs_module_bg.wasm', '/study_module.js', '/study_module_bg.wasm',
        ]);
        // Each lazily loaded view opens; the three of the runs module share
        // one instance (the library the Library view lists is the one an
        // import is saved to).
        for (const [tab, view] of [['import', 'import-view'], ['analyze', 'analyze-view'], ['library', 'library-view'], ['study', 'study-run']]) {
          await page.evaluate((h) => { location.hash = h; }, tab);
          await waitFor(page, view, 20_000);
        }
        assert.equal(await count(page, '[data-testid=module-failed]'), 0);
        await close();
      } finally {
        dist.remove();
      }
    });
  });
}
