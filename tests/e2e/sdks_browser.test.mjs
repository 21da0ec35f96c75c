// Chromium: the official npm SDKs in a page (tests/e2e/lib/sdks_browser_suite.mjs).
import { launchBrowser, openPage } from './lib/lab.mjs';
import { sdksBrowserSuite } from './lib/sdks_browser_suite.mjs';

sdksBrowserSuite({
  name: 'Chromium',
  launch: launchBrowser,
  open: async (browser, url) => {
    const { page, context, problems } = await openPage(browser, url);
    return { page, close: () => context.close(), problems: async () => problems };
  },
});
