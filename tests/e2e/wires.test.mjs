// Chromium: Live over every wire (tests/e2e/lib/wires_suite.mjs). Firefox
// is not run yet: there Gemini's TTFT read 6 ms later than Chat's (11.1 and
// 10.9 ms after the server sent it, against 5.8 and 4.9; two runs,
// 2026-12-06), past the suite's 3 ms: Gemini sends no bytes before its
// first token, so the stream's first read and the headers come together.
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
