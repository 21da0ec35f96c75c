// Chromium: probe while loaded, with the speed sweep's breaking point
// against slots (tests/e2e/lib/probe_suite.mjs; Firefox runs the probe).
import { launchBrowser, openPage } from './lib/lab.mjs';
import { probeSuite } from './lib/probe_suite.mjs';

probeSuite({
  name: 'Chromium',
  launch: launchBrowser,
  sweep: true,
  open: async (browser, url) => {
    const { page, context, problems } = await openPage(browser, url);
    return { page, close: () => context.close(), problems: async () => problems };
  },
});
