// Chromium: Live over every wire (tests/e2e/lib/wires_suite.mjs).
import { launchBrowser, openPage } from './lib/lab.mjs';
import { wiresSuite } from './lib/wires_suite.mjs';

wiresSuite({
  name: 'Chromium',
  launch: launchBrowser,
  open: async (browser, url) => {
    const { page, context, problems } = await openPage(browser, url);
    return { page, close: () => context.close(), problems: async () => problems };
  },
});
