// The official Python SDKs, unchanged, against the replay endpoint (issue
// 45): PyPI `openai` (the Responses API), `anthropic`, `google-genai` and
// `ollama`, each run by tests/sdks/py_sdks.py in the lab's Python (the
// engine's virtualenv, where `./lab` installs them). Each reads a text
// profile at its pace (TTFT and the median gap against the server's clock,
// the Chat tests' bounds), a profile with reasoning, an answer and a tool
// call as its provider's SDK reports them, and its own error for a model
// the lab does not know.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import path from 'node:path';
import { startServer, ROOT } from './lib/lab.mjs';
import { FULL, TEXT, checkSdkReport } from './lib/sdk_timing.mjs';

const PYTHON = process.env.LAB_ENGINE_PYTHON;
const SCRIPT = path.join(ROOT, 'tests/sdks/py_sdks.py');

let server, root;
before(async () => {
  assert.ok(PYTHON, 'LAB_ENGINE_PYTHON is set by ./lab test (the virtualenv with the SDKs)');
  server = await startServer([]);
  root = server.url.replace(/\/$/, '');
});
after(() => server?.stop());

async function run(sdk) {
  const { stdout } = await promisify(execFile)(PYTHON, [SCRIPT, root, sdk, TEXT, FULL], { timeout: 120_000 });
  return JSON.parse(stdout);
}

describe('the official Python SDKs read the replay endpoint as their provider', () => {
  for (const sdk of ['openai', 'anthropic', 'google-genai', 'ollama']) {
    test(`${sdk} (Python): the pace, reasoning, the tool call, usage and its error`, async () => {
      const out = await run(sdk);
      await checkSdkReport(root, sdk, out);
      if (sdk === 'anthropic') {
        assert.deepEqual(out.full.blocks, ['thinking', 'text', 'tool_use']);
        assert.equal(out.full.finish, 'tool_use');
      }
    });
  }
});
