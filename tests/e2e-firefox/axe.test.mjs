// Firefox: every main view and the participant flow pass axe-core with no
// serious or critical violation; the keyboard focus on a tab is a ring
// people can see (Firefox's own is a faint dotted line).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { firefoxSuite, openFirefoxPage } from '../e2e/lib/firefox.mjs';
import { click, runLive, waitFor } from '../e2e/lib/dom.mjs';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * Runs axe-core in the page; returns serious and critical violations. The
 * source is evaluated by the driver (the page's CSP rightly refuses an
 * injected script tag, and the driver's own evaluation is not page script).
 */
async function axe(page) {
  await page.evaluate(`if (!window.axe) { ${AXE}\n }`);
  const found = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
  });
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

const VIEWS = {
  replay: async (page) => {
    await click(page, 'restart');
    await waitFor(page, 'pane-1-result', 30_000);
  },
  live: (page) => runLive(page, { model: 'profile:ttft=100,tpot=10,tokens=30' }),
  import: (page) => waitFor(page, 'import-view'),
  study: (page) => waitFor(page, 'study-view'),
  library: (page) => waitFor(page, 'library-view'),
};

describe('accessibility (Firefox)', () => {
  const lab = firefoxSuite();

  test('every view and the participant flow: axe-core clean', async () => {
    const { page, context, problems } = await openFirefoxPage(lab.browser, `${lab.server.url}#replay`);
    for (const [name, prepare] of Object.entries(VIEWS)) {
      await click(page, `tab-${name}`);
      await prepare(page);
      assert.deepEqual(await axe(page), [], name);
    }
    await click(page, 'tab-study');
    await click(page, 'study-run');
    await waitFor(page, 'participant-consent');
    assert.deepEqual(await axe(page), [], 'participant consent');
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('the focused tab shows a 3 px ring', async () => {
    const { page, context, problems } = await openFirefoxPage(lab.browser, `${lab.server.url}#live`);
    await waitFor(page, 'tab-replay');
    await page.keyboard.press('Tab');
    let focused = '';
    for (let i = 0; i < 15 && !focused.startsWith('tab-'); i++) {
      focused = await page.evaluate(() => document.activeElement?.dataset?.testid ?? '');
      if (!focused.startsWith('tab-')) await page.keyboard.press('Tab');
    }
    assert.match(focused, /^tab-/, 'the keyboard reaches the tabs');
    const ring = await page.evaluate(() => {
      const s = getComputedStyle(document.activeElement);
      return { width: s.outlineWidth, style: s.outlineStyle };
    });
    assert.deepEqual(ring, { width: '3px', style: 'solid' });
    assert.deepEqual(problems, []);
    await context.close();
  });
});
