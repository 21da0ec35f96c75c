// Driving the app through the page's own DOM, the same way in every browser
// driver (playwright-core for Chromium, puppeteer-core for Firefox): each
// helper is one `page.evaluate`, which both drivers have with the same
// shape. Fields are set as a person's edit ends (input, then change), and
// downloads are read from the Blob the app hands to `URL.createObjectURL`,
// so no driver's download support is needed.
import { setTimeout as sleep } from 'node:timers/promises';

const sel = (id) => `[data-testid="${id}"]`;

/** The element's visible text ('' when it is absent). */
export function text(page, id) {
  return page.evaluate((s) => document.querySelector(s)?.innerText ?? '', sel(id));
}

/** Whether the element exists and takes up room on the page. */
export function visible(page, id) {
  return page.evaluate((s) => {
    const e = document.querySelector(s);
    return !!e && e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
  }, sel(id));
}

/** Waits for the element to exist and be visible. */
export async function waitFor(page, id, timeout = 10_000) {
  const deadline = Date.now() + timeout;
  while (!(await visible(page, id))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${sel(id)}`);
    await sleep(25);
  }
}

/** Waits for an element matching `css` to exist (a view in an on-demand module is there once loaded). */
export async function waitForCss(page, css, timeout = 20_000) {
  const deadline = Date.now() + timeout;
  while (!(await page.evaluate((c) => !!document.querySelector(c), css))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${css}`);
    await sleep(25);
  }
}

/** Waits until the element's text matches `pattern`; returns the text. */
export async function waitText(page, id, pattern, timeout = 10_000) {
  const deadline = Date.now() + timeout;
  let last = '';
  while (Date.now() < deadline) {
    last = await text(page, id);
    if (pattern.test(last)) return last;
    await sleep(25);
  }
  throw new Error(`timed out waiting for ${pattern} in ${sel(id)}; last text: ${JSON.stringify(last)}`);
}

/** Sets a field (input, select or textarea) as an edit that ends does. */
export async function setValue(page, id, value) {
  await waitFor(page, id);
  await page.evaluate(
    ([s, v]) => {
      const e = document.querySelector(s);
      e.value = v;
      e.dispatchEvent(new Event('input', { bubbles: true }));
      e.dispatchEvent(new Event('change', { bubbles: true }));
    },
    [sel(id), String(value)],
  );
}

/** Clicks the element (waits for it first). */
export async function click(page, id) {
  await waitFor(page, id);
  await page.evaluate((s) => document.querySelector(s).click(), sel(id));
}

/** From now on, keeps each Blob the page makes a URL for (its downloads). */
export function keepDownloads(page) {
  return page.evaluate(() => {
    if (window.__labBlobs) return;
    window.__labBlobs = [];
    const make = URL.createObjectURL.bind(URL);
    URL.createObjectURL = (b) => {
      window.__labBlobs.push(b);
      return make(b);
    };
  });
}

/** Clicks a download button and returns the downloaded file's text. */
export async function download(page, id) {
  await keepDownloads(page);
  const before = await page.evaluate(() => window.__labBlobs.length);
  await click(page, id);
  const deadline = Date.now() + 10_000;
  while ((await page.evaluate(() => window.__labBlobs.length)) === before) {
    if (Date.now() > deadline) throw new Error(`${sel(id)} downloaded nothing`);
    await sleep(25);
  }
  return page.evaluate(() => window.__labBlobs.at(-1).text());
}

/** Runs a live request from the Live view and waits for it to end. */
export async function runLive(page, { model, mode = 'single', n, baseUrl, timeout = 60_000, results = true }) {
  if (baseUrl) await setValue(page, 'base-url', baseUrl);
  if (model) await setValue(page, 'model', model);
  await setValue(page, 'run-mode', mode);
  if (n) await setValue(page, 'run-n', n);
  await click(page, 'start');
  const status = await waitText(page, 'run-status', /^(Finished|Stopped)/, timeout);
  // The results are drawn by the runs module, loaded after the first run.
  if (results) await waitFor(page, 'run-results', 20_000);
  return status;
}

/** How many elements match the CSS selector. */
export function count(page, css) {
  return page.evaluate((s) => document.querySelectorAll(s).length, css);
}

/** An attribute of the element (null when absent). */
export function attr(page, id, name) {
  return page.evaluate(([s, n]) => document.querySelector(s)?.getAttribute(n) ?? null, [sel(id), name]);
}

/**
 * Gives files to the file input `id` (a person choosing them): `files` are
 * `{ name, text }`, set through a DataTransfer, then `change` fires.
 */
export async function chooseFiles(page, id, files) {
  await waitForCss(page, sel(id));
  await page.evaluate(
    ([s, items]) => {
      const input = document.querySelector(s);
      const dt = new DataTransfer();
      for (const { name, text } of items) dt.items.add(new File([text], name, { type: 'application/json' }));
      input.files = dt.files;
      input.dispatchEvent(new Event('change', { bubbles: true }));
    },
    [sel(id), files],
  );
}

/** Drops files (`{ name, text }`) on the element matching `css`. */
export async function dropFiles(page, css, files) {
  await waitForCss(page, css);
  await page.evaluate(
    ([s, items]) => {
      const dt = new DataTransfer();
      for (const { name, text } of items) dt.items.add(new File([text], name, { type: 'application/json' }));
      const target = document.querySelector(s);
      for (const type of ['dragenter', 'dragover', 'drop']) {
        target.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt }));
      }
    },
    [css, files],
  );
}

/** Downloads the run's trace (`download-trace`) and parses it. */
export async function downloadTrace(page, id = 'download-trace') {
  return JSON.parse(await download(page, id));
}

/** The element's text content, rendered or not (closed details, hidden blocks). */
export function content(page, id) {
  return page.evaluate((s) => document.querySelector(s)?.textContent ?? '', sel(id));
}
