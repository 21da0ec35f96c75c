// Chromium: Live over every wire (tests/e2e/lib/wires_suite.mjs); Firefox's
// adapter is tests/e2e-firefox/wires.test.mjs (a wider bound, and why).
import { chromiumOpen, launchBrowser } from './lib/lab.mjs';
import { wiresSuite } from './lib/wires_suite.mjs';

wiresSuite({
  name: 'Chromium',
  launch: launchBrowser,
  open: chromiumOpen,
});
