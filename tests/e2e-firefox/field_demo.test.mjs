// Firefox: field data from the demo chat page, checked as in Chromium
// (tests/e2e/lib/field_suite.mjs).
import { firefoxPlain, launchFirefox } from '../e2e/lib/firefox.mjs';
import { fieldSuite } from '../e2e/lib/field_suite.mjs';

fieldSuite({
  name: 'Firefox',
  launch: launchFirefox,
  openPlain: firefoxPlain,
});
