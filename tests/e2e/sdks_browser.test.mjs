// Chromium: the official npm SDKs in a page (tests/e2e/lib/sdks_browser_suite.mjs).
import { chromiumOpen, launchBrowser } from './lib/lab.mjs';
import { sdksBrowserSuite } from './lib/sdks_browser_suite.mjs';

sdksBrowserSuite({
  name: 'Chromium',
  launch: launchBrowser,
  open: chromiumOpen,
});
