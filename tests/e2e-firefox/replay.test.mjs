// Firefox: the landing replay, checked as in every browser (tests/e2e/lib/suites.mjs).
import { firefoxOpen, launchFirefox } from '../e2e/lib/firefox.mjs';
import { landingReplaySuite } from '../e2e/lib/suites.mjs';

landingReplaySuite({ name: 'Firefox', browser: 'Firefox', engine: 'Gecko', launch: launchFirefox, open: firefoxOpen });
