// Chromium: on-demand modules (tests/e2e/lib/modules_suite.mjs): the first
// screen works without them, a missing one says so and Retry recovers, the
// landing replay prefetches them. Firefox runs the same suite.
import { launchBrowser, openPage } from './lib/lab.mjs';
import { onDemandSuite } from './lib/modules_suite.mjs';

onDemandSuite({
  name: 'Chromium',
  launch: launchBrowser,
  open: async (browser, url) => {
    const { page, context, problems } = await openPage(browser, url);
    return { page, close: () => context.close(), problems: async () => problems };
  },
});
