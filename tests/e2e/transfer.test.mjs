// How the app travels from `latency-lab serve`: the precompressed copy the
// request accepts (Brotli, else gzip, else the file itself, byte for byte),
// `Vary: Accept-Encoding`, content-hashed files immutable for a year and
// the rest revalidated, the security headers on every variant.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { DIST, startServer } from './lib/lab.mjs';

/** GET `url` with `headers`, without decoding: status, headers and raw body. */
function get(url, headers = {}) {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        const parts = [];
        res.on('data', (d) => parts.push(d));
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(parts) }));
      })
      .on('error', reject);
  });
}

describe('compressed, cacheable transfer', () => {
  let server;
  before(async () => {
    server = await startServer();
  });
  after(() => server?.stop());

  const wasm = readdirSync(DIST).find((f) => /^latency-lab-app-[0-9a-f]{12,}_bg\.wasm$/.test(f));

  test('the app wasm comes as the Brotli copy, the gzip copy or itself, as accepted', async () => {
    assert.ok(wasm, 'a content-hashed app wasm in dist/');
    const file = path.join(DIST, wasm);
    const url = `${server.url}${wasm}`;
    const br = await get(url, { 'accept-encoding': 'gzip, deflate, br' });
    assert.equal(br.status, 200);
    assert.equal(br.headers['content-encoding'], 'br');
    assert.deepEqual(br.body, readFileSync(`${file}.br`), 'the bytes of the .br file');
    assert.match(br.headers.vary ?? '', /accept-encoding/i);
    assert.equal(br.headers['content-type'], 'application/wasm');
    assert.equal(br.headers['cache-control'], 'public, max-age=31536000, immutable');

    const gz = await get(url, { 'accept-encoding': 'gzip' });
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.deepEqual(gz.body, readFileSync(`${file}.gz`));

    const plain = await get(url);
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.deepEqual(plain.body, readFileSync(file), 'identity: the file itself');
    assert.ok(br.body.length < gz.body.length && gz.body.length < plain.body.length / 2,
      `br ${br.body.length} < gzip ${gz.body.length} < raw ${plain.body.length} / 2`);
    for (const r of [br, gz, plain]) {
      assert.equal(r.headers['cross-origin-embedder-policy'], 'require-corp');
      assert.equal(r.headers['cross-origin-opener-policy'], 'same-origin');
      assert.equal(r.headers['x-content-type-options'], 'nosniff');
      assert.match(r.headers['content-security-policy'] ?? '', /default-src 'self'/);
    }
  });

  test('the on-demand modules carry content-hashed names, listed in the page, immutable', async () => {
    const page = (await get(server.url)).body.toString();
    const listed = page.match(/<meta name="latency-lab-modules" content="([^"]+)">/);
    assert.ok(listed, 'index.html lists the modules');
    const stems = listed[1].split(' ');
    assert.deepEqual(stems.map((s) => s.replace(/-[0-9a-f]{16}$/, '')), ['study_module', 'runs_module']);
    for (const stem of stems) {
      for (const file of [`${stem}.js`, `${stem}_bg.wasm`]) {
        const r = await get(`${server.url}${file}`, { 'accept-encoding': 'br' });
        assert.equal(r.status, 200, file);
        assert.equal(r.headers['cache-control'], 'public, max-age=31536000, immutable', file);
      }
    }
    const plain = await get(`${server.url}study_module.js`);
    assert.equal(plain.status, 404, 'the plain name is gone');
  });

  test('the page and files without a content hash are revalidated', async () => {
    for (const p of ['', 'index.html', 'public/replay-clock.js', 'import_worker.js', 'no/such/view']) {
      const r = await get(`${server.url}${p}`, { 'accept-encoding': 'br' });
      assert.equal(r.status, 200, p);
      assert.equal(r.headers['cache-control'], 'no-cache', p);
      assert.equal(r.headers['content-encoding'], 'br', `${p} is sent compressed`);
    }
    // A file the build does not hold is 404, never the page under its name
    // (a cached page would come back as "not modified" once the file is there).
    const missing = await get(`${server.url}no-such-module_bg.wasm`);
    assert.equal(missing.status, 404);
    assert.doesNotMatch(missing.body.toString(), /<title>/);
    const api = await get(`${server.url}healthz`);
    assert.equal(api.headers['cache-control'], undefined, 'API answers are not app files');
  });
});
