// WebKit: field data from the AI SDK chat page (React, useChat, a
// streamText backend), checked as in Chromium
// (tests/e2e/lib/field_pages_suite.mjs).
import { launchWebKit } from '../e2e/lib/webkit.mjs';
import { fieldPagesSuite } from '../e2e/lib/field_pages_suite.mjs';

fieldPagesSuite({
  name: 'WebKit',
  launch: launchWebKit,
  pages: ['ai-sdk'],
  openPlain: async (browser, url) => {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 800 });
    await page.goto(url);
    return { page, close: () => page.close() };
  },
});
