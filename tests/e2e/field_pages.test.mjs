// Chromium: field data from the pages products ship (tests/e2e/lib/field_pages_suite.mjs).
import { launchBrowser } from './lib/lab.mjs';
import { fieldPagesSuite } from './lib/field_pages_suite.mjs';

fieldPagesSuite({
  name: 'Chromium',
  launch: launchBrowser,
  openPlain: async (browser, url) => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(url);
    return { page, close: () => context.close() };
  },
});
