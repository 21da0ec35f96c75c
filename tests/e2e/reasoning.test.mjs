// A reasoning profile from the replay endpoint (`reasoning=N`): the thinking
// streams into the reasoning panel, the answer into the output; the timeline
// draws the two phases as two segments, and time to first answer is TTFT
// plus the reasoning phase.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { labSuite, openPage, setField, waitForText } from './lib/lab.mjs';

describe('reasoning', () => {
  const lab = labSuite();

  test('a reasoning phase is measured and drawn apart from the answer', async () => {
    const { page, context, problems } = await openPage(lab.browser, `${lab.server.url}#live`);
    await setField(page, 'model', 'profile:ttft=100,tpot=5,jitter=constant,reasoning=40,tokens=10');
    await page.getByTestId('start').click();
    await waitForText(page.getByTestId('run-status'), /^Finished/, 20_000);
    await page.getByTestId('run-results').waitFor(); // drawn by the runs module
    assert.match(await page.getByTestId('reasoning').textContent(), /^Let me think/);
    assert.ok((await page.getByTestId('output').innerText()).length > 0, 'the answer is shown');
    const ttft = Number.parseFloat(await page.getByTestId('metric-ttft-median').textContent());
    const answer = Number.parseFloat(await page.getByTestId('feel-ttfa').textContent());
    const reasoning = Number.parseFloat(await page.getByTestId('feel-reasoning').textContent());
    // 40 reasoning tokens 5 ms apart come first (± the machine's scheduling).
    assert.ok(answer > ttft + 150 && answer < ttft + 450, `TTFT ${ttft} ms, first answer ${answer} ms`);
    assert.ok(Math.abs(answer - ttft - reasoning) < 1.5, `reasoning ${reasoning} ms`);
    const timeline = page.locator('[data-testid=chart-timeline] svg');
    assert.equal(await timeline.locator('[data-testid=timeline-reasoning]').count(), 1);
    assert.equal(await timeline.locator('[data-testid=timeline-answer]').count(), 1);
    assert.match(await timeline.locator('[data-testid=timeline-reasoning] title').textContent(), /reasoning until \d+ ms/);
    assert.deepEqual(problems, []);
    await context.close();
  });
});
