// Firefox: probe while loaded, checked as in Chromium
// (tests/e2e/lib/probe_suite.mjs; the slots sweep runs in Chromium).
import { firefoxOpen, launchFirefox } from '../e2e/lib/firefox.mjs';
import { probeSuite } from '../e2e/lib/probe_suite.mjs';

probeSuite({ name: 'Firefox', launch: launchFirefox, open: firefoxOpen, sweep: false });
