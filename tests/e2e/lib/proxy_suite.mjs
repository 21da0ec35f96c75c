// A study for remote participants, through Debian's nginx terminating TLS
// (a certificate made by the test) in front of `latency-lab serve`, written
// once for every browser's adapter (`open(browser, url)` → `{ page, close,
// problems }`). nginx runs README's own configuration,
// deploy/nginx/latency-lab.conf, with only the names, ports and certificate
// paths replaced; serve runs as README says (`--public-url`,
// `--trusted-proxy 127.0.0.1`).
//
// Checked: the researcher's page (on this machine's own address, as over an
// SSH tunnel) shows participant links on the public URL; a participant
// completes a published study over HTTPS and HTTP/2, cross-origin isolated,
// every answer reaching the server; a write from a foreign Origin is refused
// with 403 through the proxy too; the replay endpoint streams through it
// unbuffered; a body over the server's limit is refused by nginx; plain
// HTTP is sent to HTTPS.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ROOT, freePort, startServer } from './lab.mjs';
import { click, setValue, waitFor, waitText } from './dom.mjs';
import { answerTrial } from './participant_suite.mjs';

export const NGINX = process.env.NGINX ?? '/usr/sbin/nginx';
const SITE = path.join(ROOT, 'deploy/nginx/latency-lab.conf');

/** Replaces `from` in `text`, which must hold it (the file's shape is what README documents). */
function swap(text, from, to) {
  assert.ok(text.includes(from), `deploy/nginx/latency-lab.conf no longer holds ${JSON.stringify(from)}`);
  return text.split(from).join(to);
}

/** README's site configuration for this machine: names, ports, certificate. */
export function siteConfig({ tls, plain, upstream, cert, key }) {
  let c = readFileSync(SITE, 'utf8');
  c = swap(c, 'listen 443 ssl http2;', `listen 127.0.0.1:${tls} ssl http2;`);
  c = swap(c, 'listen [::]:443 ssl http2;', '');
  c = swap(c, 'listen 80;', `listen 127.0.0.1:${plain};`);
  c = swap(c, 'listen [::]:80;', '');
  c = swap(c, '/etc/letsencrypt/live/lab.example.org/fullchain.pem', cert);
  c = swap(c, '/etc/letsencrypt/live/lab.example.org/privkey.pem', key);
  c = swap(c, 'lab.example.org', 'localhost');
  c = swap(c, 'http://127.0.0.1:8377', `http://${upstream}`);
  return c;
}

/** Starts nginx with the site in a temporary prefix, TLS on port `tls`
 *  (a free one if not given); resolves with its ports and stop(). */
export async function startNginx(upstream, tls) {
  const dir = mkdtempSync(path.join(tmpdir(), 'lab-nginx-'));
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost',
    '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', key, '-out', cert], { stdio: 'ignore' });
  tls ??= await freePort();
  const plain = await freePort();
  const root = process.getuid?.() === 0;
  const main = `${root ? 'user root;\n' : ''}worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 512; }
http {
  access_log ${dir}/access.log;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
${siteConfig({ tls, plain, upstream, cert, key })}
}
`;
  writeFileSync(path.join(dir, 'nginx.conf'), main);
  const proc = spawn(NGINX, ['-p', dir, '-e', path.join(dir, 'error.log'), '-c', path.join(dir, 'nginx.conf'), '-g', 'daemon off;'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  proc.stdout.on('data', (d) => (output += d));
  proc.stderr.on('data', (d) => (output += d));
  for (let i = 0; ; i++) {
    const up = await new Promise((resolve) => {
      const s = net.connect(tls, '127.0.0.1', () => { s.end(); resolve(true); });
      s.on('error', () => resolve(false));
    });
    if (up) break;
    if (proc.exitCode !== null || i > 100) {
      proc.kill('SIGKILL');
      const log = existsSync(path.join(dir, 'error.log')) ? readFileSync(path.join(dir, 'error.log'), 'utf8') : '';
      throw new Error(`nginx did not start:\n${output}\n${log}`);
    }
    await sleep(50);
  }
  return { tls, plain, dir, origin: `https://localhost:${tls}`, stop: () => proc.kill('SIGQUIT') };
}

/** One request over HTTPS (the test's certificate is not checked), or plain HTTP. */
export function call(url, { method = 'GET', headers = {}, body } = {}) {
  const u = new URL(url);
  const lib = u.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = lib.request(u, { method, headers, rejectUnauthorized: false }, (res) => {
      const chunks = [];
      const times = [];
      const t0 = performance.now();
      res.on('data', (c) => { chunks.push(c); times.push(performance.now() - t0); });
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'), times }));
    });
    req.on('error', reject);
    if (body) req.write(body);
    req.end();
  });
}

const STUDY = {
  schema_version: 1, id: 'remote', title: 'Remote study', instructions: 'Watch, then answer.', consent: 'I agree.', text: 'chat',
  conditions: [40, 160, 320].map((ttft, i) => ({ id: `c${i + 1}`, name: `secret-${i}`, source: { profile: `ttft=${ttft},tpot=5,jitter=constant,tokens=8` } })),
  questions: [{ kind: 'rating', id: 'responsive', prompt: 'How responsive?', points: 5, low: 'slow', high: 'fast' }],
  repetitions: 1, order: { kind: 'latin_square' },
};

