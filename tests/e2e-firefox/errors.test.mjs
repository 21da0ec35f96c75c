// Firefox: every failure of a live run explains itself and keeps what
// arrived, checked as in every browser (tests/e2e/lib/suites.mjs).
import { firefoxOpen, launchFirefox } from '../e2e/lib/firefox.mjs';
import { liveErrorsSuite } from '../e2e/lib/suites.mjs';

liveErrorsSuite({ name: 'Firefox', launch: launchFirefox, open: firefoxOpen });
