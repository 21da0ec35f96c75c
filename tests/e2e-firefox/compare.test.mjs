// Firefox: Compare endpoints, checked as in Chromium (tests/e2e/lib/compare_suite.mjs).
import { firefoxOpen, launchFirefox } from '../e2e/lib/firefox.mjs';
import { compareSuite } from '../e2e/lib/compare_suite.mjs';

compareSuite({ name: 'Firefox', launch: launchFirefox, open: firefoxOpen });
