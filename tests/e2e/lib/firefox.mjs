// Debian's Firefox ESR, driven headless by puppeteer-core over WebDriver BiDi
// (no geckodriver, no browser download). The Firefox suites and the
// cross-browser benchmarks launch it here.
import puppeteer from 'puppeteer-core';
import { labSuite, launchBrowser, openPage } from './lab.mjs';

export const FIREFOX = process.env.FIREFOX ?? '/usr/bin/firefox-esr';

/** Firefox preferences for a closed network and a test that nobody watches. */
const PREFS = {
  'app.update.enabled': false,
  'browser.shell.checkDefaultBrowser': false,
  'datareporting.policy.dataSubmissionEnabled': false,
  'network.captive-portal-service.enabled': false,
  'network.connectivity-service.enabled': false,
  'browser.safebrowsing.update.enabled': false,
  'extensions.update.enabled': false,
};

/** Launches headless Firefox ESR (`options`: more of puppeteer's launch
 *  options, e.g. `acceptInsecureCerts`; its `extraPrefsFirefox` are added
 *  to PREFS). */
export function launchFirefox(options = {}) {
  return puppeteer.launch({
    browser: 'firefox',
    executablePath: FIREFOX,
    headless: true,
    defaultViewport: null,
    ...options,
    extraPrefsFirefox: { ...PREFS, ...options.extraPrefsFirefox },
  });
}

/**
 * Sizes the page. puppeteer sends the size and a screen orientation in one
 * go; Firefox ESR 140 takes the size but has no orientation command yet, so
 * only that part's refusal is let through.
 */
export async function setViewport(page, viewport) {
  try {
    await page.setViewport(viewport);
  } catch (e) {
    if (!/setScreenOrientationOverride|unknown command/i.test(String(e?.message))) throw e;
  }
}

/**
 * Opens `url` in a fresh browser context (its own storage) and waits for the
 * app; records console errors and uncaught exceptions in `problems`
 * (`initScript`: a script run in the page before its own).
 */
export async function openFirefoxPage(browser, url, viewport = { width: 1280, height: 800 }, { initScript } = {}) {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  await setViewport(page, viewport);
  if (initScript) await page.evaluateOnNewDocument(initScript);
  const problems = [];
  const logs = [];
  page.on('console', (m) => {
    logs.push(m.text());
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  await page.goto(url);
  await page.waitForSelector('[data-testid="app-header"]');
  return { page, context, problems, logs };
}

/** The shared suites' adapter (`suites.mjs`): `{ page, close, problems }`. */
export async function firefoxOpen(browser, url) {
  const { page, context, problems, logs } = await openFirefoxPage(browser, url);
  return { page, close: () => context.close(), problems: async () => problems, consoleLines: () => logs };
}

/** `labSuite` with headless Firefox: `lab.server` and `lab.browser` in the tests. */
/** Opens any page (not the app) in a fresh Firefox context: `{ page, close }`. */
export async function firefoxPlain(browser, url) {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  await setViewport(page, { width: 1280, height: 800 });
  await page.goto(url);
  return { page, close: () => context.close() };
}

export function firefoxSuite(serverArgs = []) {
  return labSuite(serverArgs, launchFirefox);
}

/**
 * Chromium and Firefox side by side, for benchmarks: `[name, browser,
 * open]` each, where `open(browser)` opens `url` in a fresh context.
 */
export async function bothBrowsers(url) {
  return [
    ['Chromium', await launchBrowser(), (b) => openPage(b, url)],
    ['Firefox', await launchFirefox(), (b) => openFirefoxPage(b, url)],
  ];
}
