// Chromium: `dist/` on a plain static server (no isolation headers): the
// app loads, the badge says what precision was lost and how to get it
// back, the landing replay plays, live streams from a CORS-enabled
// endpoint on another origin. The same suite runs in Firefox
// (tests/e2e-firefox/static.test.mjs).
import { launchBrowser, openPage } from './lib/lab.mjs';
import { staticHostingSuite } from './lib/static_hosting.mjs';

staticHostingSuite({
  title: 'static hosting (Chromium)',
  launch: launchBrowser,
  open: (browser, url) => openPage(browser, url),
  note: /^Clock step (100 µs|0\.10 ms) · not isolated$/,
  name: 'Chrome', // Debian's Chromium says "HeadlessChrome"
});
