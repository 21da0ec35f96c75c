// Firefox: the official npm SDKs in a page, checked as in Chromium
// (tests/e2e/lib/sdks_browser_suite.mjs).
import { firefoxOpen, launchFirefox } from '../e2e/lib/firefox.mjs';
import { sdksBrowserSuite } from '../e2e/lib/sdks_browser_suite.mjs';

sdksBrowserSuite({ name: 'Firefox', launch: launchFirefox, open: firefoxOpen });
