// A 1,000,000-row workload read natively: `latency-lab analyze` on a
// Mooncake file written by tests/fixtures/workload/make_workloads.py
// --large (148 MB), and on its first 100,000 and 300,000 rows; wall time
// and peak memory (`/usr/bin/time`), 3 runs each after one warm-up. The
// reader holds one row at a time; what grows is only the summary (a bit
// per block id seen). The browser worker: workload_browser.bench.mjs.
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../e2e/lib/lab.mjs';
import { largeWorkloadFiles } from './lib/large_workload.mjs';

const BIN = path.join(ROOT, 'target/release/latency-lab');
const files = largeWorkloadFiles();

/** One run: [wall s, peak RSS MB]. */
function run(file) {
  const out = execFileSync('sh', ['-c', `/usr/bin/time -f 'TIME %e %M' "$0" analyze "$1" 2>&1 >/dev/null`, BIN, file], { encoding: 'utf8' });
  const line = out.split('\n').find((l) => l.startsWith('TIME '));
  if (!line) throw new Error(`analyze failed on ${file}:\n${out}`);
  const [, wall, kb] = line.split(' ');
  return [Number(wall), Number(kb) / 1024];
}

console.log('| rows | file MB | wall s (3 runs) | peak RSS MB (3 runs) |');
console.log('|---:|---:|---|---|');
for (const [n, f] of files) {
  run(f);
  const runs = [run(f), run(f), run(f)];
  const mb = (statSync(f).size / 1e6).toFixed(0);
  console.log(`| ${n.toLocaleString('en')} | ${mb} | ${runs.map((r) => r[0].toFixed(2)).join(', ')} | ${runs.map((r) => r[1].toFixed(1)).join(', ')} |`);
}
