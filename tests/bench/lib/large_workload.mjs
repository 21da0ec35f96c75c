// The 1,000,000-row Mooncake workload both workload benchmarks read
// (tests/fixtures/workload/make_workloads.py --large, written once), and
// its first 100,000 and 300,000 rows: `[rows, file]` pairs.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT } from '../../e2e/lib/lab.mjs';

export function largeWorkloadFiles() {
  const large = path.join(ROOT, 'tests/fixtures/workload/mooncake_large.jsonl');
  if (!existsSync(large)) {
    execFileSync('python3', [path.join(ROOT, 'tests/fixtures/workload/make_workloads.py'), '--large', '1000000'], { stdio: 'inherit' });
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'lab-workload-'));
  const lines = readFileSync(large, 'utf8').split('\n');
  return [100_000, 300_000, 1_000_000].map((n) => {
    if (n >= lines.length - 1) return [n, large];
    const f = path.join(dir, `${n}.jsonl`);
    writeFileSync(f, lines.slice(0, n).join('\n') + '\n');
    return [n, f];
  });
}
