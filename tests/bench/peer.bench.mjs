// The same workload sent by `latency-lab run` and by a peer tool, AIPerf
// 0.13 (NVIDIA's, from PyPI; `--fixed-schedule` replays a Mooncake trace at
// its timestamps), side by side against `latency-lab serve` on loopback.
// Each tool runs twice, interleaved (runner, AIPerf, runner, AIPerf), each
// against a fresh server playing the same model; both outputs are read by
// `latency-lab analyze --json` (AIPerf's profile_export.jsonl is one of the
// formats it imports), so one definition measures both. Printed per run:
// requests and failures, TTFT P50/P99 as each tool saw it, how evenly sends
// kept the schedule (sent − scheduled, its P99 minus its P50: AIPerf's
// records do not say when its schedule's 0 was, so the spread around the
// median is what both can be compared on; the runner's own lateness is in
// runner.bench.mjs), and the tool's CPU time (user + system of its whole
// process tree) per 1,000 requests.
//
// AIPerf counts tokens with a tokenizer; offline, its `builtin` one
// (tiktoken o200k_base) is given the encoding file tiktoken-rs ships in the
// cargo registry (the same bytes tiktoken would download, checked by its
// SHA-256). The first run installs AIPerf into ~/.cache/latency-lab/peer-venv.
//   node tests/bench/peer.bench.mjs        (RATE=50 SECONDS=30 OUTPUT=100)
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, startServer } from '../e2e/lib/lab.mjs';

const BIN = path.join(ROOT, 'target/release/latency-lab');
const RATE = Number(process.env.RATE ?? 50);
const SECONDS = Number(process.env.SECONDS ?? 30);
const OUTPUT = Number(process.env.OUTPUT ?? 100);
const PROFILE = 'ttft=100,tpot=20,jitter=constant';
const AIPERF = '0.13.0';
const CACHE = process.env.LAB_CACHE ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'latency-lab');
const VENV = path.join(CACHE, 'peer-venv');
const TIKTOKEN = path.join(CACHE, 'tiktoken');
/** tiktoken's cache name for o200k_base: the SHA-1 of its download URL. */
const O200K = 'fb374d419588a4632f3f557e76b4b70aebbca790';

function setup() {
  const aiperf = path.join(VENV, 'bin/aiperf');
  if (!existsSync(aiperf)) {
    console.log(`installing aiperf==${AIPERF} into ${VENV} (once)`);
    execFileSync('python3', ['-m', 'venv', VENV], { stdio: 'inherit' });
    execFileSync(path.join(VENV, 'bin/pip'), ['install', '--quiet', `aiperf==${AIPERF}`], { stdio: 'inherit' });
  }
  if (!existsSync(path.join(TIKTOKEN, O200K))) {
    const src = path.join(process.env.CARGO_HOME ?? path.join(os.homedir(), '.cargo'), 'registry/src');
    const asset = readdirSync(src)
      .flatMap((index) => readdirSync(path.join(src, index)).filter((d) => d.startsWith('tiktoken-rs-')).map((d) => path.join(src, index, d, 'assets/o200k_base.tiktoken')))
      .find(existsSync);
    if (!asset) throw new Error(`no tiktoken-rs o200k_base.tiktoken under ${src}: build latency-lab first (it depends on tiktoken-rs)`);
    mkdirSync(TIKTOKEN, { recursive: true });
    copyFileSync(asset, path.join(TIKTOKEN, O200K));
  }
  return aiperf;
}

const pct = (v, p) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] : NaN;
};
const f = (x, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : '—');

/** Runs `script` under /usr/bin/time; its CPU seconds (user + system). */
function timed(script, args, env = process.env) {
  const ran = spawnSync('sh', ['-c', `/usr/bin/time -f 'CPU %U %S' ${script}`, ...args], { encoding: 'utf8', env, maxBuffer: 1 << 26 });
  if (ran.status !== 0) throw new Error(`${script} failed:\n${ran.stdout.slice(-4000)}\n${ran.stderr.slice(-4000)}`);
  const [, user, sys] = (ran.stderr.split('\n').find((l) => l.startsWith('CPU ')) ?? 'CPU NaN NaN').split(' ');
  return Number(user) + Number(sys);
}

function analyze(file) {
  return JSON.parse(execFileSync(BIN, ['analyze', file, '--json'], { encoding: 'utf8', maxBuffer: 1 << 26 }));
}

const aiperf = setup();
const dir = mkdtempSync(path.join(os.tmpdir(), 'lab-peer-'));
const n = Math.round(RATE * SECONDS);
const rows = Array.from({ length: n }, (_, i) => JSON.stringify({ timestamp: Math.round((i * 1000) / RATE), input_length: 200, output_length: OUTPUT, hash_ids: [] }));
const workload = path.join(dir, 'even.jsonl');
writeFileSync(workload, rows.join('\n') + '\n');
const scheduledMs = rows.map((_, i) => Math.round((i * 1000) / RATE));

console.log(`${n} requests at ${RATE} req/s (Mooncake format), ${OUTPUT} output tokens each, against latency-lab serve --profile ${PROFILE} on loopback\n`);
console.log('| tool | run | requests | failed | TTFT P50 / P99 (ms) | sent − scheduled, P99 − P50 (ms) | CPU s per 1,000 requests |');
console.log('|---|---:|---:|---:|---|---|---:|');
for (const k of [1, 2]) {
  for (const tool of ['latency-lab run', `AIPerf ${AIPERF}`]) {
    const server = await startServer(['--api-only', '--log-format', 'off', '--profile', PROFILE], {});
    let cpu;
    let file;
    let late = [];
    try {
      if (tool === 'latency-lab run') {
        file = path.join(dir, `run-${k}.trace.json`);
        cpu = timed('"$0" run "$1" --target "$2" --model bench --exact-output --quiet -o "$3"', [BIN, workload, server.url, file]);
        late = JSON.parse(readFileSync(file, 'utf8')).requests.map((r) => r.sent_ms - r.scheduled_ms);
      } else {
        const out = path.join(dir, `aiperf-${k}`);
        cpu = timed('"$0" profile --model bench --url "$1" --endpoint-type chat --streaming --input-file "$2" --custom-dataset-type mooncake_trace --fixed-schedule --extra-inputs ignore_eos:true --tokenizer builtin --ui-type none --artifact-dir "$3"',
          [aiperf, server.url, workload, out], { ...process.env, TIKTOKEN_CACHE_DIR: TIKTOKEN });
        file = path.join(out, 'profile_export.jsonl');
        // Offsets from the first request's start (its schedule's 0 is not recorded).
        const recs = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l).metadata)
          .filter((m) => m.benchmark_phase === 'profiling').sort((a, b) => a.request_start_ns - b.request_start_ns);
        const t0 = recs.length ? recs[0].request_start_ns : 0;
        late = recs.map((m, i) => (m.request_start_ns - t0) / 1e6 - scheduledMs[i]);
      }
    } finally {
      server.stop();
    }
    const v = analyze(file);
    const ttft = v.metrics?.ttft_ms ?? v.ttft_ms;
    console.log(`| ${tool} | ${k} | ${v.requests} | ${v.failed ?? 0} | ${f(ttft?.p50)} / ${f(ttft?.p99)} | ${f(pct(late, 99) - pct(late, 50), 2)} | ${f((cpu * 1000) / v.requests, 2)} |`);
  }
}