export function proxySuite({ name, launch, open }) {
  describe(`a study for remote participants through nginx with TLS (${name})`, () => {
    let nginx;
    let server;
    let browser;
    let auth;
    before(async () => {
      // serve's public URL names nginx's port, so that port is chosen first.
      const tls = await freePort();
      server = await startServer(['--public-url', `https://localhost:${tls}/`, '--trusted-proxy', '127.0.0.1']);
      const upstream = new URL(server.url).host;
      nginx = await startNginx(upstream, tls);
      browser = await launch();
      const token = readFileSync(path.join(server.dir, 'data', 'researcher-token'), 'utf8').trim();
      auth = { Authorization: `Bearer ${token}` };
    });
    after(async () => {
      await browser?.close();
      nginx?.stop();
      server?.stop();
    });

    test('the researcher (on the local address) is shown participant links on the public URL', async () => {
      const { page, close } = await open(browser, `${server.url}#study`);
      await waitFor(page, 'study-view', 20_000);
      await setValue(page, 'study-token', auth.Authorization.slice('Bearer '.length));
      await click(page, 'study-publish');
      const said = await waitText(page, 'server-message', /Published/, 15_000);
      assert.match(said, new RegExp(`${nginx.origin}/s/[0-9a-z]{8}`), said);
      await waitFor(page, 'published-link');
      const link = await page.evaluate(() => document.querySelector('[data-testid=published-link]').value);
      assert.match(link, new RegExp(`^${nginx.origin}/s/[0-9a-z]{8}$`));
      await close();
    });

    test('a participant completes a published study over HTTPS and HTTP/2, cross-origin isolated', async () => {
      const published = await call(`${nginx.origin}/api/studies`, { method: 'POST', headers: auth, body: JSON.stringify(STUDY) });
      assert.equal(published.status, 201, published.body);
      const { id, url } = JSON.parse(published.body);
      assert.equal(url, `${nginx.origin}/s/${id}`, 'the link the server hands out is on the public URL');
      const { page, close, problems } = await open(browser, url);
      const seen = await page.evaluate(() => ({
        isolated: globalThis.crossOriginIsolated,
        protocol: performance.getEntriesByType('navigation')[0]?.nextHopProtocol,
        origin: location.origin,
      }));
      assert.deepEqual(seen, { isolated: true, protocol: 'h2', origin: nginx.origin });
      await waitText(page, 'participant-timing', /can play the samples with precise timing|cannot play/, 15_000);
      await click(page, 'consent-accept');
      await click(page, 'participant-begin');
      for (let k = 0; k < 3; k++) await answerTrial(page, k);
      await waitFor(page, 'participant-done', 15_000);
      await waitText(page, 'participant-receipt', /All 3 answers are saved to the study server/);
      const results = JSON.parse((await call(`${nginx.origin}/api/studies/${id}/results`, { headers: auth })).body);
      assert.equal(results.responses.length, 3);
      assert.equal(new Set(results.responses.map((r) => r.trial)).size, 3);
      assert.deepEqual(await problems(), []);
      await close();
      // serve logged each answer in one line, without its content.
      assert.match(server.output(), /route=\/api\/studies\/:id\/answers .*status=201/);
      assert.ok(!server.output().includes('"responsive"'), 'no answer content in the log');
    });

    test('a write with a foreign Origin is refused with 403 behind the proxy too', async () => {
      const published = await call(`${nginx.origin}/api/studies`, { method: 'POST', headers: auth, body: JSON.stringify({ ...STUDY, id: 'remote-2' }) });
      const { id } = JSON.parse(published.body);
      const join = (origin) => call(`${nginx.origin}/api/studies/${id}/participants`, { method: 'POST', headers: { Origin: origin } });
      assert.equal((await join('https://evil.example')).status, 403);
      assert.equal((await join(`http://localhost:${nginx.tls}`)).status, 403, 'the public host without TLS is another origin');
      assert.equal((await join(nginx.origin)).status, 201);
    });

    test('the replay endpoint streams through nginx unbuffered; nginx refuses bodies over the server limit; http goes to https', async () => {
      const body = JSON.stringify({ model: 'profile:ttft=50,tpot=100,jitter=constant,tokens=8', stream: true, messages: [{ role: 'user', content: 'hi' }] });
      const r = await call(`${nginx.origin}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      assert.equal(r.status, 200);
      assert.match(r.body, /data: \[DONE\]/);
      // 8 tokens 100 ms apart arrive as they are written, not at the end.
      assert.ok(r.times.length >= 6, `${r.times.length} reads`);
      const spread = r.times.at(-1) - r.times[0];
      assert.ok(spread >= 500, `chunks arrived over ${spread.toFixed(0)} ms (buffered?)`);
      const big = await call(`${nginx.origin}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'x'.repeat(9 * 1024 * 1024) });
      assert.equal(big.status, 413);
      const plain = await call(`http://127.0.0.1:${nginx.plain}/s/abc`, { headers: { Host: 'localhost' } });
      assert.equal(plain.status, 301);
      assert.equal(plain.headers.location, 'https://localhost/s/abc');
    });
  });
}
