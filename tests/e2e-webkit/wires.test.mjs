// WebKit: Live over every wire (tests/e2e/lib/wires_suite.mjs), held to
// the same bound over a bare reader as Chromium and Firefox.
import { launchWebKit, webkitOpen } from '../e2e/lib/webkit.mjs';
import { wiresSuite } from '../e2e/lib/wires_suite.mjs';

wiresSuite({ name: 'WebKit', launch: launchWebKit, open: webkitOpen });
