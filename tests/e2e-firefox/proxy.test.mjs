// Firefox: a study for remote participants through nginx with TLS and
// HTTP/2, checked as in Chromium (tests/e2e/lib/proxy_suite.mjs).
import { firefoxOpen, launchFirefox } from '../e2e/lib/firefox.mjs';
import { proxySuite } from '../e2e/lib/proxy_suite.mjs';

// The test's own certificate is not one Firefox knows.
proxySuite({ name: 'Firefox', launch: () => launchFirefox({ acceptInsecureCerts: true }), open: firefoxOpen });
