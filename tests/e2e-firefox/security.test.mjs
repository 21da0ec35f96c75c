// Firefox: the CSP, hostile output and a planted API key, checked as in
// every browser (tests/e2e/lib/suites.mjs).
import { firefoxOpen, launchFirefox } from '../e2e/lib/firefox.mjs';
import { securitySuite } from '../e2e/lib/suites.mjs';

securitySuite({ name: 'Firefox', launch: launchFirefox, open: firefoxOpen });
