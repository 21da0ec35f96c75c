// Firefox: live mode against the server's own clock, checked as in every
// browser (tests/e2e/lib/suites.mjs).
import { firefoxOpen, launchFirefox } from '../e2e/lib/firefox.mjs';
import { liveAccuracySuite } from '../e2e/lib/suites.mjs';

liveAccuracySuite({ name: 'Firefox', browser: 'Firefox', engine: 'Gecko', launch: launchFirefox, open: firefoxOpen });
