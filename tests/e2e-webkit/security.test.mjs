// WebKit: the CSP, hostile output and a planted API key, checked as in
// every browser (tests/e2e/lib/suites.mjs).
import { launchWebKit, webkitOpen } from '../e2e/lib/webkit.mjs';
import { securitySuite } from '../e2e/lib/suites.mjs';

securitySuite({ name: 'WebKit', launch: launchWebKit, open: webkitOpen });
