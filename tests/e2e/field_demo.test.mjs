// Chromium: field data from the demo chat page (tests/e2e/lib/field_suite.mjs).
import { launchBrowser } from './lib/lab.mjs';
import { fieldSuite } from './lib/field_suite.mjs';

fieldSuite({
  name: 'Chromium',
  launch: launchBrowser,
  openPlain: async (browser, url) => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(url);
    return { page, close: () => context.close() };
  },
});
