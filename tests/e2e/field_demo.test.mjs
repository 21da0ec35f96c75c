// Chromium: field data from the demo chat page (tests/e2e/lib/field_suite.mjs).
import { chromiumPlain, launchBrowser } from './lib/lab.mjs';
import { fieldSuite } from './lib/field_suite.mjs';

fieldSuite({
  name: 'Chromium',
  launch: launchBrowser,
  openPlain: chromiumPlain,
});
