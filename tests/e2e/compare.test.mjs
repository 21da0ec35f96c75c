// Chromium: Compare endpoints (tests/e2e/lib/compare_suite.mjs).
import { chromiumOpen, launchBrowser } from './lib/lab.mjs';
import { compareSuite } from './lib/compare_suite.mjs';

compareSuite({ name: 'Chromium', launch: launchBrowser, open: chromiumOpen });
