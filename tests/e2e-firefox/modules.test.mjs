// Firefox: on-demand modules, checked as in Chromium
// (tests/e2e/lib/modules_suite.mjs).
import { firefoxOpen, launchFirefox } from '../e2e/lib/firefox.mjs';
import { onDemandSuite } from '../e2e/lib/modules_suite.mjs';

onDemandSuite({ name: 'Firefox', launch: launchFirefox, open: firefoxOpen });
