// `./lab build` (and so a second `./lab serve`) rebuilds only when a source
// changed, and says which (issue 44: a second `./lab serve` with nothing
// changed ran `trunk build --release` again, 58 s before serving). Runs
// after `./lab test` has built, so the build is fresh.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT } from './lib/lab.mjs';

const lab = (...args) => spawnSync(path.join(ROOT, 'lab'), args, { cwd: ROOT, encoding: 'utf8' });

test('a build with nothing changed is not redone; a changed source is named', () => {
  const fresh = lab('stale');
  assert.equal(fresh.stdout.trim(), 'up to date', `${fresh.stdout}${fresh.stderr}`);
  assert.equal(fresh.status, 0);
  const again = lab('build');
  assert.equal(again.status, 0, again.stderr);
  assert.match(again.stdout, /dist and the tool are up to date \(nothing changed since .*\); not rebuilding/);
  assert.doesNotMatch(again.stdout, /trunk build|cargo build/);
  // A source edited after the build (its time set to now, then put back).
  const file = path.join(ROOT, 'src/main.rs');
  const { atime, mtime } = statSync(file);
  try {
    utimesSync(file, atime, new Date(Date.now() + 1000));
    const stale = lab('stale');
    assert.equal(stale.status, 1);
    assert.equal(stale.stdout.trim(), 'src/main.rs changed since the last build');
  } finally {
    utimesSync(file, atime, mtime);
  }
  assert.equal(lab('stale').stdout.trim(), 'up to date');
});

// Issue 46: `./lab serve` serves the AI SDK page with its own `streamText`
// backend (examples/ai-sdk/server.mjs) beside the app, prints its address
// with the demo key, lets its origin send field data, and stops it with
// serve.
test('./lab serve starts the AI SDK page\'s streamText backend, prints it, and stops it', async () => {
  const data = mkdtempSync(path.join(tmpdir(), 'lab-serve-'));
  const proc = spawn(path.join(ROOT, 'lab'), ['serve', '--port', '0', '--data', data], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout.on('data', (b) => (out += b));
  proc.stderr.on('data', (b) => (out += b));
  const exited = new Promise((r) => proc.on('exit', (code, signal) => r({ code, signal })));
  try {
    const deadline = Date.now() + 120_000;
    let page;
    while (!(page = out.match(/Page with its own backend \(its answers go to Field\): (\S+)/)?.[1])) {
      assert.ok(Date.now() < deadline, `./lab serve printed no backend page:\n${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const lab = out.match(/Latency Lab is running at (\S+)/)[1];
    const url = new URL(page);
    const conf = Object.fromEntries(new URLSearchParams(url.hash.slice(1)));
    assert.equal(conf.api, '/api/chat');
    assert.match(conf.key, /^llk_/);
    assert.equal(conf.collector, `${lab}v1/traces`);
    assert.notEqual(url.origin, new URL(lab).origin, 'the backend has its own origin');
    assert.match(await (await fetch(url.origin + '/')).text(), /<html/i, 'the built page');
    // A question through streamText to the lab's replay endpoint.
    const res = await fetch(`${url.origin}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'c1', model: 'profile:ttft=20,tpot=2,tokens=6', messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'How fast?' }] }] }),
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-vercel-ai-ui-message-stream'), 'v1');
    const body = await res.text();
    assert.equal((body.match(/"type":"text-delta"/g) ?? []).length, 6, body);
    assert.match(body, /data: \[DONE\]\s*$/);
    // The collector lets the page's origin in with the printed key, and no other.
    const send = (origin) =>
      fetch(`${conf.collector}?key=${encodeURIComponent(conf.key)}`, { method: 'POST', headers: { origin, 'content-type': 'text/plain' }, body: '{"resourceSpans":[]}' });
    assert.ok((await send(url.origin)).ok, 'the backend page\'s origin is let in');
    assert.equal((await send('http://127.0.0.1:9')).status, 403, 'another origin is not');
    // SIGTERM stops serve and then the backend.
    proc.kill('SIGTERM');
    const end = await exited;
    assert.equal(end.code, 0, `./lab serve ended ${JSON.stringify(end)}:\n${out}`);
    await assert.rejects(fetch(url.origin + '/'), 'the backend stopped with serve');
  } finally {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      proc.kill('SIGKILL');
    }
    rmSync(data, { recursive: true, force: true });
  }
});
