// Chromium: Live over every wire (tests/e2e/lib/wires_suite.mjs). Firefox
// is not run yet: there Live reads the first token of a wire that sends
// nothing before it (Gemini, Ollama, plain text) 2.5–7 ms later than a bare
// `fetch` reader in the same page, past the suite's 3 ms (BENCHMARKS.md,
// "Every wire"; not explained yet: it is not the frame loop, which a run
// without frames before the first bytes did not change).
import { chromiumOpen, launchBrowser } from './lib/lab.mjs';
import { wiresSuite } from './lib/wires_suite.mjs';

wiresSuite({
  name: 'Chromium',
  launch: launchBrowser,
  open: chromiumOpen,
});
