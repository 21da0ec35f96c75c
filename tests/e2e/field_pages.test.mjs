// Chromium: field data from the pages products ship (tests/e2e/lib/field_pages_suite.mjs).
import { chromiumPlain, launchBrowser } from './lib/lab.mjs';
import { fieldPagesSuite } from './lib/field_pages_suite.mjs';

fieldPagesSuite({
  name: 'Chromium',
  launch: launchBrowser,
  openPlain: chromiumPlain,
});
