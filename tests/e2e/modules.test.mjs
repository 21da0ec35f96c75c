// Chromium: on-demand modules (tests/e2e/lib/modules_suite.mjs): the first
// screen works without them, a missing one says so and Retry recovers, the
// landing replay prefetches them. Firefox runs the same suite.
import { chromiumOpen, launchBrowser } from './lib/lab.mjs';
import { onDemandSuite } from './lib/modules_suite.mjs';

onDemandSuite({
  name: 'Chromium',
  launch: launchBrowser,
  open: chromiumOpen,
});
