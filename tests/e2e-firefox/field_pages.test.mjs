// Firefox: field data from the pages products ship, checked as in Chromium
// (tests/e2e/lib/field_pages_suite.mjs).
import { firefoxPlain, launchFirefox } from '../e2e/lib/firefox.mjs';
import { fieldPagesSuite } from '../e2e/lib/field_pages_suite.mjs';

fieldPagesSuite({
  name: 'Firefox',
  launch: launchFirefox,
  openPlain: firefoxPlain,
});
