// A real OpenTelemetry SDK (Python opentelemetry-sdk with its OTLP/HTTP
// protobuf exporter, from PyPI; ./lab test installs it beside the test
// engine) sends GenAI client spans to latency-lab serve's field collector:
// every streamed span is kept with the TTFT the SDK recorded, the failure
// with its status, and the prompt text the sender included is nowhere.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LAB_BIN, ROOT, startServer } from './lib/lab.mjs';

const CACHE = process.env.LAB_CACHE ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'latency-lab');
const PYTHON = process.env.LAB_ENGINE_PYTHON ?? path.join(CACHE, 'venv/bin/python');
const ORIGIN = 'https://shop.example';

describe('field collector and a real OpenTelemetry SDK', () => {
  let server;
  let data;
  let key;
  before(async () => {
    assert.ok(existsSync(PYTHON), `${PYTHON} missing: run ./lab test, which installs opentelemetry-sdk there`);
    data = mkdtempSync(path.join(os.tmpdir(), 'lab-field-sdk-'));
    const said = execFileSync(LAB_BIN, ['field', 'add-site', 'backend', '--origin', ORIGIN, '--data', data], { encoding: 'utf8' });
    key = said.trim().split('\n').at(-1);
    server = await startServer(['--data', data]);
  });
  after(() => server?.stop());

  test('the Python SDK\'s GenAI spans are accepted and read back with their TTFT', async () => {
    const out = execFileSync(PYTHON, [path.join(ROOT, 'tests/field/otel_sdk_sender.py'), new URL('/v1/traces', server.url).href, key, '5'], { encoding: 'utf8' });
    const sent = JSON.parse(out);
    const token = readFileSync(path.join(data, 'researcher-token'), 'utf8').trim();
    const r = await fetch(new URL('/v1/field/requests?site=backend', server.url), { headers: { Authorization: `Bearer ${token}` } });
    assert.equal(r.status, 200);
    const trace = await r.json();
    assert.equal(trace.requests.length, 6, JSON.stringify(trace.requests.map((q) => q.id)));
    for (const s of sent.spans) {
      const q = trace.requests.find((x) => x.id === s.id);
      assert.ok(q, `span ${s.id} kept`);
      assert.ok(Math.abs(q.chunks[0].arrived_ms - q.sent_ms - s.ttft_ms) < 0.001, `TTFT ${q.chunks[0].arrived_ms - q.sent_ms} vs ${s.ttft_ms}`);
      assert.equal(q.usage.completion_tokens, 10);
    }
    const failed = trace.requests.find((x) => x.id === sent.failed);
    assert.equal(failed.failure.status, 429);
    assert.match(failed.failure.message, /Too Many Requests/);
    assert.doesNotMatch(JSON.stringify(trace), /sdk secret prompt/);
    for (const f of readdirSync(data)) {
      assert.doesNotMatch(readFileSync(path.join(data, f), 'latin1'), /sdk secret prompt/, `${f} holds the prompt`);
    }
  });
});
