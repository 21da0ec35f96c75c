// Firefox: field data from the pages products ship, checked as in Chromium
// (tests/e2e/lib/field_pages_suite.mjs).
import { launchFirefox, setViewport } from '../e2e/lib/firefox.mjs';
import { fieldPagesSuite } from '../e2e/lib/field_pages_suite.mjs';

fieldPagesSuite({
  name: 'Firefox',
  launch: launchFirefox,
  openPlain: async (browser, url) => {
    const context = await browser.createBrowserContext();
    const page = await context.newPage();
    await setViewport(page, { width: 1280, height: 800 });
    await page.goto(url);
    return { page, close: () => context.close() };
  },
});
