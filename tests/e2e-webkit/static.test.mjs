// WebKit: `dist/` on a plain static server (no isolation headers); the
// same suite as tests/e2e/static.test.mjs.
import { launchWebKit, openWebKitPage } from '../e2e/lib/webkit.mjs';
import { staticHostingSuite } from '../e2e/lib/static_hosting.mjs';

staticHostingSuite({
  title: 'static hosting (WebKit)',
  launch: launchWebKit,
  open: (browser, url) => openWebKitPage(browser, url),
  note: /^Clock step 1 ms · not isolated$/,
  name: 'Safari',
});
