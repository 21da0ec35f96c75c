// Firefox: `dist/` on a plain static server (no isolation headers); the
// same suite as tests/e2e/static.test.mjs.
import { launchFirefox, openFirefoxPage } from '../e2e/lib/firefox.mjs';
import { staticHostingSuite } from '../e2e/lib/static_hosting.mjs';

staticHostingSuite({
  title: 'static hosting (Firefox)',
  launch: launchFirefox,
  open: (browser, url) => openFirefoxPage(browser, url),
  note: /^Clock step 1 ms · not isolated$/,
  name: 'Firefox',
});
