// WebKit (WebKitGTK's MiniBrowser over WebKitWebDriver, on Xvfb): the
// landing replay, checked as in every browser (tests/e2e/lib/suites.mjs),
// including the ≥ 10× check of the precise scheduler against the naive one
// (WebKit's landing P99 is 1–3 ms on this machine against the naive
// scheduler's 70–100 ms; BENCHMARKS.md). The figures are written to
// tests/e2e/artifacts/replay-fidelity-webkit.json.
import { launchWebKit, webkitOpen } from '../e2e/lib/webkit.mjs';
import { landingReplaySuite } from '../e2e/lib/suites.mjs';

landingReplaySuite({ name: 'WebKit', browser: 'Safari', engine: 'WebKit', launch: launchWebKit, open: webkitOpen });
