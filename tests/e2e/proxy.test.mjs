// Chromium: a study for remote participants through nginx with TLS and
// HTTP/2 (tests/e2e/lib/proxy_suite.mjs; Firefox runs the same suite).
import { launchBrowser, openPage } from './lib/lab.mjs';
import { proxySuite } from './lib/proxy_suite.mjs';

proxySuite({
  name: 'Chromium',
  launch: launchBrowser,
  open: async (browser, url) => {
    // The test's own certificate is not one Chromium knows.
    const { page, context, problems } = await openPage(browser, url, undefined, { ignoreHTTPSErrors: true });
    return { page, close: () => context.close(), problems: async () => problems };
  },
});
