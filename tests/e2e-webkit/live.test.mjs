// WebKit: live mode against the server's own clock, checked as in every
// browser (tests/e2e/lib/suites.mjs).
import { launchWebKit, webkitOpen } from '../e2e/lib/webkit.mjs';
import { liveAccuracySuite } from '../e2e/lib/suites.mjs';

liveAccuracySuite({ name: 'WebKit', browser: 'Safari', engine: 'WebKit', launch: launchWebKit, open: webkitOpen });
