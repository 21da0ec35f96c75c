// `./lab build` (and so a second `./lab serve`) rebuilds only when a source
// changed, and says which (issue 44: a second `./lab serve` with nothing
// changed ran `trunk build --release` again, 58 s before serving). Runs
// after `./lab test` has built, so the build is fresh.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { statSync, utimesSync } from 'node:fs';
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
