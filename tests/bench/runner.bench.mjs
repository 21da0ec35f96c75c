// `latency-lab run` against `latency-lab serve` on loopback, at 500 and
// 2,000 concurrent streams: a Mooncake-format workload of evenly spaced
// requests whose answers each stream for 10 s (TTFT 100 ms, then 500 tokens
// 20 ms apart), so the number in flight settles at rate × 10 s. Printed per
// level: streams in flight at the peak, failures, send lateness (sent −
// scheduled) P50/P99, |client TTFT − server TTFT| P50/P99 (the server's
// ground truth) over every request and over those sent after the first
// answers ended (the pool's connections reused, so no connection set-up,
// which the server's handler clock cannot see), that gap's two legs at
// P99 (request: sent → headers back, less the server's own time to its
// headers; first chunk: headers → first chunk, less the server's), and the
// runner's CPU time per 1,000 streams. Each level runs twice, side by side: with both
// processes sharing the 2 cores, and pinned one core each (`taskset`: the
// runner's own core, as on a machine of its own).
//   node tests/bench/runner.bench.mjs   (LEVELS=500,2000 SECONDS=30 CORES=shared,pinned)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT, startServer } from '../e2e/lib/lab.mjs';

const BIN = path.join(ROOT, 'target/release/latency-lab');
const LEVELS = (process.env.LEVELS ?? '500,2000').split(',').map(Number);
const SECONDS = Number(process.env.SECONDS ?? 30);
const STREAM_S = 10;
const CORES = (process.env.CORES ?? 'shared,pinned').split(',');
const dir = mkdtempSync(path.join(tmpdir(), 'lab-runner-'));

const pct = (v, p) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] : NaN;
};

console.log(`latency-lab run → latency-lab serve, loopback, ${SECONDS} s of sends, each answer streaming ${STREAM_S} s\n`);
console.log('| cores | streams in flight | requests | failed | send lateness P50 / P99 (ms) | \\|client − server TTFT\\| P50 / P99 (ms), all | the same, connections reused | request leg P99 (ms) | first-chunk leg P99 (ms) | runner CPU s per 1,000 streams |');
console.log('|---|---:|---:|---:|---|---|---|---:|---:|---:|');
for (const level of LEVELS) for (const cores of CORES) {
  const pinned = cores === 'pinned';
  const server = await startServer(['--api-only', '--log-format', 'off', '--max-response-ms', '60000'], {});
  if (pinned) spawnSync('taskset', ['-a', '-pc', '0', String(server.proc.pid)]);
  const rate = level / STREAM_S;
  const n = Math.round(rate * SECONDS);
  const rows = Array.from({ length: n }, (_, i) => JSON.stringify({ timestamp: Math.round((i * 1000) / rate * 1000) / 1000, input_length: 200, output_length: 500, hash_ids: [] }));
  const file = path.join(dir, `even-${level}.jsonl`);
  writeFileSync(file, rows.join('\n') + '\n');
  const out = path.join(dir, `run-${level}.trace.json`);
  const script = `ulimit -n 16384; /usr/bin/time -f 'CPU %U %S' ${pinned ? 'taskset -c 1 ' : ''}"$0" run "$1" --target "$2" --model "profile:ttft=100,tpot=20,jitter=constant" --exact-output --quiet -o "$3"`;
  const ran = spawnSync('sh', ['-c', script, BIN, file, server.url, out], { encoding: 'utf8', maxBuffer: 1 << 24 });
  server.stop();
  if (ran.status !== 0) throw new Error(`latency-lab run failed:\n${ran.stdout}\n${ran.stderr}`);
  const [, user, sys] = (ran.stderr.split('\n').find((l) => l.startsWith('CPU ')) ?? 'CPU NaN NaN').split(' ');
  const trace = JSON.parse(readFileSync(out, 'utf8'));
  const reqs = trace.requests;
  const failed = reqs.filter((r) => r.failure).length;
  const late = reqs.map((r) => r.sent_ms - r.scheduled_ms);
  const timed = reqs.filter((r) => r.server && r.chunks.length);
  const gap = (r) => Math.abs(r.chunks[0].arrived_ms - r.sent_ms - r.server.chunks_sent_ms[0]);
  const dTtft = timed.map(gap);
  // Until the first answers end (10 s and a little), every send opens a
  // connection; after it, one freed by an ended answer is waiting.
  const reused = timed.filter((r) => r.sent_ms > (STREAM_S + 1) * 1000).map(gap);
  const request = timed.map((r) => r.headers_ms - r.sent_ms - r.server.headers_sent_ms);
  const first = timed.map((r) => r.chunks[0].arrived_ms - r.headers_ms - (r.server.chunks_sent_ms[0] - r.server.headers_sent_ms));
  const both = (v) => `${pct(v, 50).toFixed(3)} / ${pct(v, 99).toFixed(3)}`;
  // Peak in flight from the records: +1 at send, −1 at end.
  const events = reqs.flatMap((r) => [[r.sent_ms, 1], [r.end_ms ?? r.sent_ms, -1]]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let peak = 0;
  for (const [, d] of events) peak = Math.max(peak, (now += d));
  console.log(`| ${pinned ? '1 each' : 'shared'} | ${peak} | ${reqs.length} | ${failed} | ${both(late)} | ${both(dTtft)} | ${both(reused)} | ${pct(request, 99).toFixed(3)} | ${pct(first, 99).toFixed(3)} | ${(((Number(user) + Number(sys)) * 1000) / reqs.length).toFixed(2)} |`);
}
