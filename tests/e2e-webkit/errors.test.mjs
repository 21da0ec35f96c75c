// WebKit: every failure of a live run explains itself and keeps what
// arrived, checked as in every browser (tests/e2e/lib/suites.mjs).
import { launchWebKit, webkitOpen } from '../e2e/lib/webkit.mjs';
import { liveErrorsSuite } from '../e2e/lib/suites.mjs';

liveErrorsSuite({ name: 'WebKit', launch: launchWebKit, open: webkitOpen });
